#include "server/authorization/authorizer.h"

#include "server/http/sanitize.h"

#include <algorithm>
#include <iterator>

namespace kapi::authorization {

Result UnionAuthorizer::authorize(const Attributes& attributes) const {
  std::string reasons;
  for (const auto& authorizer : authorizers_) {
    Result result = authorizer->authorize(attributes);
    if (result.decision != Decision::NoOpinion) return result;
    if (!result.reason.empty()) reasons += (reasons.empty() ? "" : "\n") + result.reason;
  }
  return {Decision::NoOpinion, std::move(reasons)};
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
