// ShouldCallHook (k8s.io/apiserver/pkg/admission/plugin/webhook/generic/webhook.go) with its predicates: rules
// (predicates/rules/rules.go), namespaceSelector (predicates/namespace/matcher.go) and objectSelector
// (predicates/object/matcher.go).
#include "server/plugin/admission/webhook/matching.h"

#include "server/admission/object_interfaces.h"
#include "server/apierrors/errors.h"
#include "server/registry/object_meta.h"
#include "server/registry/store.h"

#include <algorithm>
#include <array>

namespace kapi::admission::webhook {
namespace {

namespace json = boost::json;

bool exact_or_wildcard(const std::vector<std::string>& items, std::string_view requested) {
  return std::ranges::any_of(items, [&](const std::string& item) { return item == "*" || item == requested; });
}

bool is_namespace_object(const Attributes& attributes) {
  return attributes.resource.group.empty() && attributes.resource.version == "v1" &&
         attributes.resource.resource == "namespaces";
}

bool scope_matches(const Rule& rule, const Attributes& attributes) {
  if (rule.scope.empty() || rule.scope == "*") return true;
  // A namespace is cluster-scoped although its requests carry its name as their namespace.
  if (rule.scope == "Namespaced") return !is_namespace_object(attributes) && !attributes.namespace_.empty();
  if (rule.scope == "Cluster") return is_namespace_object(attributes) || attributes.namespace_.empty();
  return false;
}

bool operation_matches(const Rule& rule, const Attributes& attributes) {
  const std::string_view operation = to_string(attributes.operation);
  return std::ranges::any_of(rule.operations, [&](const std::string& item) { return item == "*" || item == operation; });
}

bool resource_matches(const Rule& rule, const Attributes& attributes, std::string_view requested) {
  for (std::string_view item : rule.resources) {
    const std::size_t slash = item.find('/');
    const std::string_view resource = item.substr(0, slash);
    const std::string_view subresource = slash == std::string_view::npos ? std::string_view() : item.substr(slash + 1);
    if ((resource == "*" || resource == requested) &&
        (subresource == "*" || subresource == attributes.subresource))
      return true;
  }
  return false;
}

}  // namespace

bool is_exempt_configuration_resource(const Attributes& attributes) {
  static constexpr std::array<std::string_view, 6> kExempt{
      "validatingwebhookconfigurations",   "mutatingwebhookconfigurations",   "validatingadmissionpolicies",
      "validatingadmissionpolicybindings", "mutatingadmissionpolicies", "mutatingadmissionpolicybindings"};
  return attributes.resource.group == "admissionregistration.k8s.io" &&
         std::ranges::find(kExempt, attributes.resource.resource) != kExempt.end();
}

bool rule_matches(const Rule& rule, const Attributes& attributes, const GroupVersionResource& resource) {
  return scope_matches(rule, attributes) && operation_matches(rule, attributes) &&
         exact_or_wildcard(rule.api_groups, resource.group) && exact_or_wildcard(rule.api_versions, resource.version) &&
         resource_matches(rule, attributes, resource.resource);
}

selectors::LabelMap labels_of(const json::object* object) {
  selectors::LabelMap labels;
  if (!object) return labels;
  const json::value* metadata = object->if_contains("metadata");
  if (!metadata || !metadata->is_object()) return labels;
  const json::value* found = metadata->as_object().if_contains("labels");
  if (!found || !found->is_object()) return labels;
  for (const auto& [key, value] : found->as_object())
    if (value.is_string()) labels.emplace(std::string(key), std::string(value.as_string()));
  return labels;
}

asio::awaitable<const selectors::LabelMap*> NamespaceLabels::get() {
  if (labels_) co_return &*labels_;
  // A namespace being created or updated is not in the cache yet: its own labels are those of the request.
  if (attributes_.resource.resource == "namespaces" && attributes_.subresource.empty() &&
      (attributes_.operation == Operation::Create || attributes_.operation == Operation::Update)) {
    labels_ = labels_of(attributes_.object);
    co_return &*labels_;
  }
  if (!namespaces_) throw apierrors::ApiError(apierrors::internal_error("namespaces are not served"));
  std::string stored;
  try {
    registry::ReadObject cached = co_await namespaces_->get("", attributes_.namespace_, "0");
    stored = std::move(cached.json);
  } catch (const apierrors::ApiError& error) {
    if (error.status().code != 404) throw apierrors::ApiError(apierrors::internal_error(error.status().message));
  }
  // The cache may lag a namespace created a moment ago: a miss is confirmed by a read from storage, whose 404 is
  // the answer (kube keeps that status for backwards compatibility).
  if (stored.empty()) {
    registry::ReadObject live = co_await namespaces_->get("", attributes_.namespace_, "");
    stored = std::move(live.json);
  }
  std::optional<json::object> namespace_object = registry::parse_json_object(stored);
  labels_ = labels_of(namespace_object ? &*namespace_object : nullptr);
  co_return &*labels_;
}

namespace {

bool name_matches(const Rule& rule, const Attributes& attributes) {
  return rule.resource_names.empty() || std::ranges::find(rule.resource_names, attributes.name) != rule.resource_names.end();
}

}  // namespace

std::optional<Invocation> match_rules(const std::vector<Rule>& rules, const Attributes& attributes, bool equivalent) {
  for (const Rule& rule : rules)
    if (rule_matches(rule, attributes, attributes.resource) && name_matches(rule, attributes))
      return Invocation{attributes.resource, attributes.kind};
  if (!equivalent || !attributes.object_interfaces) return std::nullopt;
  // Earlier rules first, each against every other version of the resource.
  const std::vector<EquivalentResource> equivalents =
      attributes.object_interfaces->equivalents(attributes.resource, attributes.subresource);
  for (const Rule& rule : rules) {
    if (!name_matches(rule, attributes)) continue;
    for (const EquivalentResource& other : equivalents)
      if (other.resource != attributes.resource && rule_matches(rule, attributes, other.resource))
        return Invocation{other.resource, other.kind};
  }
  return std::nullopt;
}

bool object_selector_matches(const selectors::LabelSelector& selector, const Attributes& attributes) {
  if (selector.empty()) return true;
  const bool new_matches = attributes.object && selector.matches(labels_of(attributes.object));
  const bool old_matches = attributes.old_object && selector.matches(labels_of(attributes.old_object));
  return new_matches || old_matches;
}

bool namespace_selector_applies(const Attributes& attributes) {
  return !attributes.namespace_.empty() || attributes.resource.resource == "namespaces";
}

asio::awaitable<std::optional<Invocation>> should_call(const Webhook& webhook, const Attributes& attributes,
                                                       NamespaceLabels& namespace_labels) {
  // Rules first: they cost nothing, and kube answers "no" without an error for a webhook that does not apply
  // even when its selectors could not be evaluated.
  std::optional<Invocation> invocation = match_rules(webhook.rules, attributes, webhook.match_equivalent);
  if (!invocation) co_return std::nullopt;
  if (!object_selector_matches(webhook.object_selector, attributes)) co_return std::nullopt;
  if (namespace_selector_applies(attributes) && !webhook.namespace_selector.empty()) {
    const selectors::LabelMap* labels = co_await namespace_labels.get();
    if (!webhook.namespace_selector.matches(*labels)) co_return std::nullopt;
  }
  co_return invocation;
}

}  // namespace kapi::admission::webhook
