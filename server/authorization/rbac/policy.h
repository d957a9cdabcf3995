#pragma once
// The RBAC policy as the authorizer reads it: roles' rules and bindings' subjects, parsed once from the stored
// rbac.authorization.k8s.io/v1 objects into an immutable snapshot (kube reads them through listers; here a
// change builds a new snapshot and requests keep reading the one they started with).
#include <boost/json/object.hpp>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kapi::authorization::rbac {

struct PolicyRule {
  std::vector<std::string> verbs;
  std::vector<std::string> api_groups;
  std::vector<std::string> resources;
  std::vector<std::string> resource_names;
  std::vector<std::string> non_resource_urls;
  friend bool operator==(const PolicyRule&, const PolicyRule&) = default;
};

// The rules of a stored Role or ClusterRole.
std::vector<PolicyRule> rules_of(const boost::json::object& role);

struct Subject {
  std::string kind;  // User, Group or ServiceAccount
  std::string name;
  std::string namespace_;  // ServiceAccount
};

struct Binding {
  std::string namespace_;  // empty for a ClusterRoleBinding
  std::string name;
  std::string role_kind;  // Role or ClusterRole
  std::string role_name;
  std::vector<Subject> subjects;
};

class PolicySnapshot {
 public:
  // Each stored object as JSON; objects of other kinds are ignored.
  void add_role(const boost::json::object& role);          // Role or ClusterRole, by its kind
  void add_binding(const boost::json::object& binding);    // RoleBinding or ClusterRoleBinding, by its kind

  // The rules of a Role in `namespace_`, or of a ClusterRole when `namespace_` is empty; nullptr when absent.
  const std::vector<PolicyRule>* role_rules(const std::string& namespace_, const std::string& name) const;
  const std::vector<Binding>& cluster_role_bindings() const { return cluster_role_bindings_; }
  // The RoleBindings of one namespace.
  const std::vector<Binding>& role_bindings(const std::string& namespace_) const;

 private:
  std::map<std::pair<std::string, std::string>, std::vector<PolicyRule>, std::less<>> roles_;  // (namespace, name)
  std::vector<Binding> cluster_role_bindings_;
  std::map<std::string, std::vector<Binding>, std::less<>> role_bindings_;
};

}  // namespace kapi::authorization::rbac
