// rbac.authorization.k8s.io/v1 Role (pkg/registry/rbac/role, ValidateRole, printRole).
#include "server/apis/rbac/rbac_validation.h"
#include "server/apis/resource_storage.h"

namespace kapi::apis {
namespace {

class RoleStrategy final : public registry::Strategy {
 public:
  explicit RoleStrategy(std::shared_ptr<const authorization::rbac::EscalationCheck> escalation)
      : escalation_(std::move(escalation)) {}
  validation::ErrorList validate(const boost::json::object& role) const override {
    return rbac::validate_rules(role, /*namespaced=*/true);
  }
  bool name_is_path_segment() const override { return true; }
  // Bootstrap policy reconciliation and `kubectl auth reconcile` PUT roles that may not exist yet.
  bool allow_create_on_update() const override { return true; }
  // printRole: Name and Created At (RFC 3339), kube's default columns.
  void authorize_write(const request::UserInfo& user, const boost::json::object& role,
                       const boost::json::object* old) const override {
    escalation_->check_role(user, role, old);
  }

 private:
  std::shared_ptr<const authorization::rbac::EscalationCheck> escalation_;
};

}  // namespace

ResourceStorage roles(std::shared_ptr<const authorization::rbac::EscalationCheck> escalation) {
  // As kube's: no short name, no category.
  registry::ResourceDefinition definition{.group = "rbac.authorization.k8s.io", .version = "v1", .resource = "roles",
                                          .kind = "Role", .singular = "role", .namespaced = true};
  return {std::move(definition), std::make_shared<RoleStrategy>(std::move(escalation))};
}

}  // namespace kapi::apis
