// apps/v1 StatefulSet (pkg/registry/apps/statefulset, SetDefaults_StatefulSet, ValidateStatefulSet, printStatefulSet).
#include "server/apis/apps/apps.h"
#include "server/apis/apps/workload.h"
#include "server/registry/object_meta.h"

namespace kapi::apis {
namespace {

using namespace apps;

class StatefulSetStrategy final : public WorkloadStrategy {
 public:
  void apply_scheme_defaults(json::object& object) const override { apply_defaults(object); }
  void prepare_for_create(json::object& object) const override {
    object["status"] = json::object();
    apply_defaults(object);
  }
  void prepare_for_update(json::object& object, const json::object& /*old*/) const override { apply_defaults(object); }
  validation::ErrorList validate(const json::object& object) const override {
    validation::ErrorList errors = validate_workload_spec(object, {.kind = "statefulset"});
    const json::object* spec = object_at(object, "spec");
    std::string_view policy = string_at(spec, "podManagementPolicy");
    if (!policy.empty() && policy != "OrderedReady" && policy != "Parallel")
      errors.push_back(validation::invalid(validation::Path("spec").child("podManagementPolicy"), policy,
                                           "must be 'OrderedReady' or 'Parallel'"));
    return errors;
  }
  // ValidateStatefulSetUpdate: only these members of the spec may change (the selector is not one of them, so it
  // needs no rule of its own).
  validation::ErrorList validate_update(const json::object& object, const json::object& old) const override {
    validation::ErrorList errors = validate(object);
    auto fixed_part = [](const json::object& workload) {
      const json::object* spec = object_at(workload, "spec");
      json::object rest = spec ? *spec : json::object();
      for (const char* member : {"replicas", "ordinals", "template", "updateStrategy",
                                 "persistentVolumeClaimRetentionPolicy", "minReadySeconds"})
        rest.erase(member);
      return rest;
    };
    if (fixed_part(object) != fixed_part(old))
      errors.push_back(validation::forbidden(
          validation::Path("spec"),
          "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', "
          "'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"));
    return errors;
  }

  std::vector<registry::TableColumn> table_columns() const override {
    std::vector<registry::TableColumn> columns{registry::name_column(),
                                               {"Ready", "string", "", "Number of the pod with ready state", 0},
                                               registry::age_column()};
    auto wide = wide_columns("");
    columns.insert(columns.end(), wide.begin(), wide.end());
    return columns;
  }
  json::array table_cells(const json::object& object) const override {
    std::string ready = std::to_string(int_or_zero(object_at(object, "status"), "readyReplicas")) + "/" +
                        std::to_string(int_or_zero(object_at(object, "spec"), "replicas"));
    json::array cells{json::string(registry::meta_string(object, "name")), json::string(ready),
                      json::string(registry::age_of(object))};
    append_wide_cells(cells, object, false);
    return cells;
  }

 private:
  static void apply_defaults(json::object& object) {
    json::object& spec = ensure_object(object, "spec");
    if (!int_at(&spec, "replicas")) spec["replicas"] = 1;
    if (!int_at(&spec, "revisionHistoryLimit")) spec["revisionHistoryLimit"] = 10;
    if (string_at(&spec, "podManagementPolicy").empty()) spec["podManagementPolicy"] = "OrderedReady";
    json::object& strategy = ensure_object(spec, "updateStrategy");
    if (string_at(&strategy, "type").empty()) strategy["type"] = "RollingUpdate";
    if (string_at(&strategy, "type") == "RollingUpdate") {
      json::object& rolling = ensure_object(strategy, "rollingUpdate");
      if (!int_at(&rolling, "partition")) rolling["partition"] = 0;
    }
    json::object& retention = ensure_object(spec, "persistentVolumeClaimRetentionPolicy");
    if (string_at(&retention, "whenDeleted").empty()) retention["whenDeleted"] = "Retain";
    if (string_at(&retention, "whenScaled").empty()) retention["whenScaled"] = "Retain";
    apply_template_defaults(object);
  }
};

}  // namespace

ResourceStorage statefulsets() {
  registry::ResourceDefinition definition{.group = "apps", .version = "v1", .resource = "statefulsets",
                                          .kind = "StatefulSet", .singular = "statefulset", .namespaced = true,
                                          .short_names = {"sts"}, .categories = {"all"},
                                          .storage_resource = "statefulsets", .subresources = {"status", "scale"}};
  return {std::move(definition), std::make_shared<StatefulSetStrategy>()};
}

}  // namespace kapi::apis
