#include "server/authorization/rbac/policy.h"

#include "server/registry/json_fields.h"

#include <boost/json.hpp>

namespace kapi::authorization::rbac {

namespace json = boost::json;
using namespace registry::fields;

std::vector<PolicyRule> rules_of(const json::object& role) {
  std::vector<PolicyRule> rules;
  const json::value* value = role.if_contains("rules");
  if (!value || !value->is_array()) return rules;
  for (const auto& item : value->get_array()) {
    if (!item.is_object()) continue;
    const json::object& rule = item.get_object();
    rules.push_back({strings_at(rule, "verbs"), strings_at(rule, "apiGroups"), strings_at(rule, "resources"),
                     strings_at(rule, "resourceNames"), strings_at(rule, "nonResourceURLs")});
  }
  return rules;
}

void PolicySnapshot::add_role(const json::object& role) {
  const std::string kind(string_at(role, "kind"));
  if (kind != "Role" && kind != "ClusterRole") return;
  const json::object& metadata = object_or_empty(role, "metadata");
  std::string namespace_ = kind == "Role" ? std::string(string_at(metadata, "namespace")) : std::string();
  roles_[{std::move(namespace_), std::string(string_at(metadata, "name"))}] = rules_of(role);
}

void PolicySnapshot::add_binding(const json::object& object) {
  const std::string kind(string_at(object, "kind"));
  if (kind != "RoleBinding" && kind != "ClusterRoleBinding") return;
  const json::object& metadata = object_or_empty(object, "metadata");
  const json::object& role_ref = object_or_empty(object, "roleRef");
  Binding binding;
  binding.namespace_ = kind == "RoleBinding" ? std::string(string_at(metadata, "namespace")) : std::string();
  binding.name = string_at(metadata, "name");
  binding.role_kind = string_at(role_ref, "kind");
  binding.role_name = string_at(role_ref, "name");
  if (const json::value* subjects = object.if_contains("subjects"); subjects && subjects->is_array()) {
    for (const auto& item : subjects->get_array()) {
      if (!item.is_object()) continue;
      const json::object& subject = item.get_object();
      binding.subjects.push_back({std::string(string_at(subject, "kind")), std::string(string_at(subject, "name")),
                                  std::string(string_at(subject, "namespace"))});
    }
  }
  if (kind == "ClusterRoleBinding") cluster_role_bindings_.push_back(std::move(binding));
  else role_bindings_[binding.namespace_].push_back(std::move(binding));
}

const std::vector<PolicyRule>* PolicySnapshot::role_rules(const std::string& namespace_, const std::string& name) const {
  auto found = roles_.find(std::pair{namespace_, name});
  return found == roles_.end() ? nullptr : &found->second;
}

const std::vector<Binding>& PolicySnapshot::role_bindings(const std::string& namespace_) const {
  static const std::vector<Binding> none;
  auto found = role_bindings_.find(namespace_);
  return found == role_bindings_.end() ? none : found->second;
}

}  // namespace kapi::authorization::rbac
