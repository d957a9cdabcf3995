// policy/v1 PodDisruptionBudget (pkg/registry/policy/poddisruptionbudget/strategy.go; pkg/apis/policy/validation
// ValidatePodDisruptionBudget and ValidatePodDisruptionBudgetStatusUpdate; printers.printPodDisruptionBudget).
#include "base/go_regexp.h"
#include "server/apis/apps/workload.h"
#include "server/apis/policy/policy.h"
#include "server/registry/object_meta.h"
#include "server/validation/object_meta.h"


namespace kapi::apis {
namespace {

using namespace apps;
using validation::Path;

// intstr.IntOrString as field errors print it (%#v: it has no value-receiver String method).
std::string int_or_string_literal(const json::value& value) {
  if (value.is_string())
    return "intstr.IntOrString{Type:1, IntVal:0, StrVal:" + validation::quoted(value.as_string()) + "}";
  return "intstr.IntOrString{Type:0, IntVal:" + std::to_string(value.is_int64() ? value.as_int64() : 0) +
         ", StrVal:\"\"}";
}

// IntOrString.String(): the number, or the string as is.
std::string int_or_string_text(const json::value& value) {
  if (value.is_string()) return std::string(value.as_string());
  if (value.is_int64()) return std::to_string(value.as_int64());
  if (value.is_uint64()) return std::to_string(value.as_uint64());
  return "0";
}

// ValidatePositiveIntOrPercent and IsNotMoreThan100Percent.
void validate_int_or_percent(validation::ErrorList& errors, const json::value& value, const Path& path) {
  if (value.is_string()) {
    static const RE2 kPercent("^[0-9]+%$", base::go_regexp_options());
    const std::string text(value.as_string());
    if (!RE2::FullMatch(text, kPercent)) {
      errors.push_back(validation::invalid_value(
          path, int_or_string_literal(value),
          "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex "
          "used for validation is '[0-9]+%')"));
      return;
    }
    if (std::stoll(text.substr(0, std::min<std::size_t>(text.size() - 1, 18))) > 100)
      errors.push_back(validation::invalid_value(path, int_or_string_literal(value), "must not be greater than 100%"));
    return;
  }
  const std::int64_t number = value.is_int64() ? value.as_int64() : 0;
  if (number < 0)
    errors.push_back(validation::invalid_value(path, std::to_string(number), "must be greater than or equal to 0"));
}

class PodDisruptionBudgetStrategy final : public registry::Strategy {
 public:
  bool tracks_generation() const override { return true; }
  // PodDisruptionBudgetStatus{} as kube writes it: the four counters have no omitempty.
  void prepare_for_create(json::object& object) const override {
    object["status"] = json::object{{"disruptionsAllowed", 0}, {"currentHealthy", 0}, {"desiredHealthy", 0},
                                    {"expectedPods", 0}};
  }

  validation::ErrorList validate(const json::object& object) const override {
    validation::ErrorList errors;
    const Path spec_path("spec");
    const json::object* spec = object_at(object, "spec");
    const json::value* min_available = spec ? spec->if_contains("minAvailable") : nullptr;
    const json::value* max_unavailable = spec ? spec->if_contains("maxUnavailable") : nullptr;
    if (min_available && max_unavailable)
      errors.push_back(validation::invalid_value(spec_path, "policy.PodDisruptionBudgetSpec{...}",
                                                 "minAvailable and maxUnavailable cannot be both set"));
    if (min_available) validate_int_or_percent(errors, *min_available, spec_path.child("minAvailable"));
    if (max_unavailable) validate_int_or_percent(errors, *max_unavailable, spec_path.child("maxUnavailable"));
    if (const json::object* selector = object_at(spec, "selector")) {
      if (const json::object* match_labels = object_at(*selector, "matchLabels"))
        for (auto& error : validation::validate_labels(*match_labels, spec_path.child("selector").child("matchLabels")))
          errors.push_back(std::move(error));
      if (!selector_string(selector))
        errors.push_back(validation::invalid_value(spec_path.child("selector"), label_selector_literal(selector),
                                                   "invalid label selector"));
    }
    if (spec && spec->contains("unhealthyPodEvictionPolicy")) {
      std::string_view policy = string_at(spec, "unhealthyPodEvictionPolicy");
      if (policy != "AlwaysAllow" && policy != "IfHealthyBudget")
        errors.push_back(validation::not_supported(spec_path.child("unhealthyPodEvictionPolicy"), policy,
                                                   {"AlwaysAllow", "IfHealthyBudget"}));
    }
    return errors;
  }
  // The spec is mutable (since kube 1.15); a status write checks the counters (ValidatePodDisruptionBudgetStatusUpdate).
  validation::ErrorList validate_update(const json::object& object, const json::object& /*old*/) const override {
    validation::ErrorList errors = validate(object);
    const json::object* status = object_at(object, "status");
    for (std::string_view member : {"disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods"})
      if (auto value = int_at(status, member); value && *value < 0)
        errors.push_back(validation::invalid_value(Path("status").child(member), std::to_string(*value),
                                                   "must be greater than or equal to 0"));
    return errors;
  }

  std::vector<registry::TableColumn> table_columns() const override {
    return {registry::name_column(),
            {"Min Available", "string", "", "The minimum number of pods that must be available.", 0},
            {"Max Unavailable", "string", "", "The maximum number of pods that may be unavailable.", 0},
            {"Allowed Disruptions", "integer", "", "Calculated number of pods that may be disrupted at this time.", 0},
            registry::age_column()};
  }
  json::array table_cells(const json::object& object) const override {
    const json::object* spec = object_at(object, "spec");
    auto bound = [spec](std::string_view member) {
      const json::value* value = spec ? spec->if_contains(member) : nullptr;
      return json::string(value ? int_or_string_text(*value) : "N/A");
    };
    return {json::string(registry::meta_string(object, "name")), bound("minAvailable"), bound("maxUnavailable"),
            int_or_zero(object_at(object, "status"), "disruptionsAllowed"), json::string(registry::age_of(object))};
  }
};

}  // namespace

ResourceStorage poddisruptionbudgets() {
  registry::ResourceDefinition definition{.group = "policy", .version = "v1", .resource = "poddisruptionbudgets",
                                          .kind = "PodDisruptionBudget", .singular = "poddisruptionbudget",
                                          .namespaced = true, .short_names = {"pdb"},
                                          .storage_resource = "poddisruptionbudgets", .subresources = {"status"}};
  return {std::move(definition), std::make_shared<PodDisruptionBudgetStrategy>()};
}

}  // namespace kapi::apis
