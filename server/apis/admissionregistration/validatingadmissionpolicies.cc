// admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy (pkg/registry/admissionregistration/
// validatingadmissionpolicy/strategy.go, ValidateValidatingAdmissionPolicy and its status update,
// printers.printValidatingAdmissionPolicy). The policy's CEL is compiled at write (admission_validation.h); the
// strategy's authorization check of paramKind (the writer may read the param resource) is not made.
#include "server/apis/admissionregistration/admission_validation.h"
#include "server/apis/admissionregistration/admissionregistration.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"

#include <boost/json.hpp>

namespace kapi::apis {
namespace {

namespace json = boost::json;
using registry::fields::array_or_empty;
using registry::fields::object_at;
using registry::fields::object_or_empty;
using registry::fields::string_at;

class ValidatingAdmissionPolicyStrategy final : public registry::Strategy {
 public:
  void prepare_for_create(json::object& object) const override { object["status"] = json::object(); }
  void prepare_for_update(json::object& object, const json::object& old) const override {
    registry::fields::keep_status(object, old);
  }
  validation::ErrorList validate(const json::object& object) const override {
    return admissionregistration::validate_admission_policy(object);
  }
  validation::ErrorList validate_update(const json::object& object, const json::object& old) const override {
    return admissionregistration::validate_admission_policy_update(object, old);
  }
  validation::ErrorList validate_subresource_update(std::string_view subresource, const json::object& object,
                                                    const json::object& old) const override {
    if (subresource == "status") return admissionregistration::validate_admission_policy_status(object);
    return validate_update(object, old);
  }
  bool tracks_generation() const override { return true; }

  std::vector<registry::TableColumn> table_columns() const override {
    return {registry::name_column(),
            {"Validations", "integer", "",
             "Validations indicates the number of validation rules defined in this configuration", 0},
            {"ParamKind", "string", "", "ParamKind specifies the kind of resources used to parameterize this policy", 0},
            registry::age_column()};
  }
  json::array table_cells(const json::object& object) const override {
    const json::object& spec = object_or_empty(object, "spec");
    std::string param_kind = "<unset>";
    if (const json::object* kind = object_at(spec, "paramKind"))
      param_kind = std::string(string_at(*kind, "apiVersion")) + "/" + std::string(string_at(*kind, "kind"));
    return {json::string(registry::meta_string(object, "name")),
            static_cast<std::int64_t>(array_or_empty(spec, "validations").size()), json::string(param_kind),
            json::string(registry::age_of(object))};
  }
};

}  // namespace

ResourceStorage validatingadmissionpolicies() {
  registry::ResourceDefinition definition{.group = std::string(admissionregistration::kGroupName), .version = "v1",
                                          .resource = "validatingadmissionpolicies",
                                          .kind = "ValidatingAdmissionPolicy",
                                          .singular = "validatingadmissionpolicy", .namespaced = false,
                                          .categories = {"api-extensions"}, .subresources = {"status"}};
  return {std::move(definition), std::make_shared<ValidatingAdmissionPolicyStrategy>()};
}

}  // namespace kapi::apis
