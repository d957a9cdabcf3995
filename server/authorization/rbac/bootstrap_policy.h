#pragma once
// The ClusterRoles and ClusterRoleBindings kube-apiserver keeps at start (plugin/pkg/auth/authorizer/rbac/
// bootstrappolicy): cluster-admin for system:masters; discovery, basic-user and public-info-viewer; the aggregated
// admin, edit and view with the system:aggregate-to-* roles that feed them; the roles of the system's own
// components (nodes, kube-proxy, the controller manager, the scheduler, ...); and the system:controller:* roles
// of kube-controller-manager's controllers. Also the Roles and RoleBindings it keeps in kube-system and
// kube-public. reconciliation.h keeps them stored.
#include <boost/json/object.hpp>

#include <vector>

namespace kapi::authorization::rbac {

// Both include the controller ones below (kube's ClusterRoles() appends ControllerRoles()).
std::vector<boost::json::object> bootstrap_cluster_roles();
std::vector<boost::json::object> bootstrap_cluster_role_bindings();

// kube's ControllerRoles() and ControllerRoleBindings() with its default feature gates: one ClusterRole
// `system:controller:<controller>` per controller, bound to the ServiceAccount kube-system/<controller> that
// kube-controller-manager --use-service-account-credentials runs it as.
std::vector<boost::json::object> controller_cluster_roles();
std::vector<boost::json::object> controller_cluster_role_bindings();

// kube's NamespaceRoles() and NamespaceRoleBindings(), flattened: each carries its metadata.namespace
// (kube-system or kube-public).
std::vector<boost::json::object> bootstrap_namespace_roles();
std::vector<boost::json::object> bootstrap_namespace_role_bindings();

}  // namespace kapi::authorization::rbac
