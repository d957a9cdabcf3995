// rbac.authorization.k8s.io/v1 RoleBinding (pkg/registry/rbac/rolebinding, ValidateRoleBinding, printRoleBinding).
#include "server/apis/rbac/rbac_validation.h"
#include "server/apis/resource_storage.h"

namespace kapi::apis {
namespace {

class RoleBindingStrategy final : public registry::Strategy {
 public:
  void prepare_for_create(boost::json::object& binding) const override { rbac::default_binding(binding); }
  void prepare_for_update(boost::json::object& binding, const boost::json::object&) const override {
    rbac::default_binding(binding);
  }
  validation::ErrorList validate(const boost::json::object& binding) const override {
    return rbac::validate_binding(binding, /*namespaced=*/true, {"Role", "ClusterRole"});
  }
  validation::ErrorList validate_update(const boost::json::object& binding,
                                        const boost::json::object& old) const override {
    validation::ErrorList errors = validate(binding);
    validation::ErrorList immutable = rbac::validate_role_ref_unchanged(binding, old);
    errors.insert(errors.end(), immutable.begin(), immutable.end());
    return errors;
  }
  bool name_is_path_segment() const override { return true; }
  bool allow_create_on_update() const override { return true; }

  std::vector<registry::TableColumn> table_columns() const override {
    return rbac::binding_columns("roleBinding",
                                 "RoleRef can reference a Role in the current namespace or a ClusterRole in the global "
                                 "namespace. If the RoleRef cannot be resolved, the Authorizer must return an error. "
                                 "This field is immutable.");
  }
  boost::json::array table_cells(const boost::json::object& binding) const override {
    return rbac::binding_cells(binding);
  }
};

}  // namespace

ResourceStorage rolebindings() {
  registry::ResourceDefinition definition{.group = "rbac.authorization.k8s.io", .version = "v1",
                                          .resource = "rolebindings", .kind = "RoleBinding",
                                          .singular = "rolebinding", .namespaced = true};
  return {std::move(definition), std::make_shared<RoleBindingStrategy>()};
}

}  // namespace kapi::apis
