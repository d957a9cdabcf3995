// admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding (pkg/registry/admissionregistration/
// validatingadmissionpolicybinding/strategy.go, ValidateValidatingAdmissionPolicyBinding,
// printers.printValidatingAdmissionPolicyBinding). The strategy's authorization check of the param resource (the
// writer may read what paramRef names) is not made.
#include "server/apis/admissionregistration/admission_validation.h"
#include "server/apis/admissionregistration/admissionregistration.h"
#include "server/apis/apps/workload.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"

#include <boost/json.hpp>

namespace kapi::apis {
namespace {

namespace json = boost::json;
using registry::fields::object_at;
using registry::fields::object_or_empty;
using registry::fields::string_at;

class ValidatingAdmissionPolicyBindingStrategy final : public registry::Strategy {
 public:
  validation::ErrorList validate(const json::object& object) const override {
    return admissionregistration::validate_policy_binding(object);
  }
  bool tracks_generation() const override { return true; }

  std::vector<registry::TableColumn> table_columns() const override {
    return {registry::name_column(),
            {"PolicyName", "string", "",
             "PolicyName indicates the policy definition which the policy binding binded to", 0},
            {"ParamRef", "string", "", "ParamRef indicates the param resource which sets the configration param", 0},
            registry::age_column()};
  }
  json::array table_cells(const json::object& object) const override {
    const json::object& spec = object_or_empty(object, "spec");
    // A named param without a namespace may be cluster-scoped or in every namespace: kube prints "*/".
    std::string param = "<unset>";
    if (const json::object* ref = object_at(spec, "paramRef")) {
      const std::string_view name = string_at(*ref, "name"), namespace_ = string_at(*ref, "namespace");
      if (!name.empty()) param = (namespace_.empty() ? std::string("*") : std::string(namespace_)) + "/" + std::string(name);
      else if (const json::object* selector = object_at(*ref, "selector")) param = apps::label_selector_literal(selector);
    }
    return {json::string(registry::meta_string(object, "name")), json::string(string_at(spec, "policyName")),
            json::string(param), json::string(registry::age_of(object))};
  }
};

}  // namespace

ResourceStorage validatingadmissionpolicybindings() {
  registry::ResourceDefinition definition{.group = std::string(admissionregistration::kGroupName), .version = "v1",
                                          .resource = "validatingadmissionpolicybindings",
                                          .kind = "ValidatingAdmissionPolicyBinding",
                                          .singular = "validatingadmissionpolicybinding", .namespaced = false,
                                          .categories = {"api-extensions"}};
  return {std::move(definition), std::make_shared<ValidatingAdmissionPolicyBindingStrategy>()};
}

}  // namespace kapi::apis
