#pragma once
// Which webhooks a request calls (k8s.io/apiserver/pkg/admission/plugin/webhook: generic/webhook.go's
// ShouldCallHook, predicates/rules, predicates/namespace, predicates/object).
#include "server/admission/attributes.h"
#include "server/plugin/admission/webhook/configuration.h"

#include <asio/awaitable.hpp>

#include <optional>
#include <string>

namespace kapi::registry { class Store; }

namespace kapi::admission::webhook {

// rules.IsExemptAdmissionConfigurationResource: webhooks never see writes of admission configuration, so a
// broken webhook cannot lock its own configuration.
bool is_exempt_configuration_resource(const Attributes& attributes);

// One rule against the request's operation, scope and subresource, and `resource`: the request's, or an equivalent
// one's (rules.Matcher).
bool rule_matches(const Rule& rule, const Attributes& attributes, const GroupVersionResource& resource);

// The labels of the request's namespace (or of the namespace object a namespace write carries), read at most
// once per request and only when a webhook's namespaceSelector needs them.
class NamespaceLabels {
 public:
  NamespaceLabels(registry::Store* namespaces, const Attributes& attributes)
      : namespaces_(namespaces), attributes_(attributes) {}
  // Throws ApiError: the namespace's 404 when it does not exist, else an InternalError.
  asio::awaitable<const selectors::LabelMap*> get();

 private:
  registry::Store* namespaces_;
  const Attributes& attributes_;
  std::optional<selectors::LabelMap> labels_;
};

// What the webhook is called with: the request's resource and kind, or, under matchPolicy Equivalent, those of the
// equivalent resource a rule names (the objects are then converted to that kind).
struct Invocation {
  GroupVersionResource resource;
  GroupVersionKind kind;
};

// The rules' match (the policy matcher's matchesResourceRules, the webhook's rule loop): the first rule that
// matches the request as it is, else, under matchPolicy Equivalent, the first rule that matches one of the
// resource's equivalents (attributes.object_interfaces); a rule with resourceNames matches only those names.
std::optional<Invocation> match_rules(const std::vector<Rule>& rules, const Attributes& attributes, bool equivalent);

// objectSelector: the new or the old object has matching labels (an empty selector matches everything).
bool object_selector_matches(const selectors::LabelSelector& selector, const Attributes& attributes);
// Whether a namespaceSelector applies: a cluster-scoped resource other than a namespace is never exempted by one.
bool namespace_selector_applies(const Attributes& attributes);

// ShouldCallHook without its matchConditions: std::nullopt when the webhook does not apply. Throws the ApiError
// kube returns when the namespace cannot be read for a webhook that applies.
asio::awaitable<std::optional<Invocation>> should_call(const Webhook& webhook, const Attributes& attributes,
                                                       NamespaceLabels& namespace_labels);

selectors::LabelMap labels_of(const boost::json::object* object);

}  // namespace kapi::admission::webhook
