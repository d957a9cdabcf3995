#pragma once
// kube's RBAC reconciliation (pkg/registry/rbac/reconciliation) as its "rbac/bootstrap-roles" post-start hook runs
// it: a missing bootstrap role or binding is created; an existing one gains what it lacks (labels, annotations,
// rules, aggregation selectors, subjects) and keeps what was added to it; a binding whose roleRef changed is
// recreated. Namespaced Roles and RoleBindings reconcile the same way. An object annotated
// `rbac.authorization.kubernetes.io/autoupdate: "false"` is left as it is.
#include "server/registry/store.h"

#include <asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <optional>

namespace kapi::authorization::rbac {

// computeReconciledRole without removing extra permissions: the role to store, or std::nullopt when `existing`
// already has everything `expected` has or is protected from updates.
std::optional<boost::json::object> reconcile_role(const boost::json::object& existing,
                                                  const boost::json::object& expected);

struct ReconciledBinding {
  boost::json::object binding;
  bool recreate = false;  // the roleRef differs and cannot be updated: delete, then create `binding`
};
// computeReconciledRoleBinding without removing extra subjects; std::nullopt likewise.
std::optional<ReconciledBinding> reconcile_binding(const boost::json::object& existing,
                                                   const boost::json::object& expected);

// The revisions at which the bootstrap policy is known to be stored: an authorizer whose feed has seen them all
// has it.
struct BootstrapRevisions {
  storage::Revision cluster_roles = 0;
  storage::Revision cluster_role_bindings = 0;
  storage::Revision roles = 0;
  storage::Revision role_bindings = 0;
};

struct BootstrapStores {
  registry::Store& cluster_roles;
  registry::Store& cluster_role_bindings;
  registry::Store& roles;  // the namespaced ones go to kube-system and kube-public, which must exist
  registry::Store& role_bindings;
};

// Creates and reconciles the bootstrap ClusterRoles and ClusterRoleBindings (the controllers' included), then the
// Roles and RoleBindings of kube-system and kube-public; throws ApiError when storage fails (the caller retries).
asio::awaitable<BootstrapRevisions> ensure_bootstrap_policy(BootstrapStores stores);

}  // namespace kapi::authorization::rbac
