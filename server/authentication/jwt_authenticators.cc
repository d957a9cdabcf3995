// JwtAuthenticators (jwt_authenticator.h): the union of the JWT authenticators, and the reload of
// --authentication-config as kube-apiserver 1.32 reloads it (pkg/kubeapiserver/authenticator/config.go): a changed
// file is loaded, validated and its authenticators started; they replace the old ones once every issuer is ready.
#include "server/authentication/jwt_authenticator.h"

#include "base/go_quote.h"
#include "base/sleep.h"
#include "server/authentication/token_union.h"
#include "server/pki/pem_io.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>

#include <algorithm>

namespace kapi::authentication {
namespace {

using namespace std::chrono_literals;

// klog.ErrorS's line: the message quoted, then err="...".
std::string structured_error(std::string_view message, std::string_view error) {
  return "\"" + std::string(message) + "\" err=" + base::go_quote(error);
}

bool all_ready(const JwtAuthenticators::Set& set) {
  return std::all_of(set.begin(), set.end(), [](const auto& authenticator) { return authenticator->ready(); });
}

}  // namespace

LoadedJwtAuthenticators load_jwt_authenticators(const std::filesystem::path& file,
                                                const std::vector<std::string>& disallowed_issuers,
                                                asio::any_io_executor executor, base::Logger& logger,
                                                const JwtTiming& timing, metrics::AuthenticationFamilies* metrics) {
  LoadedJwtAuthenticators loaded;
  AuthenticationConfiguration config;
  try {
    loaded.contents = pki::read_file(file);
    config = parse_authentication_configuration(loaded.contents);
  } catch (const std::exception& error) {
    throw AuthenticationConfigError("failed to load authentication configuration from file " +
                                    base::go_quote(file.string()) + ": " + error.what());
  }
  const validation::ErrorList errors = validate_authentication_configuration(config, disallowed_issuers);
  if (!errors.empty()) throw AuthenticationConfigError("invalid authentication configuration: " + aggregate(errors));
  for (const auto& jwt : config.jwt)
    loaded.set.push_back(JwtAuthenticator::start(jwt, executor, logger, timing, metrics));
  loaded.anonymous = config.anonymous;
  return loaded;
}

struct JwtAuthenticators::Shared {
  mutable std::mutex mutex;
  Set set;
  bool stopped = false;
  std::filesystem::path file;
  std::vector<std::string> disallowed_issuers;
  asio::any_io_executor executor;
  base::Logger* logger = nullptr;
  JwtTiming timing;
  JwtMetrics metrics;
  std::optional<AnonymousConfig> anonymous;  // the file's at start

  bool is_stopped() const {
    std::lock_guard lock(mutex);
    return stopped;
  }
};

namespace {

// Looks at the file every config_poll (kube watches it, and polls every minute) and applies a change as kube's
// reload does: a file that does not decode or validate is logged and not tried again until it changes; new
// authenticators replace the old ones only once their issuers are ready, else the same file is tried again.
asio::awaitable<void> watch_config(std::shared_ptr<JwtAuthenticators::Shared> shared, std::string applied) {
  auto stopped = [&shared] { return shared->is_stopped(); };
  base::Logger& logger = *shared->logger;
  metrics::AuthenticationFamilies* families = shared->metrics.families;
  const std::string id_hash = metrics::sha256_label(shared->metrics.apiserver_id);
  // authenticationconfigmetrics.RecordAuthenticationConfigAutomaticReload{Success,Failure}.
  auto record = [&](const char* status) {
    if (!families) return;
    families->config_reloads.inc({id_hash, status});
    families->config_reload_timestamp.set({id_hash, status}, metrics::unix_now());
  };
  std::string tracked = std::move(applied);
  for (;;) {
    auto pausing = base::sleep_unless(shared->timing.config_poll, stopped, 100ms);
    const bool slept = co_await std::move(pausing);
    if (!slept) co_return;
    std::string data;
    try {
      data = pki::read_file(shared->file);
    } catch (const std::exception& error) {
      logger.error(structured_error("failed to read authentication config file", error.what()));
      record("failure");
      continue;  // this may resolve itself: try again
    }
    if (data == tracked) continue;
    AuthenticationConfiguration config;
    try {
      config = parse_authentication_configuration(data);
    } catch (const std::exception& error) {
      logger.error(structured_error("failed to load authentication config", error.what()));
      record("failure");
      tracked = std::move(data);  // never going to load
      continue;
    }
    validation::ErrorList errors = validate_authentication_configuration(config, shared->disallowed_issuers);
    if (config.anonymous != shared->anonymous)
      errors.push_back(validation::forbidden(validation::Path("anonymous"), "changed from initial configuration file"));
    if (!errors.empty()) {
      logger.error(structured_error("failed to validate authentication config", aggregate(errors)));
      record("failure");
      tracked = std::move(data);  // never going to be valid
      continue;
    }
    JwtAuthenticators::Set next;
    for (const auto& jwt : config.jwt)
      next.push_back(JwtAuthenticator::start(jwt, shared->executor, logger, shared->timing, families));
    const auto give_up = std::chrono::steady_clock::now() + shared->timing.reload_ready_timeout;
    while (!all_ready(next) && std::chrono::steady_clock::now() < give_up && !stopped()) {
      auto waiting = base::sleep_for(50ms);
      co_await std::move(waiting);
    }
    if (!all_ready(next)) {
      logger.error(structured_error("failed to update authentication config",
                                    "the new configuration's issuers did not become ready"));
      record("failure");
      continue;
    }
    {
      std::lock_guard lock(shared->mutex);
      shared->set.swap(next);
    }
    tracked = std::move(data);
    logger.info("\"reloaded authentication config\"");
    record("success");
  }
}

}  // namespace

std::shared_ptr<JwtAuthenticators> JwtAuthenticators::start(std::optional<JwtAuthenticatorConfig> from_flags,
                                                            std::filesystem::path config_file,
                                                            std::vector<std::string> disallowed_issuers,
                                                            asio::any_io_executor executor, base::Logger& logger,
                                                            JwtTiming timing, JwtMetrics metrics) {
  auto shared = std::make_shared<Shared>();
  shared->file = std::move(config_file);
  shared->disallowed_issuers = std::move(disallowed_issuers);
  shared->executor = executor;
  shared->logger = &logger;
  shared->timing = timing;
  shared->metrics = std::move(metrics);
  if (from_flags) {
    AuthenticationConfiguration config{{*from_flags}};
    const validation::ErrorList errors = validate_authentication_configuration(config, shared->disallowed_issuers);
    if (!errors.empty()) throw AuthenticationConfigError("invalid authentication configuration: " + aggregate(errors));
    shared->set.push_back(
        JwtAuthenticator::start(std::move(*from_flags), executor, logger, timing, shared->metrics.families));
  }
  if (!shared->file.empty()) {
    LoadedJwtAuthenticators loaded = load_jwt_authenticators(shared->file, shared->disallowed_issuers, executor, logger,
                                                             timing, shared->metrics.families);
    shared->set = std::move(loaded.set);
    shared->anonymous = std::move(loaded.anonymous);
    asio::co_spawn(executor, watch_config(shared, std::move(loaded.contents)), asio::detached);
  }
  return std::make_shared<JwtAuthenticators>(std::move(shared));
}

JwtAuthenticators::~JwtAuthenticators() {
  std::lock_guard lock(shared_->mutex);
  shared_->stopped = true;
}

const std::optional<AnonymousConfig>& JwtAuthenticators::anonymous() const { return shared_->anonymous; }

JwtAuthenticators::Set JwtAuthenticators::current() const {
  std::lock_guard lock(shared_->mutex);
  return shared_->set;
}

// kube's union of the JWT authenticators: the first user found wins, every failure is reported.
asio::awaitable<Result> JwtAuthenticators::authenticate_token(std::string_view token, const Audiences& audiences) const {
  const Set set = current();
  const std::vector<std::shared_ptr<const TokenAuthenticator>> authenticators(set.begin(), set.end());
  auto authenticating = authenticate_with_any(authenticators, token, audiences);
  co_return co_await std::move(authenticating);
}

}  // namespace kapi::authentication
