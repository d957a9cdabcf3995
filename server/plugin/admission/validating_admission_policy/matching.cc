// kube's policy matcher (k8s.io/apiserver/pkg/admission/plugin/policy/matching/matching.go): namespace and object
// selectors, excludeResourceRules, resourceRules with resourceNames, matchPolicy Equivalent.
#include "server/plugin/admission/validating_admission_policy/matching.h"

#include "server/apierrors/errors.h"

namespace kapi::admission::policy {

asio::awaitable<MatchOutcome> match_resources(const MatchResources& match, const Attributes& attributes,
                                              webhook::NamespaceLabels& namespace_labels) {
  std::optional<std::string> namespace_error;
  if (webhook::namespace_selector_applies(attributes) && !match.namespace_selector.empty()) {
    const selectors::LabelMap* labels = nullptr;
    try {
      labels = co_await namespace_labels.get();
    } catch (const apierrors::ApiError& error) {
      namespace_error = error.status().message;
    }
    // An error is reported only for a request the rules select.
    if (labels && !match.namespace_selector.matches(*labels)) co_return MatchOutcome{};
  }
  if (!webhook::object_selector_matches(match.object_selector, attributes)) co_return MatchOutcome{};
  if (webhook::match_rules(match.exclude_resource_rules, attributes, match.match_equivalent))
    co_return MatchOutcome{};
  std::optional<webhook::Invocation> invocation;
  if (match.resource_rules.empty())
    invocation = webhook::Invocation{attributes.resource, attributes.kind};
  else
    invocation = webhook::match_rules(match.resource_rules, attributes, match.match_equivalent);
  if (!invocation) co_return MatchOutcome{};
  if (namespace_error) co_return MatchOutcome{.matches = false, .invocation = {}, .error = std::move(namespace_error)};
  co_return MatchOutcome{.matches = true, .invocation = std::move(*invocation), .error = std::nullopt};
}

}  // namespace kapi::admission::policy
