// authorization.k8s.io/v1 SelfSubjectRulesReview (pkg/registry/authorization/selfsubjectrulesreview): everything
// the requesting user may do in a namespace, as far as the authorizers can list it (`kubectl auth can-i --list`).
#include "server/apis/authorization/access_review.h"
#include "server/apis/resource_storage.h"
#include "server/apierrors/errors.h"
#include "server/registry/object_meta.h"

#include <boost/json.hpp>

namespace kapi::apis {
namespace {

namespace json = boost::json;

json::object rules_status(const authorization::RuleSet& rules) {
  json::array resource_rules;
  for (const auto& rule : rules.resource_rules)
    resource_rules.push_back(json::object{{"verbs", json::value_from(rule.verbs)},
                                          {"apiGroups", json::value_from(rule.api_groups)},
                                          {"resources", json::value_from(rule.resources)},
                                          {"resourceNames", json::value_from(rule.resource_names)}});
  json::array non_resource_rules;
  for (const auto& rule : rules.non_resource_rules)
    non_resource_rules.push_back(
        json::object{{"verbs", json::value_from(rule.verbs)}, {"nonResourceURLs", json::value_from(rule.non_resource_urls)}});
  json::object status{{"resourceRules", std::move(resource_rules)},
                      {"nonResourceRules", std::move(non_resource_rules)},
                      {"incomplete", rules.incomplete}};
  // utilerrors.NewAggregate's wording: one error as it is, several in brackets.
  if (rules.errors.size() == 1) status["evaluationError"] = rules.errors.front();
  if (rules.errors.size() > 1) {
    std::string joined = "[";
    for (std::size_t i = 0; i < rules.errors.size(); ++i) joined += (i ? ", " : "") + rules.errors[i];
    status["evaluationError"] = joined + "]";
  }
  return status;
}

}  // namespace

registry::Creater selfsubjectrulesreviews(std::shared_ptr<const authorization::Authorizer> authorizer) {
  using namespace authorization_reviews;
  registry::ResourceDefinition definition = review_definition("selfsubjectrulesreviews", "SelfSubjectRulesReview", false);
  auto create = [authorizer](registry::CreateRequest request) -> asio::awaitable<json::object> {
    const std::string namespace_(registry::string_field(object_or_empty(request.object, "spec"), "namespace"));
    if (namespace_.empty())
      throw apierrors::ApiError(apierrors::bad_request("no namespace on request"));
    request.object["status"] = rules_status(authorizer->rules_for(request.user, namespace_));
    co_return std::move(request.object);
  };
  return {std::move(definition), std::move(create)};
}

}  // namespace kapi::apis
