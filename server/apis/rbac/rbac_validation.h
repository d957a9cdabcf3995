#pragma once
// What the four rbac.authorization.k8s.io/v1 kinds share: kube's pkg/apis/rbac/validation (ValidatePolicyRule,
// ValidateRoleBindingSubject, the roleRef checks), the v1 defaults of bindings and subjects, and the printers'
// columns for bindings (pkg/printers/internalversion, rbac.SubjectsStrings).
#include "server/registry/table.h"
#include "server/validation/field_error.h"

#include <boost/json/object.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace kapi::apis::rbac {

inline constexpr std::string_view kGroupName = "rbac.authorization.k8s.io";

// ValidatePolicyRule for each of `object`'s rules ("rules[i]"); `namespaced` rules (a Role's) may not name
// non-resource URLs.
validation::ErrorList validate_rules(const boost::json::object& object, bool namespaced);
validation::ErrorList validate_policy_rule(const boost::json::object& rule, bool namespaced,
                                           const validation::Path& path);
// A ClusterRole's aggregationRule: at least one selector, each a valid metav1.LabelSelector.
validation::ErrorList validate_aggregation_rule(const boost::json::object& cluster_role);

// ValidateRoleBinding / ValidateClusterRoleBinding beyond metadata: roleRef (apiGroup, kind among
// `allowed_role_kinds`, a path-segment name) and every subject.
validation::ErrorList validate_binding(const boost::json::object& binding, bool namespaced,
                                       const std::vector<std::string>& allowed_role_kinds);
validation::ErrorList validate_role_binding_subject(const boost::json::object& subject, bool namespaced,
                                                    const validation::Path& path);
// The update check of both bindings: roleRef is immutable.
validation::ErrorList validate_role_ref_unchanged(const boost::json::object& binding, const boost::json::object& old);

// SetDefaults_RoleBinding / _ClusterRoleBinding / _Subject: roleRef.apiGroup and User/Group subjects' apiGroup
// default to rbac.authorization.k8s.io.
void default_binding(boost::json::object& binding);

// The printers' binding columns: Name, Role, Age and, wide, Users, Groups, ServiceAccounts. `noun` is
// "roleBinding" or "clusterRoleBinding" as the descriptions say it; `role_ref_description` the kind's roleRef doc.
std::vector<registry::TableColumn> binding_columns(std::string_view noun, std::string role_ref_description);
boost::json::array binding_cells(const boost::json::object& binding);

}  // namespace kapi::apis::rbac
