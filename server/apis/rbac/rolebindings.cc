// rbac.authorization.k8s.io/v1 RoleBinding (pkg/registry/rbac/rolebinding, ValidateRoleBinding, printRoleBinding).
#include "server/apis/rbac/binding_strategy.h"
#include "server/apis/resource_storage.h"

namespace kapi::apis {

ResourceStorage rolebindings(std::shared_ptr<const authorization::rbac::EscalationCheck> escalation) {
  registry::ResourceDefinition definition{.group = "rbac.authorization.k8s.io", .version = "v1",
                                          .resource = "rolebindings", .kind = "RoleBinding",
                                          .singular = "rolebinding", .namespaced = true};
  auto strategy = std::make_shared<rbac::BindingStrategy>(
      true, std::vector<std::string>{"Role", "ClusterRole"}, "roleBinding",
      "RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the "
      "RoleRef cannot be resolved, the Authorizer must return an error. This field is immutable.",
      std::move(escalation));
  return {std::move(definition), std::move(strategy)};
}

}  // namespace kapi::apis
