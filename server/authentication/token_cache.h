#pragma once
// kube's token cache (k8s.io/apiserver/pkg/authentication/token/cache: cached_token_authenticator.go,
// cache_striped.go, cache_simple.go, stats.go), the one implementation behind both places kube-apiserver puts it
// (pkg/kubeapiserver/authenticator/config.go):
//   - around the union of every token authenticator: tokencache.New(union, true, 10s, 0), so a user found is
//     remembered for 10 s (a token revoked meanwhile still works until then) and a refusal is not remembered;
//   - around the token webhook: tokencache.New(webhook, false, ttl, ttl) with --authentication-token-webhook-cache-ttl,
//     so a user found and a plain refusal are both remembered, and an error (a failed call, status.error) never is.
//
// A result is keyed by an HMAC-SHA256, under a random key of the process, of the token and the audiences asked for,
// so the cache holds no token. Concurrent lookups of one key share one call of the inner authenticator (kube's
// singleflight): the call runs detached from the requests waiting on it, for at most 30 s, so a request that gives
// up (its client left, its deadline passed) ends only its own wait. Expired entries are dropped as new ones are
// stored (utilcache.Expiring), in 32 stripes by an FNV-1 hash of the key. Every lookup is counted in the
// authentication_token_cache_* metrics, whichever cache it went through.
#include "server/authentication/authenticator.h"
#include "server/metrics/authentication.h"

#include <chrono>
#include <functional>
#include <memory>

namespace kapi::authentication {

struct TokenCacheOptions {
  using Clock = std::chrono::steady_clock;
  // kube's cacheErrs: whether a lookup that failed with an error is remembered (as a refusal, for failure_ttl).
  bool cache_errors = false;
  // How long a user found, and a refusal, are remembered; zero: not at all (lookups are still shared).
  Clock::duration success_ttl{};
  Clock::duration failure_ttl{};
  metrics::AuthenticationFamilies* metrics = nullptr;
  // kube's sharedLookupTimeout: how long one shared call of the inner authenticator may take.
  Clock::duration shared_lookup_timeout = std::chrono::seconds(30);
  std::function<Clock::time_point()> now = [] { return Clock::now(); };  // when entries expire (tests move it)
};

class CachedTokenAuthenticator final : public TokenAuthenticator {
 public:
  CachedTokenAuthenticator(std::shared_ptr<const TokenAuthenticator> inner, TokenCacheOptions options);
  ~CachedTokenAuthenticator() override;
  asio::awaitable<Result> authenticate_token(std::string_view token, const Audiences& audiences) const override;

  struct State;

 private:
  std::shared_ptr<State> state_;  // shared with the lookups in flight, which may outlive this object
};

}  // namespace kapi::authentication
