#include "server/authorization/webhook_authorizer.h"

#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"
#include "server/selectors/field_selector.h"
#include "server/selectors/label_selector.h"

#include <boost/json.hpp>

#include <stdexcept>

namespace kapi::authorization {
namespace {

namespace json = boost::json;
namespace fields = registry::fields;

// The most a request's own attributes may weigh for its answer to be cached (kube's maxControlledAttrCacheSize):
// past it, a client could fill the cache.
constexpr std::size_t kMaxControlledAttributesForCache = 10000;
constexpr std::size_t kCacheEntries = 8192;

json::array strings(const std::vector<std::string>& values) {
  json::array list;
  for (const auto& value : values) list.emplace_back(value);
  return list;
}

void set_if_not_empty(json::object& object, std::string_view key, const std::string& value) {
  if (!value.empty()) object[key] = value;
}

// fieldSelectorToAuthorizationAPI: = and == as In, != as NotIn, each with its one value.
std::optional<json::array> field_requirements(const std::string& text) {
  if (text.empty()) return std::nullopt;
  selectors::FieldSelector selector;
  try {
    selector = selectors::FieldSelector::parse(text);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  json::array requirements;
  for (const auto& requirement : selector.requirements()) {
    const bool equals = requirement.op == selectors::FieldRequirement::Operator::Equals;
    requirements.push_back(json::object{{"key", requirement.field},
                                        {"operator", equals ? "In" : "NotIn"},
                                        {"values", json::array{json::value(requirement.value)}}});
  }
  if (requirements.empty()) return std::nullopt;
  return requirements;
}

// labelSelectorToAuthorizationAPI: =, == and in as In, != and notin as NotIn, exists and !; gt and lt dropped
// (requirements are ANDed, so dropping one only widens what is asked).
std::optional<json::array> label_requirements(const std::string& text) {
  if (text.empty()) return std::nullopt;
  selectors::LabelSelector selector;
  try {
    selector = selectors::LabelSelector::parse(text);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  using Operator = selectors::LabelRequirement::Operator;
  json::array requirements;
  for (const auto& requirement : selector.requirements()) {
    std::string_view op;
    switch (requirement.op) {
      case Operator::Equals: case Operator::DoubleEquals: case Operator::In: op = "In"; break;
      case Operator::NotEquals: case Operator::NotIn: op = "NotIn"; break;
      case Operator::Exists: op = "Exists"; break;
      case Operator::DoesNotExist: op = "DoesNotExist"; break;
      default: continue;
    }
    json::object out{{"key", requirement.key}, {"operator", op}};
    if (!requirement.values.empty()) out["values"] = strings(requirement.values);
    requirements.push_back(std::move(out));
  }
  if (requirements.empty()) return std::nullopt;
  return requirements;
}

// The result label of one round-trip, as kube's Authorize sorts a SubjectAccessReview call's error.
std::string round_trip_result(const webhook::Attempt& attempt) {
  if (!attempt.error) return "success";
  if (attempt.canceled) return "canceled";
  const std::string_view message = attempt.error->what();
  const bool timed_out = attempt.status == 504 || message.find("deadline exceeded") != std::string_view::npos ||
                         message.find("i/o timeout") != std::string_view::npos ||
                         message.find("Client.Timeout") != std::string_view::npos;
  return timed_out ? "timeout" : "error";
}

bool should_cache(const Attributes& attributes) {
  const std::size_t size = attributes.namespace_.size() + attributes.verb.size() + attributes.api_group.size() +
                           attributes.api_version.size() + attributes.resource.size() +
                           attributes.subresource.size() + attributes.name.size() + attributes.path.size();
  return size < kMaxControlledAttributesForCache;
}

// The SubjectAccessReviewSpec; v1beta1 (v1SpecToV1beta1Spec) has the same fields, groups named "group".
json::object review_spec(const Attributes& attributes, std::string_view groups_key) {
  json::object spec;
  if (attributes.resource_request) {
    json::object resource;
    set_if_not_empty(resource, "namespace", attributes.namespace_);
    set_if_not_empty(resource, "verb", attributes.verb);
    set_if_not_empty(resource, "group", attributes.api_group);
    set_if_not_empty(resource, "version", attributes.api_version);
    set_if_not_empty(resource, "resource", attributes.resource);
    set_if_not_empty(resource, "subresource", attributes.subresource);
    set_if_not_empty(resource, "name", attributes.name);
    // AuthorizeWithSelectors, on by default in 1.32.
    if (auto requirements = field_requirements(attributes.field_selector))
      resource["fieldSelector"] = json::object{{"requirements", std::move(*requirements)}};
    if (auto requirements = label_requirements(attributes.label_selector))
      resource["labelSelector"] = json::object{{"requirements", std::move(*requirements)}};
    spec["resourceAttributes"] = std::move(resource);
  } else {
    json::object non_resource;
    set_if_not_empty(non_resource, "path", attributes.path);
    set_if_not_empty(non_resource, "verb", attributes.verb);
    spec["nonResourceAttributes"] = std::move(non_resource);
  }
  const request::UserInfo& user = attributes.user;
  set_if_not_empty(spec, "user", user.name);
  if (!user.groups.empty()) spec[groups_key] = strings(user.groups);
  if (!user.extra.empty()) {
    json::object extra;
    for (const auto& [key, values] : user.extra) extra[key] = strings(values);
    spec["extra"] = std::move(extra);
  }
  set_if_not_empty(spec, "uid", user.uid);
  return spec;
}

json::object review_of(json::object spec, std::string_view version) {
  return json::object{{"kind", "SubjectAccessReview"},
                      {"apiVersion", "authorization.k8s.io/" + std::string(version)},
                      {"metadata", json::object{{"creationTimestamp", nullptr}}},
                      {"spec", std::move(spec)},
                      {"status", json::object{{"allowed", false}}}};
}

}  // namespace

json::object subject_access_review(const Attributes& attributes) {
  return review_of(review_spec(attributes, "groups"), "v1");
}

WebhookAuthorizer::WebhookAuthorizer(WebhookAuthorizerOptions options, base::Logger* logger)
    : options_(std::move(options)), logger_(logger) {
  if (options_.version != "v1" && options_.version != "v1beta1")
    throw std::invalid_argument("unsupported webhook authorizer version \"" + options_.version +
                                "\", supported versions are [v1 v1beta1]");
  webhook_ = std::make_unique<webhook::GenericWebhook>(options_.target, options_.retry_backoff, options_.timeout);
}

WebhookAuthorizer::~WebhookAuthorizer() = default;

std::optional<json::object> WebhookAuthorizer::cached(const std::string& key) const {
  std::lock_guard lock(mutex_);
  auto found = cache_.find(key);
  if (found == cache_.end()) return std::nullopt;
  if (found->second.expires <= Clock::now()) {
    ages_.erase(found->second.age);
    cache_.erase(found);
    return std::nullopt;
  }
  ages_.splice(ages_.end(), ages_, found->second.age);
  return found->second.status;
}

void WebhookAuthorizer::remember(const std::string& key, json::object status, Clock::duration ttl) const {
  if (ttl <= Clock::duration::zero()) return;
  std::lock_guard lock(mutex_);
  if (auto found = cache_.find(key); found != cache_.end()) {
    ages_.erase(found->second.age);
    cache_.erase(found);
  }
  while (cache_.size() >= kCacheEntries) {
    cache_.erase(ages_.front());
    ages_.pop_front();
  }
  ages_.push_back(key);
  cache_.emplace(key, Cached{std::move(status), Clock::now() + ttl, std::prev(ages_.end())});
}

namespace {

Result decision_of(const json::object& status) {
  const bool allowed = fields::bool_at(status, "allowed");
  const bool denied = fields::bool_at(status, "denied");
  std::string reason(fields::string_at(status, "reason"));
  if (allowed && denied)
    return {Decision::Deny, std::move(reason), "webhook subject access review returned both allow and deny response"};
  if (denied) return {Decision::Deny, std::move(reason), ""};
  if (allowed) return {Decision::Allow, std::move(reason), ""};
  return {Decision::NoOpinion, std::move(reason), ""};
}

}  // namespace

Result WebhookAuthorizer::authorize(const Attributes& attributes) const {
  const bool v1 = options_.version == "v1";
  std::optional<json::object> status = cached(json::serialize(review_spec(attributes, v1 ? "groups" : "group")));
  if (!status) return {};
  return decision_of(*status);
}

asio::awaitable<Result> WebhookAuthorizer::authorize_async(const Attributes& attributes) const {
  metrics::AuthorizationFamilies* metrics = options_.metrics;
  if (options_.matches) {
    const auto started = std::chrono::steady_clock::now();
    MatchOutcome outcome = options_.matches(subject_access_review(attributes));
    if (metrics) {
      const metrics::Labels labels{options_.name, "Webhook"};
      const std::chrono::duration<double> took = std::chrono::steady_clock::now() - started;
      metrics->match_condition_duration.observe(labels, took.count());
      if (outcome.errored) metrics->match_condition_errors.inc(labels);
      if (outcome.excluded) metrics->match_condition_exclusions.inc(labels);
    }
    if (outcome.excluded) co_return Result{};
    if (!outcome.error.empty()) co_return Result{options_.decision_on_error, "", std::move(outcome.error)};
  }
  json::object spec = review_spec(attributes, options_.version == "v1" ? "groups" : "group");
  const std::string key = json::serialize(spec);
  if (std::optional<json::object> status = cached(key)) co_return decision_of(*status);
  const json::object review = review_of(std::move(spec), options_.version);
  std::string failure;
  std::string answer;
  std::string last_result;  // the metrics' result of the last round-trip
  bool canceled = false;
  auto observe = [&](const webhook::Attempt& attempt) {
    last_result = round_trip_result(attempt);
    canceled = attempt.canceled;
    if (!metrics) return;
    metrics->webhook_evaluations.inc({options_.name, last_result});
    metrics->webhook_duration.observe({options_.name, last_result}, attempt.took.count());
  };
  try {
    auto posting = webhook_->post(json::serialize(review), webhook::GenericWebhook::Clock::time_point::max(), observe);
    answer = co_await std::move(posting);
  } catch (const webhook::CallError& error) {
    failure = error.what();
  }
  std::optional<json::object> decoded;
  if (failure.empty()) {
    decoded = registry::parse_json_object(answer);
    if (!decoded) failure = "couldn't decode the SubjectAccessReview the webhook answered";
  }
  if (!failure.empty()) {
    // An error here indicates bad configuration or an outage.
    if (logger_) logger_->error("Failed to make webhook authorizer request: " + failure);
    if (metrics && options_.decision_on_error == Decision::NoOpinion && !canceled && !last_result.empty())
      metrics->webhook_fail_open.inc({options_.name, last_result});
    co_return Result{options_.decision_on_error, "", std::move(failure)};
  }
  json::object status = fields::object_or_empty(*decoded, "status");
  Result result = decision_of(status);
  if (should_cache(attributes)) {
    const bool allowed = fields::bool_at(status, "allowed");
    const bool cache = allowed ? options_.cache_authorized : options_.cache_unauthorized;
    const auto ttl = std::chrono::duration_cast<Clock::duration>(allowed ? options_.authorized_ttl
                                                                          : options_.unauthorized_ttl);
    if (cache) remember(key, std::move(status), ttl);
  }
  co_return result;
}

}  // namespace kapi::authorization
