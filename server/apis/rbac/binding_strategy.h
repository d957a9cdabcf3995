#pragma once
// The strategy of both bindings (pkg/registry/rbac/rolebinding and clusterrolebinding): they differ only in
// scope, the role kinds their roleRef may name, and how their printers describe it.
#include "server/apis/rbac/rbac_validation.h"
#include "server/authorization/rbac/escalation.h"
#include "server/registry/strategy.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace kapi::apis::rbac {

class BindingStrategy final : public registry::Strategy {
 public:
  // `noun` and `role_ref_description` as binding_columns takes them.
  BindingStrategy(bool namespaced, std::vector<std::string> role_kinds, std::string noun,
                  std::string role_ref_description,
                  std::shared_ptr<const authorization::rbac::EscalationCheck> escalation)
      : escalation_(std::move(escalation)),
        namespaced_(namespaced),
        role_kinds_(std::move(role_kinds)),
        noun_(std::move(noun)),
        role_ref_description_(std::move(role_ref_description)) {}

  void prepare_for_create(boost::json::object& binding) const override { default_binding(binding); }
  void prepare_for_update(boost::json::object& binding, const boost::json::object&) const override {
    default_binding(binding);
  }
  // A cluster-wide binding's service account subjects must name their namespaces.
  validation::ErrorList validate(const boost::json::object& binding) const override {
    return validate_binding(binding, namespaced_, role_kinds_);
  }
  validation::ErrorList validate_update(const boost::json::object& binding,
                                        const boost::json::object& old) const override {
    validation::ErrorList errors = validate(binding);
    validation::ErrorList immutable = validate_role_ref_unchanged(binding, old);
    errors.insert(errors.end(), immutable.begin(), immutable.end());
    return errors;
  }
  void authorize_write(const request::UserInfo& user, const boost::json::object& binding,
                       const boost::json::object* old) const override {
    escalation_->check_binding(user, binding, old);
  }
  bool name_is_path_segment() const override { return true; }
  bool allow_create_on_update() const override { return true; }

  std::vector<registry::TableColumn> table_columns() const override {
    return binding_columns(noun_, role_ref_description_);
  }
  boost::json::array table_cells(const boost::json::object& binding) const override { return binding_cells(binding); }

 private:
  std::shared_ptr<const authorization::rbac::EscalationCheck> escalation_;
  bool namespaced_;
  std::vector<std::string> role_kinds_;
  std::string noun_;
  std::string role_ref_description_;
};

}  // namespace kapi::apis::rbac
