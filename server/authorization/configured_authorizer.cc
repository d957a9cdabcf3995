#include "server/authorization/configured_authorizer.h"

#include "base/go_quote.h"
#include "base/sleep.h"
#include "server/authorization/instrumented_authorizer.h"
#include "server/authorization/modes.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>

#include <fstream>
#include <sstream>

namespace kapi::authorization {

std::shared_ptr<const Authorizer> build_configured_authorizer(const AuthorizationConfiguration& config,
                                                              std::shared_ptr<const Authorizer> rbac,
                                                              std::shared_ptr<const Authorizer> node,
                                                              base::Logger* logger,
                                                              metrics::AuthorizationFamilies* metrics) {
  std::vector<std::shared_ptr<const Authorizer>> authorizers;
  authorizers.push_back(std::make_shared<PrivilegedGroupsAuthorizer>(std::vector<std::string>{"system:masters"}));
  for (const AuthorizerConfiguration& configured : config.authorizers) {
    std::shared_ptr<const Authorizer> authorizer;
    if (configured.type == "AlwaysAllow") {
      authorizer = std::make_shared<AlwaysAllowAuthorizer>();
    } else if (configured.type == "AlwaysDeny") {
      authorizer = std::make_shared<AlwaysDenyAuthorizer>();
    } else if (configured.type == "RBAC" && rbac) {
      authorizer = rbac;
    } else if (configured.type == "Node" && node) {
      authorizer = node;
    } else if (configured.type == "Webhook") {
      try {
        authorizer = std::make_shared<WebhookAuthorizer>(webhook_options(configured, metrics), logger);
      } catch (const std::invalid_argument& error) {
        throw AuthorizationConfigError(error.what());
      } catch (const webhook::KubeconfigError& error) {
        throw AuthorizationConfigError(error.what());
      }
    } else {
      throw AuthorizationConfigError("authorizer type \"" + configured.type + "\" is not implemented by kapi");
    }
    authorizers.push_back(instrumented(configured.type, configured.name, std::move(authorizer), metrics));
  }
  return std::make_shared<UnionAuthorizer>(std::move(authorizers));
}

struct ReloadingAuthorizer::State {
  std::filesystem::path file;
  Build build;
  base::Logger* logger = nullptr;
  ReloadMetrics metrics;
  std::string id_hash;  // the apiserver_id_hash label
  mutable std::mutex mutex;
  std::shared_ptr<const Authorizer> current;
  std::string last_read;                  // kube's lastReadData
  AuthorizationConfiguration last_loaded;  // kube's lastLoadedConfig

  // metrics.RecordAuthorizationConfigAutomaticReload{Success,Failure}.
  void record(const char* status) const {
    if (!metrics.families) return;
    metrics.families->config_reloads.inc({id_hash, status});
    metrics.families->config_reload_timestamp.set({id_hash, status}, metrics::unix_now());
  }
};

namespace {

std::optional<std::string> read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// kube's checkFile: a changed content is loaded and validated, and built unless it says what the chain in use says;
// only then does it replace that chain.
void check_file(ReloadingAuthorizer::State& state) {
  base::Logger* logger = state.logger;
  std::optional<std::string> text = read_text(state.file);
  if (!text) {
    if (logger)
      logger->error("\"reloading authorization config\" err=" +
                    base::go_quote("open " + state.file.string() + ": no such file or directory"));
    state.record("failure");
    return;
  }
  {
    std::lock_guard lock(state.mutex);
    if (*text == state.last_read) return;
    state.last_read = *text;
  }
  if (logger) logger->info("\"found new authorization config data\"");
  std::shared_ptr<const Authorizer> rebuilt;
  try {
    AuthorizationConfiguration config = parse_authorization_configuration(*text);
    {
      std::lock_guard lock(state.mutex);
      if (config == state.last_loaded) return;
      state.last_loaded = config;
    }
    if (logger) logger->info("\"found new authorization config\"");
    rebuilt = state.build(config);
  } catch (const std::exception& error) {
    // kube keeps serving with the chain in use.
    if (logger) logger->error("\"reloading authorization config\" err=" + base::go_quote(error.what()));
    state.record("failure");
    return;
  }
  {
    std::lock_guard lock(state.mutex);
    state.current = std::move(rebuilt);
  }
  if (logger) logger->info("\"reloaded authz config\"");
  state.record("success");
}

// Polls the file while the authorizer lives (kube's runReload), after counting the start as a success.
asio::awaitable<void> watch(std::weak_ptr<ReloadingAuthorizer::State> weak, std::chrono::milliseconds interval) {
  if (auto state = weak.lock()) state->record("success");
  auto gone = [&weak] { return weak.expired(); };
  for (;;) {
    auto pausing = base::sleep_unless(interval, gone);
    const bool slept = co_await std::move(pausing);
    if (!slept) co_return;
    auto state = weak.lock();
    if (!state) co_return;
    check_file(*state);
  }
}

}  // namespace

std::shared_ptr<ReloadingAuthorizer> ReloadingAuthorizer::start(std::filesystem::path file, Build build,
                                                                asio::any_io_executor executor, base::Logger& logger,
                                                                std::chrono::milliseconds reload_interval,
                                                                ReloadMetrics metrics) {
  auto state = std::make_shared<State>();
  state->file = std::move(file);
  state->build = std::move(build);
  state->logger = &logger;
  state->id_hash = metrics::sha256_label(metrics.apiserver_id);
  state->metrics = std::move(metrics);
  std::optional<std::string> text = read_text(state->file);
  if (!text)
    throw AuthorizationConfigError("failed to read file path \"" + state->file.string() + "\": open " +
                                   state->file.string() + ": no such file or directory");
  state->last_loaded = parse_authorization_configuration(*text);
  state->current = state->build(state->last_loaded);
  state->last_read = std::move(*text);
  asio::co_spawn(executor, watch(state, reload_interval), asio::detached);
  return std::make_shared<ReloadingAuthorizer>(std::move(state));
}

std::shared_ptr<const Authorizer> ReloadingAuthorizer::current() const {
  std::lock_guard lock(state_->mutex);
  return state_->current;
}

asio::awaitable<Result> ReloadingAuthorizer::authorize_async(const Attributes& attributes) const {
  std::shared_ptr<const Authorizer> chain = current();  // kept alive across the wait, whatever a reload does
  auto deciding = chain->authorize_async(attributes);
  co_return co_await std::move(deciding);
}

}  // namespace kapi::authorization
