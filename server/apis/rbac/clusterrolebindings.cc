// rbac.authorization.k8s.io/v1 ClusterRoleBinding (pkg/registry/rbac/clusterrolebinding,
// ValidateClusterRoleBinding, printClusterRoleBinding).
#include "server/apis/rbac/binding_strategy.h"
#include "server/apis/resource_storage.h"

namespace kapi::apis {

ResourceStorage clusterrolebindings(std::shared_ptr<const authorization::rbac::EscalationCheck> escalation) {
  registry::ResourceDefinition definition{.group = "rbac.authorization.k8s.io", .version = "v1",
                                          .resource = "clusterrolebindings", .kind = "ClusterRoleBinding",
                                          .singular = "clusterrolebinding", .namespaced = false};
  auto strategy = std::make_shared<rbac::BindingStrategy>(
      false, std::vector<std::string>{"ClusterRole"}, "clusterRoleBinding",
      "RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the "
      "Authorizer must return an error. This field is immutable.",
      std::move(escalation));
  return {std::move(definition), std::move(strategy)};
}

}  // namespace kapi::apis
