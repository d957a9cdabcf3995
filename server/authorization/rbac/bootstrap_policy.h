#pragma once
// The ClusterRoles and ClusterRoleBindings kube-apiserver keeps at start (plugin/pkg/auth/authorizer/rbac/
// bootstrappolicy): cluster-admin for system:masters; discovery, basic-user and public-info-viewer; the aggregated
// admin, edit and view with the system:aggregate-to-* roles that feed them; and the roles of the system's own
// components (nodes, kube-proxy, the controller manager, the scheduler, ...). reconciliation.h keeps them stored.
#include <boost/json/object.hpp>

#include <vector>

namespace kapi::authorization::rbac {

std::vector<boost::json::object> bootstrap_cluster_roles();
std::vector<boost::json::object> bootstrap_cluster_role_bindings();

}  // namespace kapi::authorization::rbac
