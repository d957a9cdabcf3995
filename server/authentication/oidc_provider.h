#pragma once
// go-oidc's Provider and IDTokenVerifier as kube's JWT authenticator uses them
// (k8s.io/apiserver/plugin/pkg/authenticator/token/oidc/oidc.go, github.com/coreos/go-oidc v2.2.1): one issuer's
// discovery document (<issuer>/.well-known/openid-configuration, or the configured discovery URL) and its jwks_uri,
// fetched over HTTPS with the configured CA on the reactor, never blocking it; then tokens verified as go-oidc
// verifies them (signing algorithm, issuer, audiences, expiry, not-before, signature against the published keys)
// with kube's audience check for several audiences.
//
// As kube, the discovery is tried at once and every 10 s until it works; until then the provider is not ready. A
// token signed with a key not yet known refetches the key set (one fetch at a time, the others waiting for it), as
// go-oidc's remote key set does; kapi also refetches every 5 minutes, so that removed keys stop verifying.
//
// A JWT authenticator has one for its issuer; its resolver of distributed claims starts one for each issuer that
// signs the claims it fetches (claim_resolver.h).
#include "base/log.h"
#include "server/http/headers.h"
#include "server/proxy/backend.h"
#include "server/proxy/backend_client.h"

#include <asio/any_io_executor.hpp>
#include <asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kapi::authentication {

struct JwtTiming {
  std::chrono::milliseconds discovery_retry{10'000};       // kube: wait.PollImmediateUntil(10s, ...)
  std::chrono::milliseconds key_refresh{300'000};          // (kapi) periodic refetch of the key set
  std::chrono::milliseconds fetch_timeout{30'000};         // kube's http.Client{Timeout: 30s}
  std::chrono::milliseconds config_poll{1'000};            // how often the config file is looked at
  std::chrono::milliseconds reload_ready_timeout{60'000};  // how long new issuers may take to become ready
};

struct OidcProviderConfig {
  std::string issuer;         // the "iss" it verifies, and whose discovery document it reads
  std::string discovery_url;  // read instead of <issuer>/.well-known/openid-configuration when set
  // kube's audiences set: one is go-oidc's ClientID check; several are checked by kube (any of them will do).
  std::vector<std::string> audiences;
  std::vector<std::string> signing_algorithms;
  // What a failed discovery is logged as, before the reason.
  std::string discovery_failure_log = "oidc authenticator: initializing plugin: ";
};

// A GET through the authenticator's HTTP client (its CA, kube's 30 s client timeout, at most 1 MiB read): the
// response whatever its status. Throws std::runtime_error with Go's wording for a URL it cannot fetch.
asio::awaitable<proxy::BackendResponse> oidc_get(std::string url, http::Headers headers,
                                                 const proxy::LazyTlsContext& tls, std::chrono::milliseconds timeout);

class OidcProvider {
 public:
  // Starts the discovery on `executor`; the provider stops fetching once destroyed.
  static std::shared_ptr<OidcProvider> start(OidcProviderConfig config, proxy::LazyTlsContext tls,
                                             asio::any_io_executor executor, base::Logger& logger, JwtTiming timing);
  ~OidcProvider();

  const std::string& issuer() const;
  // Whether the discovery document was read (kube's verifier set): until then nothing verifies.
  bool ready() const;
  // The verified claims of `token`, or std::nullopt with go-oidc's (or kube's audience) error in `error`.
  asio::awaitable<std::optional<boost::json::object>> verify(std::string token, std::string& error) const;

  struct State;
  explicit OidcProvider(std::shared_ptr<State> state) : state_(std::move(state)) {}  // made by start()

 private:
  std::shared_ptr<State> state_;  // shared with the background fetches, which end when it is stopped
};

}  // namespace kapi::authentication
