#include "server/authorization/rbac/rbac_authorizer.h"

#include <algorithm>
#include <optional>

namespace kapi::authorization::rbac {
namespace {

bool contains(const std::vector<std::string>& values, std::string_view wanted) {
  return std::find(values.begin(), values.end(), wanted) != values.end();
}

bool matches_or_star(const std::vector<std::string>& values, std::string_view wanted) {
  return std::any_of(values.begin(), values.end(), [&](const std::string& value) { return value == "*" || value == wanted; });
}

bool resource_matches(const PolicyRule& rule, const std::string& combined, const std::string& subresource) {
  for (const auto& resource : rule.resources) {
    if (resource == "*" || resource == combined) return true;
    // "*/scale" matches every resource's scale subresource.
    if (!subresource.empty() && resource.size() == subresource.size() + 2 && resource.starts_with("*/") &&
        resource.ends_with(subresource))
      return true;
  }
  return false;
}

bool non_resource_url_matches(const PolicyRule& rule, const std::string& path) {
  for (const auto& url : rule.non_resource_urls) {
    if (url == "*" || url == path) return true;
    if (url.ends_with('*') && path.starts_with(std::string_view(url).substr(0, url.find_last_not_of('*') + 1)))
      return true;
  }
  return false;
}

}  // namespace

bool rule_allows(const Attributes& attributes, const PolicyRule& rule) {
  if (!matches_or_star(rule.verbs, attributes.verb)) return false;
  if (!attributes.resource_request) return non_resource_url_matches(rule, attributes.path);
  std::string combined = attributes.resource;
  if (!attributes.subresource.empty()) combined += "/" + attributes.subresource;
  return matches_or_star(rule.api_groups, attributes.api_group) &&
         resource_matches(rule, combined, attributes.subresource) &&
         (rule.resource_names.empty() || contains(rule.resource_names, attributes.name));
}

bool subject_matches(const Subject& subject, const request::UserInfo& user, const std::string& namespace_) {
  if (subject.kind == "User") return subject.name == user.name;
  if (subject.kind == "Group") return contains(user.groups, subject.name);
  if (subject.kind == "ServiceAccount") {
    const std::string& account_namespace = subject.namespace_.empty() ? namespace_ : subject.namespace_;
    return !account_namespace.empty() && user.name == "system:serviceaccount:" + account_namespace + ":" + subject.name;
  }
  return false;
}

namespace {

// kube's describers of where a permission comes from: `ClusterRoleBinding "x" of ClusterRole "y" to Group "z"`.
std::string describe(const Binding& binding, const Subject& subject) {
  std::string subject_name = subject.name;
  if (subject.kind == "ServiceAccount")
    subject_name += "/" + (subject.namespace_.empty() ? binding.namespace_ : subject.namespace_);
  const std::string name = binding.namespace_.empty() ? binding.name : binding.name + "/" + binding.namespace_;
  return std::string(binding.namespace_.empty() ? "ClusterRoleBinding" : "RoleBinding") + " \"" + name + "\" of " +
         binding.role_kind + " \"" + binding.role_name + "\" to " + subject.kind + " \"" + subject_name + "\"";
}

// kube's VisitRulesFor: the rules of every role bound to `user`, ClusterRoleBindings first, then the RoleBindings
// of `namespace_`, until `visit(rule, binding, subject)` returns true. A binding whose role does not exist adds its
// error to `errors`.
template <typename Visit>
void visit_rules_for(const PolicySnapshot& policy, const request::UserInfo& user, const std::string& namespace_,
                     std::vector<std::string>& errors, Visit visit) {
  auto visit_binding = [&](const Binding& binding, const std::string& binding_namespace) {
    auto subject = std::find_if(binding.subjects.begin(), binding.subjects.end(),
                                [&](const Subject& subject) { return subject_matches(subject, user, binding_namespace); });
    if (subject == binding.subjects.end()) return false;
    const bool cluster_role = binding.role_kind == "ClusterRole";
    const std::vector<PolicyRule>* rules = policy.role_rules(cluster_role ? "" : binding_namespace, binding.role_name);
    if (!rules) {
      errors.push_back(std::string(cluster_role ? "clusterrole" : "role") + ".rbac.authorization.k8s.io \"" +
                       binding.role_name + "\" not found");
      return false;
    }
    return std::any_of(rules->begin(), rules->end(),
                       [&](const PolicyRule& rule) { return visit(rule, binding, *subject); });
  };
  for (const Binding& binding : policy.cluster_role_bindings())
    if (visit_binding(binding, "")) return;
  if (!namespace_.empty())
    for (const Binding& binding : policy.role_bindings(namespace_))
      if (visit_binding(binding, namespace_)) return;
}

}  // namespace

Result RbacAuthorizer::authorize(const Attributes& attributes) const {
  const std::shared_ptr<const PolicySnapshot> policy = policy_.load();
  std::vector<std::string> errors;
  std::optional<std::string> allowed_by;
  visit_rules_for(*policy, attributes.user, attributes.namespace_, errors,
                  [&](const PolicyRule& rule, const Binding& binding, const Subject& subject) {
                    if (!rule_allows(attributes, rule)) return false;
                    allowed_by = "RBAC: allowed by " + describe(binding, subject);
                    return true;
                  });
  if (allowed_by) return {Decision::Allow, std::move(*allowed_by)};
  if (errors.empty()) return {};
  // utilerrors.NewAggregate's wording: one error as it is, several in brackets.
  std::string reason = "RBAC: ";
  if (errors.size() == 1) return {Decision::NoOpinion, reason + errors.front()};
  reason += "[";
  for (std::size_t i = 0; i < errors.size(); ++i) reason += (i ? ", " : "") + errors[i];
  return {Decision::NoOpinion, reason + "]"};
}

RuleSet RbacAuthorizer::rules_for(const request::UserInfo& user, const std::string& namespace_) const {
  const std::shared_ptr<const PolicySnapshot> policy = policy_.load();
  RuleSet rules;
  visit_rules_for(*policy, user, namespace_, rules.errors, [&](const PolicyRule& rule, const Binding&, const Subject&) {
    if (!rule.resources.empty())
      rules.resource_rules.push_back({rule.verbs, rule.api_groups, rule.resources, rule.resource_names});
    if (!rule.non_resource_urls.empty()) rules.non_resource_rules.push_back({rule.verbs, rule.non_resource_urls});
    return false;
  });
  return rules;
}

}  // namespace kapi::authorization::rbac
