#include "server/authorization/configured_authorizer.h"

#include "base/sleep.h"
#include "server/authorization/modes.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>

#include <fstream>
#include <sstream>

namespace kapi::authorization {

std::shared_ptr<const Authorizer> build_configured_authorizer(const AuthorizationConfiguration& config,
                                                              std::shared_ptr<const Authorizer> rbac,
                                                              std::shared_ptr<const Authorizer> node,
                                                              base::Logger* logger) {
  std::vector<std::shared_ptr<const Authorizer>> authorizers;
  authorizers.push_back(std::make_shared<PrivilegedGroupsAuthorizer>(std::vector<std::string>{"system:masters"}));
  for (const AuthorizerConfiguration& authorizer : config.authorizers) {
    if (authorizer.type == "AlwaysAllow") {
      authorizers.push_back(std::make_shared<AlwaysAllowAuthorizer>());
    } else if (authorizer.type == "AlwaysDeny") {
      authorizers.push_back(std::make_shared<AlwaysDenyAuthorizer>());
    } else if (authorizer.type == "RBAC" && rbac) {
      authorizers.push_back(rbac);
    } else if (authorizer.type == "Node" && node) {
      authorizers.push_back(node);
    } else if (authorizer.type == "Webhook") {
      try {
        authorizers.push_back(std::make_shared<WebhookAuthorizer>(webhook_options(authorizer), logger));
      } catch (const std::invalid_argument& error) {
        throw AuthorizationConfigError(error.what());
      } catch (const webhook::KubeconfigError& error) {
        throw AuthorizationConfigError(error.what());
      }
    } else {
      throw AuthorizationConfigError("authorizer type \"" + authorizer.type + "\" is not implemented by kapi");
    }
  }
  return std::make_shared<UnionAuthorizer>(std::move(authorizers));
}

struct ReloadingAuthorizer::State {
  std::filesystem::path file;
  Build build;
  base::Logger* logger = nullptr;
  mutable std::mutex mutex;
  std::shared_ptr<const Authorizer> current;
  std::string content;  // what `current` was built from
};

namespace {

std::optional<std::string> read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Polls the file while the authorizer lives; a changed content is loaded, validated and built before it replaces
// the chain in use.
asio::awaitable<void> watch(std::weak_ptr<ReloadingAuthorizer::State> weak, std::chrono::milliseconds interval) {
  auto gone = [&weak] { return weak.expired(); };
  for (;;) {
    auto pausing = base::sleep_unless(interval, gone);
    const bool slept = co_await std::move(pausing);
    if (!slept) co_return;
    auto state = weak.lock();
    if (!state) co_return;
    std::optional<std::string> text = read_text(state->file);
    {
      std::lock_guard lock(state->mutex);
      if (!text || *text == state->content) continue;
    }
    try {
      std::shared_ptr<const Authorizer> rebuilt = state->build(parse_authorization_configuration(*text));
      std::lock_guard lock(state->mutex);
      state->current = std::move(rebuilt);
      state->content = std::move(*text);
      if (state->logger) state->logger->info("reloaded authorization configuration from " + state->file.string());
    } catch (const std::exception& error) {
      // kube keeps serving with the last good configuration.
      if (state->logger)
        state->logger->error("error reloading authorization config " + state->file.string() + ": " + error.what());
      std::lock_guard lock(state->mutex);
      state->content = std::move(*text);  // reported once per change
    }
  }
}

}  // namespace

std::shared_ptr<ReloadingAuthorizer> ReloadingAuthorizer::start(std::filesystem::path file, Build build,
                                                                asio::any_io_executor executor, base::Logger& logger,
                                                                std::chrono::milliseconds reload_interval) {
  auto state = std::make_shared<State>();
  state->file = std::move(file);
  state->build = std::move(build);
  state->logger = &logger;
  std::optional<std::string> text = read_text(state->file);
  if (!text)
    throw AuthorizationConfigError("failed to read file path \"" + state->file.string() + "\": open " +
                                   state->file.string() + ": no such file or directory");
  state->current = state->build(parse_authorization_configuration(*text));
  state->content = std::move(*text);
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
