// apps/v1 Deployment (pkg/registry/apps/deployment, SetDefaults_Deployment, ValidateDeployment, printDeployment).
#include "server/apis/apps/apps.h"
#include "server/apis/apps/workload.h"
#include "server/apis/resource_storage.h"
#include "server/registry/object_meta.h"

namespace kapi::apis {
namespace {

using namespace apps;

class DeploymentStrategy final : public WorkloadStrategy {
 public:
  void apply_scheme_defaults(json::object& object) const override { apply_defaults(object); }
  void prepare_for_create(json::object& object) const override {
    object["status"] = json::object();
    apply_defaults(object);
  }
  void prepare_for_update(json::object& object, const json::object& /*old*/) const override { apply_defaults(object); }
  // deploymentStatusStrategy.GetResetFields: a status write owns neither the spec nor the labels.
  std::optional<std::vector<std::vector<std::string>>> reset_fields(std::string_view subresource) const override {
    if (subresource == "status") return std::vector<std::vector<std::string>>{{"spec"}, {"metadata", "labels"}};
    return std::vector<std::vector<std::string>>{{"status"}};
  }
  validation::ErrorList validate(const json::object& object) const override {
    validation::ErrorList errors = validate_workload_spec(object, {.kind = "deployment"});
    const json::object* spec = object_at(object, "spec");
    const json::object* strategy = spec ? object_at(*spec, "strategy") : nullptr;
    std::string_view type = string_at(strategy, "type");
    validation::Path strategy_path = validation::Path("spec").child("strategy");
    if (type == "Recreate" && strategy && object_at(*strategy, "rollingUpdate"))
      errors.push_back(validation::forbidden(strategy_path.child("rollingUpdate"),
                                             "may not be specified when strategy `type` is 'Recreate'"));
    else if (!type.empty() && type != "Recreate" && type != "RollingUpdate")
      errors.push_back(validation::not_supported(strategy_path.child("type"), type, {"Recreate", "RollingUpdate"}));
    for (const char* member : {"revisionHistoryLimit", "progressDeadlineSeconds", "minReadySeconds"})
      if (auto value = int_at(spec, member); value && *value < 0)
        errors.push_back(validation::invalid_value(validation::Path("spec").child(member), std::to_string(*value),
                                                   "must be greater than or equal to 0"));
    return errors;
  }

  std::vector<registry::TableColumn> table_columns() const override {
    std::vector<registry::TableColumn> columns{registry::name_column(),
            {"Ready", "string", "", "Number of the pod with ready state", 0},
            {"Up-to-date", "string", "", "Total number of non-terminated pods targeted by this deployment that have the desired template spec.", 0},
            {"Available", "string", "", "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.", 0},
            registry::age_column()};
    auto wide = wide_columns("Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.");
    columns.insert(columns.end(), wide.begin(), wide.end());
    return columns;
  }
  json::array table_cells(const json::object& object) const override {
    const json::object* spec = object_at(object, "spec");
    const json::object* status = object_at(object, "status");
    std::string ready = std::to_string(int_or_zero(status, "readyReplicas")) + "/" +
                        std::to_string(int_or_zero(spec, "replicas"));
    json::array cells{json::string(registry::meta_string(object, "name")),
                      json::string(ready),
                      int_or_zero(status, "updatedReplicas"),
                      int_or_zero(status, "availableReplicas"),
                      json::string(registry::age_of(object))};
    append_wide_cells(cells, object, true);
    return cells;
  }

 private:
  // The conditional part of SetDefaults_Deployment (the +default markers did the rest while decoding).
  static void apply_defaults(json::object& object) {
    json::object& spec = ensure_object(object, "spec");
    if (!int_at(&spec, "replicas")) spec["replicas"] = 1;
    if (!int_at(&spec, "revisionHistoryLimit")) spec["revisionHistoryLimit"] = 10;
    if (!int_at(&spec, "progressDeadlineSeconds")) spec["progressDeadlineSeconds"] = 600;
    json::object& strategy = ensure_object(spec, "strategy");
    if (string_at(&strategy, "type").empty()) strategy["type"] = "RollingUpdate";
    if (string_at(&strategy, "type") == "RollingUpdate") {
      json::object& rolling = ensure_object(strategy, "rollingUpdate");
      if (!rolling.contains("maxUnavailable")) rolling["maxUnavailable"] = "25%";
      if (!rolling.contains("maxSurge")) rolling["maxSurge"] = "25%";
    }
    apply_template_defaults(object);
  }
};

}  // namespace

ResourceStorage deployments() {
  registry::ResourceDefinition definition{.group = "apps", .version = "v1", .resource = "deployments",
                                          .kind = "Deployment", .singular = "deployment", .namespaced = true,
                                          .short_names = {"deploy"}, .categories = {"all"},
                                          .storage_resource = "deployments", .subresources = {"status", "scale"}};
  return {std::move(definition), std::make_shared<DeploymentStrategy>()};
}

}  // namespace kapi::apis
