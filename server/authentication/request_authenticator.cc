#include "server/authentication/request_authenticator.h"

#include "server/authentication/bearer_token.h"
#include "server/authentication/token_cache.h"
#include "server/authentication/token_file.h"
#include "server/authentication/token_union.h"
#include "server/authentication/x509.h"

#include <algorithm>
#include <stdexcept>

namespace kapi::authentication {
namespace {

// kube's WrapAudienceAgnosticToken: a token that names no audience (a token file's) is for the API audiences
// only, so a TokenReview for other audiences does not find its user.
class AudienceAgnosticToken final : public TokenAuthenticator {
 public:
  AudienceAgnosticToken(Audiences api_audiences, std::shared_ptr<const TokenAuthenticator> inner)
      : api_audiences_(std::move(api_audiences)), inner_(std::move(inner)) {}

  asio::awaitable<Result> authenticate_token(std::string_view token, const Audiences& audiences) const override {
    if (audiences.empty()) co_return co_await inner_->authenticate_token(token, audiences);
    Audiences valid_for;
    for (const auto& audience : api_audiences_)
      if (std::find(audiences.begin(), audiences.end(), audience) != audiences.end()) valid_for.push_back(audience);
    if (valid_for.empty()) co_return Result::not_applicable();
    Result result = co_await inner_->authenticate_token(token, audiences);
    if (result.outcome == Result::Outcome::Authenticated) result.audiences = std::move(valid_for);
    co_return result;
  }

 private:
  Audiences api_audiences_;
  std::shared_ptr<const TokenAuthenticator> inner_;
};

// kube's RequestHeaderAuthenticationOptions.Validate warnings: aggregated API servers expect the standard names.
void warn_about_nonstandard_headers(const RequestHeaderConfig& config, std::vector<std::string>* warnings) {
  if (!warnings) return;
  auto check = [&](const std::vector<std::string>& names, std::string_view standard, std::string_view flag,
                   std::string_view what) {
    if (names.empty() || std::any_of(names.begin(), names.end(), [&](const auto& n) { return http::iequals(n, standard); }))
      return;
    warnings->push_back("--" + std::string(flag) + " is set without specifying the standard " + std::string(standard) +
                        " " + std::string(what) + " - API aggregation will not work");
  };
  check(config.username_headers, "X-Remote-User", "requestheader-username-headers", "header");
  check(config.uid_headers, "X-Remote-Uid", "requestheader-uid-headers", "header");
  check(config.group_headers, "X-Remote-Group", "requestheader-group-headers", "header");
  check(config.extra_header_prefixes, "X-Remote-Extra-", "requestheader-extra-headers-prefix", "header prefix");
}

}  // namespace

std::shared_ptr<const RequestAuthenticator> RequestAuthenticator::build(const AuthenticationOptions& options,
                                                                         std::vector<std::string>* warnings) {
  std::vector<std::shared_ptr<const Authenticator>> authenticators;
  // The front proxy first, in kube-apiserver's order.
  if (!options.request_header_ca_file.empty()) {
    warn_about_nonstandard_headers(options.request_header, warnings);
    authenticators.push_back(std::make_shared<RequestHeaderAuthenticator>(
        CertificateVerifier::from_file(options.request_header_ca_file), options.request_header));
  }
  authenticators.push_back(std::make_shared<X509Authenticator>());
  std::vector<std::shared_ptr<const TokenAuthenticator>> tokens;
  if (!options.token_auth_file.empty())
    tokens.push_back(std::make_shared<AudienceAgnosticToken>(
        options.api_audiences,
        std::make_shared<TokenFileAuthenticator>(TokenFileAuthenticator::read(options.token_auth_file, warnings))));
  if (!options.service_account_key_files.empty()) {
    ServiceAccountTokenOptions service_accounts;
    service_accounts.issuers = options.service_account_issuers;
    for (const auto& file : options.service_account_key_files)
      for (auto& key : jwt::read_public_keys(file)) service_accounts.keys.push_back(std::move(key));
    service_accounts.api_audiences = options.api_audiences;
    service_accounts.objects = options.service_account_objects;
    tokens.push_back(std::make_shared<ServiceAccountTokenAuthenticator>(std::move(service_accounts)));
  }
  bool anonymous = options.anonymous;
  std::vector<std::string> anonymous_paths;
  if (options.oidc || !options.authentication_config_file.empty()) {
    if (!options.logger || !options.executor) throw std::logic_error("JWT authenticators need an executor and a logger");
    auto jwt = JwtAuthenticators::start(options.oidc, options.authentication_config_file, options.service_account_issuers,
                                        options.executor, *options.logger, options.jwt_timing,
                                        {options.metrics, options.apiserver_id});
    if (const auto& file_anonymous = jwt->anonymous()) {
      if (options.anonymous_flag_given)
        throw AuthenticationConfigError("anonymous: Forbidden: --anonymous-auth flag cannot be set when anonymous field "
                                        "is configured in authentication configuration file");
      anonymous = file_anonymous->enabled;
      anonymous_paths = file_anonymous->condition_paths;
    }
    // After the service account tokens, as kube-apiserver orders its token authenticators; a JWT names its own
    // audiences, but a TokenReview asking for others than the API's is not for it (WrapAudienceAgnosticToken).
    tokens.push_back(std::make_shared<AudienceAgnosticToken>(options.api_audiences, std::move(jwt)));
  }
  if (!options.token_webhook.config_file.empty())
    tokens.push_back(make_token_webhook(options.token_webhook, options.api_audiences, options.logger, options.metrics));
  std::shared_ptr<const TokenAuthenticator> token;
  if (!tokens.empty()) {
    token = tokens.size() == 1 ? tokens.front() : std::make_shared<TokenUnion>(std::move(tokens));
    if (options.token_success_cache_ttl.count() > 0 || options.token_failure_cache_ttl.count() > 0) {
      TokenCacheOptions cache;
      cache.cache_errors = true;
      cache.success_ttl = std::chrono::duration_cast<TokenCacheOptions::Clock::duration>(options.token_success_cache_ttl);
      cache.failure_ttl = std::chrono::duration_cast<TokenCacheOptions::Clock::duration>(options.token_failure_cache_ttl);
      cache.metrics = options.metrics;
      token = std::make_shared<CachedTokenAuthenticator>(std::move(token), std::move(cache));
    }
    authenticators.push_back(std::make_shared<BearerTokenAuthenticator>(token));
  }
  return std::make_shared<RequestAuthenticator>(std::move(authenticators), std::move(token), anonymous,
                                                std::move(anonymous_paths));
}

asio::awaitable<Result> RequestAuthenticator::review_token(std::string_view token, const Audiences& audiences) const {
  if (!token_) co_return Result::not_applicable();
  auto reviewing = token_->authenticate_token(token, audiences);
  co_return co_await std::move(reviewing);
}

asio::awaitable<Result> RequestAuthenticator::authenticate(http::Request& request) const {
  std::string errors;
  for (const auto& authenticator : authenticators_) {
    Result result = co_await authenticator->authenticate(request);
    if (result.outcome == Result::Outcome::Authenticated) {
      // kube's AuthenticatedGroupAdder: unless the user already says whether it is authenticated.
      auto& groups = result.user.groups;
      if (std::find(groups.begin(), groups.end(), "system:authenticated") == groups.end() &&
          std::find(groups.begin(), groups.end(), "system:unauthenticated") == groups.end())
        groups.push_back("system:authenticated");
      co_return result;
    }
    if (result.outcome == Result::Outcome::Failed) errors += (errors.empty() ? "" : ", ") + result.error;
  }
  if (!errors.empty()) co_return Result::failed(std::move(errors));
  if (!anonymous_) co_return Result::not_applicable();
  // kube's anonymous authenticator with conditions: only the exact paths named.
  if (!anonymous_paths_.empty() &&
      std::find(anonymous_paths_.begin(), anonymous_paths_.end(), request.path) == anonymous_paths_.end())
    co_return Result::not_applicable();
  UserInfo anonymous;
  anonymous.name = "system:anonymous";
  anonymous.groups = {"system:unauthenticated"};
  co_return Result::authenticated(std::move(anonymous));
}

}  // namespace kapi::authentication
