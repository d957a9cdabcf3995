#pragma once
// The request authenticator kube-apiserver builds from its flags (pkg/kubeapiserver/authenticator/config.go):
// the front proxy's request headers, client certificates and bearer tokens tried in order, the first user found wins.
// The token authenticators are one union behind kube's token cache (token_cache.h): a user found is remembered for
// 10 s, so a token revoked meanwhile (its service account deleted) still works until then, as in kube. Then, with
// --anonymous-auth, a request that carried no credential at all is system:anonymous. A credential that fails is
// a 401 even when anonymous requests are allowed (kube's union.NewFailOnError). Every authenticated user is in
// system:authenticated (AuthenticatedGroupAdder).
#include "server/authentication/authenticator.h"
#include "server/authentication/jwt_authenticator.h"
#include "server/authentication/request_header.h"
#include "server/authentication/service_account.h"
#include "server/authentication/token_webhook.h"
#include "server/metrics/authentication.h"

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace kapi::authentication {

struct AuthenticationOptions {
  bool anonymous = true;                   // --anonymous-auth
  bool anonymous_flag_given = false;       // kube refuses --anonymous-auth with the config file's `anonymous`
  // Request-header authentication, on when --requestheader-client-ca-file is given (the --requestheader-* flags).
  std::filesystem::path request_header_ca_file;
  RequestHeaderConfig request_header;
  std::filesystem::path token_auth_file;  // --token-auth-file
  // Service account tokens, checked when there are keys: --service-account-issuer, --service-account-key-file,
  // --api-audiences (the issuers when not given), and where the objects tokens name are read.
  std::vector<std::string> service_account_issuers;
  std::vector<std::filesystem::path> service_account_key_files;
  Audiences api_audiences;
  ObjectGetter service_account_objects;
  // Webhook token authentication, on when its config file is given (--authentication-token-webhook-*); tried
  // after every other token authenticator, as in kube. Its failures are logged to `logger`.
  TokenWebhookOptions token_webhook;
  base::Logger* logger = nullptr;
  // JWT authenticators: the --oidc-* flags' issuer, or those of --authentication-config (reloaded when it
  // changes), tried before the webhook as in kube. Their keys are fetched on `executor`; failures go to `logger`.
  std::optional<JwtAuthenticatorConfig> oidc;
  std::filesystem::path authentication_config_file;
  asio::any_io_executor executor;
  JwtTiming jwt_timing;
  // kube's TokenSuccessCacheTTL and TokenFailureCacheTTL (no flags): how long the union of the token authenticators
  // remembers a user found and a refusal; both zero: no cache.
  std::chrono::nanoseconds token_success_cache_ttl = std::chrono::seconds(10);
  std::chrono::nanoseconds token_failure_cache_ttl{0};
  // Where the token caches, the JWT authenticators and the config file's reloads are counted (may be null), and the
  // server's identity those reloads are labelled with (kube's APIServerID, hashed).
  metrics::AuthenticationFamilies* metrics = nullptr;
  std::string apiserver_id;
};

class RequestAuthenticator {
 public:
  // Reads what the options name (throws TokenFileError for a bad token file, std::runtime_error for an unreadable
  // CA file); `warnings` gets what kube logs.
  static std::shared_ptr<const RequestAuthenticator> build(const AuthenticationOptions& options,
                                                            std::vector<std::string>* warnings = nullptr);
  // `anonymous_paths`: when not empty, anonymous requests are allowed on these paths only (the configuration
  // file's anonymous.conditions).
  // `token`: the token authenticator TokenReviews ask (the one behind the bearer token authenticator), or null.
  RequestAuthenticator(std::vector<std::shared_ptr<const Authenticator>> authenticators,
                       std::shared_ptr<const TokenAuthenticator> token, bool anonymous,
                       std::vector<std::string> anonymous_paths = {})
      : authenticators_(std::move(authenticators)), token_(std::move(token)), anonymous_(anonymous),
        anonymous_paths_(std::move(anonymous_paths)) {}

  // The user, or Failed (answer 401) — NotApplicable only when anonymous requests are not allowed.
  asio::awaitable<Result> authenticate(http::Request& request) const;

  // What a TokenReview asks: the cached union of the token authenticators, as a request's bearer token; Failed
  // carries the reasons, NotApplicable when no authenticator knows the token.
  asio::awaitable<Result> review_token(std::string_view token, const Audiences& audiences) const;

 private:
  std::vector<std::shared_ptr<const Authenticator>> authenticators_;
  std::shared_ptr<const TokenAuthenticator> token_;
  bool anonymous_;
  std::vector<std::string> anonymous_paths_;
};

}  // namespace kapi::authentication
