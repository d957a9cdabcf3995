#pragma once
// The small vocabulary the bootstrap policy files (bootstrap_policy.cc, controller_policy.cc,
// namespace_policy.cc) write kube's roles in, after its rbacv1helpers builders: rule lists sorted as its
// PolicyRuleBuilder sorts them, every object labelled and annotated as addDefaultMetadata does. Internal to them.
#include <boost/json.hpp>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::authorization::rbac::policy_builder {

namespace json = boost::json;
using Words = std::vector<std::string_view>;

inline const Words kRead = {"get", "list", "watch"};
inline const Words kReadWrite = {"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"};
inline const Words kWrite = {"create", "update", "patch", "delete", "deletecollection"};
inline const Words kEventWriters = {"create", "update", "patch"};
inline constexpr std::string_view kRbacGroup = "rbac.authorization.k8s.io";

inline json::array sorted(Words words) {
  std::sort(words.begin(), words.end());
  json::array out;
  for (auto word : words) out.emplace_back(word);
  return out;
}

inline json::object rule(Words verbs, Words groups, Words resources, Words names = {}) {
  json::object out{{"verbs", sorted(verbs)}, {"apiGroups", sorted(groups)}, {"resources", sorted(resources)}};
  if (names.size() != 0) out["resourceNames"] = sorted(names);
  return out;
}

inline json::object urls(Words verbs, Words paths) {
  return {{"verbs", sorted(verbs)}, {"nonResourceURLs", sorted(paths)}};
}

// kube's eventsRule(): events in the core and events.k8s.io groups.
inline json::object events_rule() { return rule(kEventWriters, {"", "events.k8s.io"}, {"events"}); }

inline json::object metadata(std::string_view name, json::object labels = {}) {
  labels["kubernetes.io/bootstrapping"] = "rbac-defaults";
  return {{"name", name},
          {"labels", std::move(labels)},
          {"annotations", json::object{{"rbac.authorization.kubernetes.io/autoupdate", "true"}}}};
}

inline json::object namespaced_metadata(std::string_view name, std::string_view namespace_) {
  json::object out = metadata(name);
  out["namespace"] = namespace_;
  return out;
}

inline json::object cluster_role(std::string_view name, json::array rules, json::object labels = {}) {
  return {{"kind", "ClusterRole"},
          {"apiVersion", "rbac.authorization.k8s.io/v1"},
          {"metadata", metadata(name, std::move(labels))},
          {"rules", std::move(rules)}};
}

inline json::object role(std::string_view namespace_, std::string_view name, json::array rules) {
  return {{"kind", "Role"},
          {"apiVersion", "rbac.authorization.k8s.io/v1"},
          {"metadata", namespaced_metadata(name, namespace_)},
          {"rules", std::move(rules)}};
}

inline json::object subject(std::string_view kind, std::string_view name, std::string_view namespace_ = {}) {
  if (kind == "ServiceAccount") return {{"kind", kind}, {"name", name}, {"namespace", namespace_}};
  return {{"kind", kind}, {"apiGroup", kRbacGroup}, {"name", name}};
}

inline json::object role_ref(std::string_view kind, std::string_view name) {
  return {{"apiGroup", kRbacGroup}, {"kind", kind}, {"name", name}};
}

// A ClusterRoleBinding named after its ClusterRole, as rbacv1helpers.NewClusterBinding makes it.
inline json::object binding(std::string_view role, json::array subjects) {
  json::object out{{"kind", "ClusterRoleBinding"},
                   {"apiVersion", "rbac.authorization.k8s.io/v1"},
                   {"metadata", metadata(role)},
                   {"roleRef", role_ref("ClusterRole", role)}};
  if (!subjects.empty()) out["subjects"] = std::move(subjects);
  return out;
}

// A RoleBinding of the Role `role` in `namespace_`, named `name` (kube names most after their role).
inline json::object role_binding(std::string_view namespace_, std::string_view name, std::string_view role,
                                 json::array subjects) {
  json::object out{{"kind", "RoleBinding"},
                   {"apiVersion", "rbac.authorization.k8s.io/v1"},
                   {"metadata", namespaced_metadata(name, namespace_)},
                   {"roleRef", role_ref("Role", role)}};
  if (!subjects.empty()) out["subjects"] = std::move(subjects);
  return out;
}

inline json::array groups(Words names) {
  json::array out;
  for (auto name : names) out.push_back(subject("Group", name));
  return out;
}

inline json::array users(Words names) {
  json::array out;
  for (auto name : names) out.push_back(subject("User", name));
  return out;
}

inline json::array service_accounts(std::string_view namespace_, Words names) {
  json::array out;
  for (auto name : names) out.push_back(subject("ServiceAccount", name, namespace_));
  return out;
}

}  // namespace kapi::authorization::rbac::policy_builder
