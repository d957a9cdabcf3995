#include "server/authentication/token_webhook.h"

#include "server/authentication/token_cache.h"

#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"

#include <boost/json.hpp>

#include <algorithm>
#include <stdexcept>

namespace kapi::authentication {
namespace {

namespace json = boost::json;
namespace fields = registry::fields;

// audiences.Intersect: those of `wanted` that `got` has, in `wanted`'s order.
Audiences webhook_audiences_intersect(const Audiences& wanted, const Audiences& got) {
  Audiences both;
  for (const auto& audience : wanted)
    if (std::find(got.begin(), got.end(), audience) != got.end()) both.push_back(audience);
  return both;
}

// A TokenReview as Go's encoding/json writes authenticationv1.TokenReview: empty metadata, the spec, an empty status.
std::string token_review(std::string_view version, std::string_view token, const Audiences& audiences) {
  json::object spec{{"token", token}};
  if (!audiences.empty()) {
    json::array list;
    for (const auto& audience : audiences) list.emplace_back(audience);
    spec["audiences"] = std::move(list);
  }
  json::object review{{"kind", "TokenReview"},
                      {"apiVersion", "authentication.k8s.io/" + std::string(version)},
                      {"metadata", json::object{{"creationTimestamp", nullptr}}},
                      {"spec", std::move(spec)},
                      {"status", json::object{{"user", json::object{}}}}};
  return json::serialize(review);
}

UserInfo user_of(const json::object& user) {
  UserInfo info;
  info.name = fields::string_at(user, "username");
  info.uid = fields::string_at(user, "uid");
  info.groups = fields::strings_at(user, "groups");
  for (const auto& [key, values] : fields::object_or_empty(user, "extra"))
    if (values.is_array()) {
      auto& list = info.extra[std::string(key)];
      for (const auto& value : values.as_array())
        if (value.is_string()) list.emplace_back(value.as_string());
    }
  return info;
}

}  // namespace

TokenWebhookAuthenticator::TokenWebhookAuthenticator(const TokenWebhookOptions& options, Audiences api_audiences,
                                                     base::Logger* logger)
    : version_(options.version), api_audiences_(std::move(api_audiences)), logger_(logger) {
  if (version_ != "v1" && version_ != "v1beta1")
    throw std::invalid_argument("unsupported authentication webhook version \"" + version_ +
                                "\", supported versions are \"v1\", \"v1beta1\"");
  webhook_ = std::make_unique<webhook::GenericWebhook>(webhook::load_kubeconfig(options.config_file),
                                                       options.retry_backoff, options.request_timeout);
}

asio::awaitable<Result> TokenWebhookAuthenticator::authenticate_token(std::string_view token,
                                                                      const Audiences& audiences) const {
  // kube checks audiences when the request is limited to some: a TokenReview's, or this server's API audiences.
  const Audiences& wanted = audiences.empty() ? api_audiences_ : audiences;
  const bool check_audiences = !wanted.empty();
  std::string failure;
  std::string answer;
  try {
    auto posting = webhook_->post(token_review(version_, token, wanted));
    answer = co_await std::move(posting);
  } catch (const webhook::CallError& error) {
    failure = error.what();
  }
  std::optional<json::object> review;
  if (failure.empty()) {
    review = registry::parse_json_object(answer);
    if (!review) failure = "couldn't decode the TokenReview the webhook answered";
  }
  if (!failure.empty()) {
    // An error here indicates bad configuration or an outage.
    if (logger_) logger_->error("Failed to make webhook authenticator request: " + failure);
    co_return Result::failed(std::move(failure));
  }
  const json::object& status = fields::object_or_empty(*review, "status");
  Audiences valid_for;
  if (check_audiences) {
    Audiences got = fields::strings_at(status, "audiences");
    valid_for = webhook_audiences_intersect(wanted, got.empty() ? api_audiences_ : got);
    if (valid_for.empty()) co_return Result::not_applicable();
  }
  if (!fields::bool_at(status, "authenticated")) {
    const std::string_view error = fields::string_at(status, "error");
    co_return error.empty() ? Result::not_applicable() : Result::failed(std::string(error));
  }
  Result result = Result::authenticated(user_of(fields::object_or_empty(status, "user")));
  result.audiences = std::move(valid_for);
  co_return result;
}

std::shared_ptr<const TokenAuthenticator> make_token_webhook(const TokenWebhookOptions& options,
                                                             Audiences api_audiences, base::Logger* logger,
                                                             metrics::AuthenticationFamilies* metrics) {
  auto webhook = std::make_shared<TokenWebhookAuthenticator>(options, std::move(api_audiences), logger);
  // newWebhookTokenAuthenticator: tokencache.New(webhook, false, ttl, ttl).
  const auto ttl = std::chrono::duration_cast<TokenCacheOptions::Clock::duration>(options.cache_ttl);
  TokenCacheOptions cache;
  cache.cache_errors = false;
  cache.success_ttl = cache.failure_ttl = ttl;
  cache.metrics = metrics;
  return std::make_shared<CachedTokenAuthenticator>(std::move(webhook), std::move(cache));
}

}  // namespace kapi::authentication
