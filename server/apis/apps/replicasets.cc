// apps/v1 ReplicaSet (pkg/registry/apps/replicaset, ValidateReplicaSet, printReplicaSet).
#include "server/apis/apps/apps.h"
#include "server/apis/apps/workload.h"
#include "server/registry/object_meta.h"

namespace kapi::apis {
namespace {

using namespace apps;

class ReplicaSetStrategy final : public WorkloadStrategy {
 public:
  void apply_scheme_defaults(json::object& object) const override { apply_defaults(object); }
  void prepare_for_create(json::object& object) const override {
    object["status"] = json::object();
    apply_defaults(object);
  }
  void prepare_for_update(json::object& object, const json::object& /*old*/) const override { apply_defaults(object); }
  validation::ErrorList validate(const json::object& object) const override {
    validation::ErrorList errors = validate_workload_spec(object, {.kind = "deployment"});  // sic: ValidateReplicaSetSpec says so
    if (auto value = int_at(object_at(object, "spec"), "minReadySeconds"); value && *value < 0)
      errors.push_back(validation::invalid_value(validation::Path("spec").child("minReadySeconds"),
                                                 std::to_string(*value), "must be greater than or equal to 0"));
    return errors;
  }

  std::vector<registry::TableColumn> table_columns() const override {
    std::vector<registry::TableColumn> columns{registry::name_column(),
            {"Desired", "integer", "", "Number of desired pods. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1.", 0},
            {"Current", "integer", "", "Replicas is the most recently observed number of replicas.", 0},
            {"Ready", "integer", "", "The number of ready replicas for this replica set.", 0},
            registry::age_column()};
    auto wide = wide_columns("Selector is a label query over pods that should match the replica count.");
    columns.insert(columns.end(), wide.begin(), wide.end());
    return columns;
  }
  json::array table_cells(const json::object& object) const override {
    const json::object* spec = object_at(object, "spec");
    const json::object* status = object_at(object, "status");
    json::array cells{json::string(registry::meta_string(object, "name")),
                      int_or_zero(spec, "replicas"),
                      int_or_zero(status, "replicas"),
                      int_or_zero(status, "readyReplicas"),
                      json::string(registry::age_of(object))};
    append_wide_cells(cells, object, true);
    return cells;
  }

 private:
  static void apply_defaults(json::object& object) {
    json::object& spec = ensure_object(object, "spec");
    if (!int_at(&spec, "replicas")) spec["replicas"] = 1;
    apply_template_defaults(object);
  }
};

}  // namespace

ResourceStorage replicasets() {
  registry::ResourceDefinition definition{.group = "apps", .version = "v1", .resource = "replicasets",
                                          .kind = "ReplicaSet", .singular = "replicaset", .namespaced = true,
                                          .short_names = {"rs"}, .categories = {"all"},
                                          .storage_resource = "replicasets", .subresources = {"status", "scale"}};
  return {std::move(definition), std::make_shared<ReplicaSetStrategy>()};
}

}  // namespace kapi::apis
