#pragma once
// kube's JWT authenticator (k8s.io/apiserver/plugin/pkg/authenticator/token/oidc) for one issuer: tokens whose
// unverified "iss" is the issuer's are verified as go-oidc's IDTokenVerifier verifies them (signing algorithm,
// issuer, audiences, expiry, not-before, signature against the issuer's published keys), then mapped to a user by
// the ClaimMapper. A token from any other issuer is not this authenticator's (NotApplicable), so the others run.
//
// The issuer's keys come from its discovery document (<issuer>/.well-known/openid-configuration, or discoveryURL)
// and its jwks_uri, fetched over HTTPS with the configured CA on the reactor, never blocking it. As kube, the
// discovery is tried at once and every 10 s until it works; until then tokens of this issuer fail. A token signed
// with a key not yet known refetches the key set (one fetch at a time, the others waiting for it), as go-oidc's
// remote key set does; kapi also refetches every 5 minutes, so that removed keys stop verifying.
//
// JwtAuthenticators holds the authenticators of the --oidc-* flags or the --authentication-config file, and
// reloads that file when it changes (kube watches it): a new file that does not load, does not validate or whose
// issuers do not become ready keeps the old authenticators, and is logged.
#include "base/log.h"
#include "server/authentication/authentication_config.h"
#include "server/authentication/authenticator.h"
#include "server/authentication/claim_mapper.h"

#include <asio/any_io_executor.hpp>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>

namespace kapi::authentication {

struct JwtTiming {
  std::chrono::milliseconds discovery_retry{10'000};       // kube: wait.PollImmediateUntil(10s, ...)
  std::chrono::milliseconds key_refresh{300'000};          // (kapi) periodic refetch of the key set
  std::chrono::milliseconds fetch_timeout{30'000};         // kube's http.Client{Timeout: 30s}
  std::chrono::milliseconds config_poll{1'000};            // how often the config file is looked at
  std::chrono::milliseconds reload_ready_timeout{60'000};  // how long new issuers may take to become ready
};

class JwtAuthenticator final : public TokenAuthenticator {
 public:
  // Throws AuthenticationConfigError (kube's wording) for an invalid configuration or signing algorithm.
  // Starts fetching the issuer's keys on `executor`.
  static std::shared_ptr<JwtAuthenticator> start(JwtAuthenticatorConfig config, asio::any_io_executor executor,
                                                 base::Logger& logger, JwtTiming timing = {});
  ~JwtAuthenticator() override;

  asio::awaitable<Result> authenticate_token(std::string_view token, const Audiences& audiences) const override;
  const std::string& issuer() const;
  // Whether the issuer's discovery document was read (kube's verifier set): until then its tokens fail.
  bool ready() const;

  struct State;
  explicit JwtAuthenticator(std::shared_ptr<State> state) : state_(std::move(state)) {}

 private:
  std::shared_ptr<State> state_;  // shared with the background fetches, which end when it is stopped
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
                                                  JwtTiming timing = {});
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
                                                const JwtTiming& timing);

}  // namespace kapi::authentication
