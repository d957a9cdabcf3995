#include "server/apis/rbac/rbac_validation.h"

#include "base/name_validation.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"
#include "server/validation/metav1_validation.h"
#include "server/validation/object_meta.h"

#include <boost/json.hpp>

#include <algorithm>

namespace kapi::apis::rbac {
namespace {

namespace json = boost::json;
using validation::ErrorList;
using validation::Path;
using registry::fields::array_at;
using registry::fields::go_string_slice;
using registry::fields::object_or_empty;

std::size_t size_at(const json::object& object, std::string_view key) {
  const json::array* array = array_at(object, key);
  return array ? array->size() : 0;
}

// Go's %#v of an rbac.RoleRef, as "cannot change roleRef" prints it.
std::string go_role_ref(const json::object& role_ref) {
  return "rbac.RoleRef{APIGroup:" + validation::quoted(registry::string_field(role_ref, "apiGroup")) +
         ", Kind:" + validation::quoted(registry::string_field(role_ref, "kind")) +
         ", Name:" + validation::quoted(registry::string_field(role_ref, "name")) + "}";
}

void append(ErrorList& errors, ErrorList more) {
  errors.insert(errors.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
}

}  // namespace

ErrorList validate_policy_rule(const json::object& rule, bool namespaced, const Path& path) {
  ErrorList errors;
  if (size_at(rule, "verbs") == 0)
    errors.push_back(validation::required(path.child("verbs"), "verbs must contain at least one value"));
  if (size_at(rule, "nonResourceURLs") > 0) {
    std::string urls = go_string_slice(array_at(rule, "nonResourceURLs"));
    if (namespaced)
      errors.push_back(validation::invalid_value(path.child("nonResourceURLs"), urls,
                                                 "namespaced rules cannot apply to non-resource URLs"));
    if (size_at(rule, "apiGroups") > 0 || size_at(rule, "resources") > 0 || size_at(rule, "resourceNames") > 0)
      errors.push_back(validation::invalid_value(path.child("nonResourceURLs"), urls,
                                                 "rules cannot apply to both regular resources and non-resource URLs"));
    return errors;
  }
  if (size_at(rule, "apiGroups") == 0)
    errors.push_back(validation::required(path.child("apiGroups"), "resource rules must supply at least one api group"));
  if (size_at(rule, "resources") == 0)
    errors.push_back(validation::required(path.child("resources"), "resource rules must supply at least one resource"));
  return errors;
}

ErrorList validate_rules(const json::object& object, bool namespaced) {
  ErrorList errors;
  if (const json::array* rules = array_at(object, "rules"))
    for (std::size_t i = 0; i < rules->size(); ++i)
      if (const json::object* rule = (*rules)[i].if_object())
        append(errors, validate_policy_rule(*rule, namespaced, Path("rules").index(i)));
  return errors;
}

ErrorList validate_aggregation_rule(const json::object& cluster_role) {
  ErrorList errors;
  auto it = cluster_role.find("aggregationRule");
  if (it == cluster_role.end() || !it->value().is_object()) return errors;
  Path selectors_path = Path("aggregationRule").child("clusterRoleSelectors");
  const json::array* selectors = array_at(it->value().as_object(), "clusterRoleSelectors");
  if (!selectors || selectors->empty())
    errors.push_back(validation::required(selectors_path,
                                          "at least one clusterRoleSelector required if aggregationRule is non-nil"));
  if (selectors)
    for (std::size_t i = 0; i < selectors->size(); ++i)
      if (const json::object* selector = (*selectors)[i].if_object())
        append(errors, validation::validate_label_selector(*selector, selectors_path.index(i)));
  return errors;
}

ErrorList validate_role_binding_subject(const json::object& subject, bool namespaced, const Path& path) {
  ErrorList errors;
  std::string_view name = registry::string_field(subject, "name");
  std::string_view api_group = registry::string_field(subject, "apiGroup");
  std::string_view kind = registry::string_field(subject, "kind");
  if (name.empty()) errors.push_back(validation::required(path.child("name")));
  if (kind == "ServiceAccount") {
    // ValidateServiceAccountName: a DNS-1123 subdomain.
    if (!name.empty())
      for (auto& message : validation::is_dns1123_subdomain(name))
        errors.push_back(validation::invalid(path.child("name"), name, message));
    if (!api_group.empty()) errors.push_back(validation::not_supported(path.child("apiGroup"), api_group, {""}));
    if (!namespaced && registry::string_field(subject, "namespace").empty())
      errors.push_back(validation::required(path.child("namespace")));
  } else if (kind == "User" || kind == "Group") {
    if (name.empty())
      errors.push_back(validation::invalid(path.child("name"), name,
                                           kind == "User" ? "user name cannot be empty" : "group name cannot be empty"));
    if (api_group != kGroupName)
      errors.push_back(validation::not_supported(path.child("apiGroup"), api_group, {std::string(kGroupName)}));
  } else {
    errors.push_back(validation::not_supported(path.child("kind"), kind, {"ServiceAccount", "User", "Group"}));
  }
  return errors;
}

ErrorList validate_binding(const json::object& binding, bool namespaced, const std::vector<std::string>& allowed_role_kinds) {
  ErrorList errors;
  const json::object& role_ref = object_or_empty(binding, "roleRef");
  Path role_ref_path("roleRef");
  std::string_view api_group = registry::string_field(role_ref, "apiGroup");
  if (api_group != kGroupName)
    errors.push_back(validation::not_supported(role_ref_path.child("apiGroup"), api_group, {std::string(kGroupName)}));
  std::string_view kind = registry::string_field(role_ref, "kind");
  if (std::find(allowed_role_kinds.begin(), allowed_role_kinds.end(), kind) == allowed_role_kinds.end())
    errors.push_back(validation::not_supported(role_ref_path.child("kind"), kind, allowed_role_kinds));
  std::string_view name = registry::string_field(role_ref, "name");
  if (name.empty()) {
    errors.push_back(validation::required(role_ref_path.child("name")));
  } else {
    for (auto& message : validation::is_valid_path_segment_name(name))
      errors.push_back(validation::invalid(role_ref_path.child("name"), name, message));
  }
  if (const json::array* subjects = array_at(binding, "subjects"))
    for (std::size_t i = 0; i < subjects->size(); ++i)
      if (const json::object* subject = (*subjects)[i].if_object())
        append(errors, validate_role_binding_subject(*subject, namespaced, Path("subjects").index(i)));
  return errors;
}

ErrorList validate_role_ref_unchanged(const json::object& binding, const json::object& old) {
  const json::object& role_ref = object_or_empty(binding, "roleRef");
  const json::object& old_role_ref = object_or_empty(old, "roleRef");
  for (std::string_view field : {"apiGroup", "kind", "name"})
    if (registry::string_field(role_ref, field) != registry::string_field(old_role_ref, field))
      return {validation::invalid_value(Path("roleRef"), go_role_ref(role_ref), "cannot change roleRef")};
  return {};
}

void default_binding(json::object& binding) {
  if (auto it = binding.find("roleRef"); it != binding.end() && it->value().is_object()) {
    json::object& role_ref = it->value().as_object();
    if (registry::string_field(role_ref, "apiGroup").empty()) role_ref["apiGroup"] = kGroupName;
  }
  auto it = binding.find("subjects");
  if (it == binding.end() || !it->value().is_array()) return;
  for (auto& entry : it->value().as_array()) {
    json::object* subject = entry.if_object();
    if (!subject || !registry::string_field(*subject, "apiGroup").empty()) continue;
    std::string_view kind = registry::string_field(*subject, "kind");
    if (kind == "User" || kind == "Group") (*subject)["apiGroup"] = kGroupName;
  }
}

std::vector<registry::TableColumn> binding_columns(std::string_view noun, std::string role_ref_description) {
  const std::string in = " in the " + std::string(noun);
  return {registry::name_column(),
          {"Role", "string", "", std::move(role_ref_description), 0},
          registry::age_column(),
          {"Users", "string", "", "Users" + in, 1},
          {"Groups", "string", "", "Groups" + in, 1},
          {"ServiceAccounts", "string", "", "ServiceAccounts" + in, 1}};
}

json::array binding_cells(const json::object& binding) {
  const json::object& role_ref = object_or_empty(binding, "roleRef");
  std::string users, groups, service_accounts;
  auto add = [](std::string& list, std::string item) {
    if (!list.empty()) list += ", ";
    list += item;
  };
  if (const json::array* subjects = array_at(binding, "subjects"))
    for (const auto& entry : *subjects) {
      const json::object* subject = entry.if_object();
      if (!subject) continue;
      std::string_view kind = registry::string_field(*subject, "kind");
      std::string name(registry::string_field(*subject, "name"));
      if (kind == "ServiceAccount")
        add(service_accounts, std::string(registry::string_field(*subject, "namespace")) + "/" + name);
      else if (kind == "User")
        add(users, name);
      else if (kind == "Group")
        add(groups, name);
    }
  std::string role = std::string(registry::string_field(role_ref, "kind")) + "/" +
                     std::string(registry::string_field(role_ref, "name"));
  return {json::string(registry::meta_string(binding, "name")), json::string(role),
          json::string(registry::age_of(binding)), json::string(users), json::string(groups),
          json::string(service_accounts)};
}

}  // namespace kapi::apis::rbac
