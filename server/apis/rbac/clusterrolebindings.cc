// rbac.authorization.k8s.io/v1 ClusterRoleBinding (pkg/registry/rbac/clusterrolebinding,
// ValidateClusterRoleBinding, printClusterRoleBinding).
#include "server/apis/rbac/rbac_validation.h"
#include "server/apis/resource_storage.h"

namespace kapi::apis {
namespace {

class ClusterRoleBindingStrategy final : public registry::Strategy {
 public:
  void prepare_for_create(boost::json::object& binding) const override { rbac::default_binding(binding); }
  void prepare_for_update(boost::json::object& binding, const boost::json::object&) const override {
    rbac::default_binding(binding);
  }
  // Subjects of a cluster-wide binding name their service accounts' namespaces.
  validation::ErrorList validate(const boost::json::object& binding) const override {
    return rbac::validate_binding(binding, /*namespaced=*/false, {"ClusterRole"});
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
    return rbac::binding_columns("clusterRoleBinding",
                                 "RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef "
                                 "cannot be resolved, the Authorizer must return an error. This field is immutable.");
  }
  boost::json::array table_cells(const boost::json::object& binding) const override {
    return rbac::binding_cells(binding);
  }
};

}  // namespace

ResourceStorage clusterrolebindings() {
  registry::ResourceDefinition definition{.group = "rbac.authorization.k8s.io", .version = "v1",
                                          .resource = "clusterrolebindings", .kind = "ClusterRoleBinding",
                                          .singular = "clusterrolebinding", .namespaced = false};
  return {std::move(definition), std::make_shared<ClusterRoleBindingStrategy>()};
}

}  // namespace kapi::apis
