#include "server/authorization/authorizer.h"

#include "server/http/sanitize.h"

#include <algorithm>
#include <iterator>

namespace kapi::authorization {

asio::awaitable<Result> Authorizer::authorize_async(const Attributes& attributes) const { co_return authorize(attributes); }

namespace {

// kube's unionAuthzHandler: the first Allow or Deny decides (with its error, if any); otherwise the reasons are
// joined by newlines and the errors aggregated ("[a, b]" for several).
struct UnionOutcome {
  std::string reasons;
  std::vector<std::string> errors;

  // True when `result` decides.
  bool add(Result& result) {
    if (result.decision != Decision::NoOpinion) return true;
    if (!result.error.empty()) errors.push_back(std::move(result.error));
    if (!result.reason.empty()) reasons += (reasons.empty() ? "" : "\n") + result.reason;
    return false;
  }
  Result no_opinion() && {
    std::string error;
    if (errors.size() == 1) error = std::move(errors.front());
    if (errors.size() > 1) {
      for (const auto& each : errors) error += (error.empty() ? "[" : ", ") + each;
      error += "]";
    }
    return {Decision::NoOpinion, std::move(reasons), std::move(error)};
  }
};

}  // namespace

Result UnionAuthorizer::authorize(const Attributes& attributes) const {
  UnionOutcome outcome;
  for (const auto& authorizer : authorizers_) {
    Result result = authorizer->authorize(attributes);
    if (outcome.add(result)) return result;
  }
  return std::move(outcome).no_opinion();
}

asio::awaitable<Result> UnionAuthorizer::authorize_async(const Attributes& attributes) const {
  UnionOutcome outcome;
  for (const auto& authorizer : authorizers_) {
    Result result;
    if (authorizer->decides_in_memory()) {
      result = authorizer->authorize(attributes);
    } else {
      auto deciding = authorizer->authorize_async(attributes);
      result = co_await std::move(deciding);
    }
    if (outcome.add(result)) co_return result;
  }
  co_return std::move(outcome).no_opinion();
}

RuleSet UnionAuthorizer::rules_for(const request::UserInfo& user, const std::string& namespace_) const {
  RuleSet all;
  for (const auto& authorizer : authorizers_) {
    RuleSet rules = authorizer->rules_for(user, namespace_);
    std::move(rules.resource_rules.begin(), rules.resource_rules.end(), std::back_inserter(all.resource_rules));
    std::move(rules.non_resource_rules.begin(), rules.non_resource_rules.end(),
              std::back_inserter(all.non_resource_rules));
    std::move(rules.errors.begin(), rules.errors.end(), std::back_inserter(all.errors));
    all.incomplete = all.incomplete || rules.incomplete;
  }
  return all;
}

namespace {

std::string unsanitized_message(const Attributes& attributes) {
  const std::string user = "User \"" + attributes.user.name + "\" cannot " + attributes.verb;
  if (!attributes.resource_request) return user + " path \"" + attributes.path + "\"";
  std::string resource = attributes.resource;
  if (!attributes.subresource.empty()) resource += "/" + attributes.subresource;
  const std::string what = user + " resource \"" + resource + "\" in API group \"" + attributes.api_group + "\"";
  if (!attributes.namespace_.empty()) return what + " in the namespace \"" + attributes.namespace_ + "\"";
  return what + " at the cluster scope";
}

}  // namespace

std::string forbidden_message(const Attributes& attributes) { return http::html_sanitized(unsanitized_message(attributes)); }

}  // namespace kapi::authorization
