#pragma once
// The ClusterRoles and ClusterRoleBindings kube-apiserver creates at start (plugin/pkg/auth/authorizer/rbac/
// bootstrappolicy), those kapi has so far: cluster-admin for system:masters, discovery and basic-user for every
// authenticated user, public-info-viewer for everyone. Missing ones are created; existing ones are left as
// their owners changed them (kube reconciles those marked autoupdate; kapi does not yet).
#include "server/registry/store.h"

#include <asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <vector>

namespace kapi::authorization::rbac {

std::vector<boost::json::object> bootstrap_cluster_roles();
std::vector<boost::json::object> bootstrap_cluster_role_bindings();

// The revisions at which the bootstrap policy is known to be stored: an authorizer whose feed has seen both has it.
struct BootstrapRevisions {
  storage::Revision cluster_roles = 0;
  storage::Revision cluster_role_bindings = 0;
};

// Creates what is missing; throws ApiError when storage fails (the caller retries).
asio::awaitable<BootstrapRevisions> ensure_bootstrap_policy(registry::Store& cluster_roles,
                                                            registry::Store& cluster_role_bindings);

}  // namespace kapi::authorization::rbac
