// rbac.authorization.k8s.io/v1 ClusterRole (pkg/registry/rbac/clusterrole, ValidateClusterRole, printClusterRole).
#include "server/apis/rbac/rbac_validation.h"
#include "server/apis/resource_storage.h"

namespace kapi::apis {
namespace {

class ClusterRoleStrategy final : public registry::Strategy {
 public:
  explicit ClusterRoleStrategy(std::shared_ptr<const authorization::rbac::EscalationCheck> escalation)
      : escalation_(std::move(escalation)) {}
  validation::ErrorList validate(const boost::json::object& role) const override {
    validation::ErrorList errors = rbac::validate_rules(role, /*namespaced=*/false);
    validation::ErrorList aggregation = rbac::validate_aggregation_rule(role);
    errors.insert(errors.end(), aggregation.begin(), aggregation.end());
    return errors;
  }
  bool name_is_path_segment() const override { return true; }
  bool allow_create_on_update() const override { return true; }
  // printClusterRole: Name and Created At (RFC 3339), kube's default columns.
  void authorize_write(const request::UserInfo& user, const boost::json::object& role,
                       const boost::json::object* old) const override {
    escalation_->check_role(user, role, old);
  }

 private:
  std::shared_ptr<const authorization::rbac::EscalationCheck> escalation_;
};

}  // namespace

ResourceStorage clusterroles(std::shared_ptr<const authorization::rbac::EscalationCheck> escalation) {
  registry::ResourceDefinition definition{.group = "rbac.authorization.k8s.io", .version = "v1",
                                          .resource = "clusterroles", .kind = "ClusterRole",
                                          .singular = "clusterrole", .namespaced = false};
  return {std::move(definition), std::make_shared<ClusterRoleStrategy>(std::move(escalation))};
}

}  // namespace kapi::apis
