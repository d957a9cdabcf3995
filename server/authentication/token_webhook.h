#pragma once
// Webhook token authentication (k8s.io/apiserver/plugin/pkg/authenticator/token/webhook), behind kube's token cache
// (k8s.io/apiserver/pkg/authentication/token/cache, token_cache.h): --authentication-token-webhook-config-file names a
// kubeconfig-format file, a TokenReview (authentication.k8s.io v1, or v1beta1 with
// --authentication-token-webhook-version) is POSTed to its server, and status.authenticated, user, audiences and
// error are read as kube reads them. Answers are cached by a hash of the audiences and the token for
// --authentication-token-webhook-cache-ttl (2m), a user found and a token refused alike; a failed call is not
// cached and leaves the token unauthenticated (401), logged as kube logs it.
#include "base/log.h"
#include "server/authentication/authenticator.h"
#include "server/metrics/authentication.h"
#include "server/webhook/generic_webhook.h"

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

namespace kapi::authentication {

struct TokenWebhookOptions {
  std::filesystem::path config_file;               // --authentication-token-webhook-config-file
  std::string version = "v1";                      // --authentication-token-webhook-version
  std::chrono::nanoseconds cache_ttl = std::chrono::minutes(2);  // --authentication-token-webhook-cache-ttl
  webhook::RetryBackoff retry_backoff;             // kube's DefaultAuthWebhookRetryBackoff
  std::chrono::milliseconds request_timeout = webhook::GenericWebhook::kDefaultRequestTimeout;
};

// The webhook itself, uncached. `api_audiences`: the audiences a token is checked against for a request to this
// server (kube's implicit audiences).
class TokenWebhookAuthenticator final : public TokenAuthenticator {
 public:
  // Throws std::invalid_argument for an unsupported version, webhook::KubeconfigError for an unusable file.
  TokenWebhookAuthenticator(const TokenWebhookOptions& options, Audiences api_audiences, base::Logger* logger);
  asio::awaitable<Result> authenticate_token(std::string_view token, const Audiences& audiences) const override;

 private:
  std::unique_ptr<webhook::GenericWebhook> webhook_;
  std::string version_;
  Audiences api_audiences_;
  base::Logger* logger_;
};

// The webhook as kube-apiserver builds it from --authentication-token-webhook-*: behind a token cache
// (token_cache.h) that keeps users found and plain refusals for the TTL, errors never (a TTL of 0 keeps nothing,
// and concurrent lookups of one token still share one call). `metrics` may be null.
std::shared_ptr<const TokenAuthenticator> make_token_webhook(const TokenWebhookOptions& options,
                                                             Audiences api_audiences, base::Logger* logger,
                                                             metrics::AuthenticationFamilies* metrics);

}  // namespace kapi::authentication
