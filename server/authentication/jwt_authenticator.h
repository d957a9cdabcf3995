#pragma once
// kube's JWT authenticator (k8s.io/apiserver/plugin/pkg/authenticator/token/oidc) for one issuer: tokens whose
// unverified "iss" is the issuer's are verified by the issuer's OidcProvider (oidc_provider.h: discovery, keys,
// go-oidc's checks), their distributed groups claim resolved (claim_resolver.h), then mapped to a user by the
// ClaimMapper. A token from any other issuer is not this authenticator's (NotApplicable), so the others run. Each
// token it decides is timed in apiserver_authentication_jwt_authenticator_latency_seconds, as kube's
// instrumentedAuthenticator does.
//
// JwtAuthenticators holds the authenticators of the --oidc-* flags or the --authentication-config file, and
// reloads that file when it changes (kube watches it): a new file that does not load, does not validate or whose
// issuers do not become ready keeps the old authenticators, and is logged; every reload that changes or fails is
// counted in apiserver_authentication_config_controller_automatic_reload*.
#include "base/log.h"
#include "server/authentication/authentication_config.h"
#include "server/authentication/authenticator.h"
#include "server/authentication/claim_mapper.h"
#include "server/authentication/oidc_provider.h"
#include "server/metrics/authentication.h"

#include <asio/any_io_executor.hpp>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>

namespace kapi::authentication {

// Where the JWT authenticators are counted (kube's oidc/metrics.go and authenticationconfig/metrics): each token an
// issuer's authenticator decides (apiserver_authentication_jwt_authenticator_latency_seconds) and each reload of the
// config file, labelled with the hash of `apiserver_id`. No families: nothing is counted.
struct JwtMetrics {
  metrics::AuthenticationFamilies* families = nullptr;
  std::string apiserver_id;
};

class JwtAuthenticator final : public TokenAuthenticator {
 public:
  // Throws AuthenticationConfigError (kube's wording) for an invalid configuration or signing algorithm.
  // Starts fetching the issuer's keys on `executor`.
  static std::shared_ptr<JwtAuthenticator> start(JwtAuthenticatorConfig config, asio::any_io_executor executor,
                                                 base::Logger& logger, JwtTiming timing = {},
                                                 metrics::AuthenticationFamilies* metrics = nullptr);
  ~JwtAuthenticator() override;

  asio::awaitable<Result> authenticate_token(std::string_view token, const Audiences& audiences) const override;
  const std::string& issuer() const;
  // Whether the issuer's discovery document was read (kube's verifier set): until then its tokens fail.
  bool ready() const;

  struct State;
  explicit JwtAuthenticator(std::shared_ptr<State> state) : state_(std::move(state)) {}

 private:
  // What kube's jwtAuthenticator.AuthenticateToken does once the issuer matched.
  asio::awaitable<Result> verify_and_map(std::string token) const;

  std::shared_ptr<State> state_;
};

class JwtAuthenticators final : public TokenAuthenticator {
 public:
  using Set = std::vector<std::shared_ptr<const JwtAuthenticator>>;
  // The flags' authenticator (when `from_flags` is set) or those of `config_file`; throws
  // AuthenticationConfigError for what kube-apiserver refuses at start. `disallowed_issuers`: the service account
  // issuers.
  static std::shared_ptr<JwtAuthenticators> start(std::optional<JwtAuthenticatorConfig> from_flags,
                                                  std::filesystem::path config_file,
                                                  std::vector<std::string> disallowed_issuers,
                                                  asio::any_io_executor executor, base::Logger& logger,
                                                  JwtTiming timing = {}, JwtMetrics metrics = {});
  ~JwtAuthenticators() override;

  asio::awaitable<Result> authenticate_token(std::string_view token, const Audiences& audiences) const override;
  Set current() const;
  // The file's `anonymous` at start; a reload that changes it is refused, as kube refuses it.
  const std::optional<AnonymousConfig>& anonymous() const;

  struct Shared;
  explicit JwtAuthenticators(std::shared_ptr<Shared> shared) : shared_(std::move(shared)) {}

 private:
  std::shared_ptr<Shared> shared_;
};

// kube's loadAuthenticationConfig and validation, then the authenticators (not yet ready).
struct LoadedJwtAuthenticators {
  JwtAuthenticators::Set set;
  std::optional<AnonymousConfig> anonymous;
  std::string contents;
};
LoadedJwtAuthenticators load_jwt_authenticators(const std::filesystem::path& file,
                                                const std::vector<std::string>& disallowed_issuers,
                                                asio::any_io_executor executor, base::Logger& logger,
                                                const JwtTiming& timing,
                                                metrics::AuthenticationFamilies* metrics = nullptr);

}  // namespace kapi::authentication
