// apps/v1 DaemonSet (pkg/registry/apps/daemonset, SetDefaults_DaemonSet, ValidateDaemonSet, printDaemonSet).
#include "server/apis/apps/apps.h"
#include "server/apis/apps/workload.h"
#include "server/registry/object_meta.h"

#include <map>

namespace kapi::apis {
namespace {

using namespace apps;

class DaemonSetStrategy final : public WorkloadStrategy {
 public:
  void apply_scheme_defaults(json::object& object) const override { apply_defaults(object); }
  void prepare_for_create(json::object& object) const override {
    object["status"] = json::object();
    apply_defaults(object);
  }
  void prepare_for_update(json::object& object, const json::object& /*old*/) const override { apply_defaults(object); }
  validation::ErrorList validate(const json::object& object) const override {
    return validate_workload_spec(object, {.kind = "daemonset", .has_replicas = false});
  }

  std::vector<registry::TableColumn> table_columns() const override {
    std::vector<registry::TableColumn> columns{registry::name_column(),
            {"Desired", "integer", "", "The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod).", 0},
            {"Current", "integer", "", "The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod.", 0},
            {"Ready", "integer", "", "numberReady is the number of nodes that should be running the daemon pod and have one or more of the daemon pod running with a Ready Condition.", 0},
            {"Up-to-date", "integer", "", "The total number of nodes that are running updated daemon pod", 0},
            {"Available", "integer", "", "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)", 0},
            {"Node Selector", "string", "", "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node's labels for the pod to be scheduled on that node.", 0},
            registry::age_column()};
    auto wide = wide_columns("A label query over pods that are managed by the daemon set.");
    columns.insert(columns.end(), wide.begin(), wide.end());
    return columns;
  }
  json::array table_cells(const json::object& object) const override {
    const json::object* status = object_at(object, "status");
    json::array cells{json::string(registry::meta_string(object, "name")),
            int_or_zero(status, "desiredNumberScheduled"),
            int_or_zero(status, "currentNumberScheduled"),
            int_or_zero(status, "numberReady"),
            int_or_zero(status, "updatedNumberScheduled"),
            int_or_zero(status, "numberAvailable"),
            json::string(node_selector(object)),
            json::string(registry::age_of(object))};
    append_wide_cells(cells, object, true);
    return cells;
  }

 private:
  // labels.FormatLabels of the template's nodeSelector: "k=v,..." sorted, "<none>" when empty.
  static std::string node_selector(const json::object& object) {
    const json::object* spec = object_at(object, "spec");
    const json::object* template_ = spec ? object_at(*spec, "template") : nullptr;
    const json::object* pod_spec = template_ ? object_at(*template_, "spec") : nullptr;
    const json::object* selector = pod_spec ? object_at(*pod_spec, "nodeSelector") : nullptr;
    std::map<std::string, std::string> sorted;
    if (selector)
      for (const auto& [key, value] : *selector)
        if (value.is_string()) sorted.emplace(std::string(key), std::string(value.as_string()));
    std::string out;
    for (const auto& [key, value] : sorted) out += (out.empty() ? "" : ",") + key + "=" + value;
    return out.empty() ? "<none>" : out;
  }
  static void apply_defaults(json::object& object) {
    json::object& spec = ensure_object(object, "spec");
    if (!int_at(&spec, "revisionHistoryLimit")) spec["revisionHistoryLimit"] = 10;
    json::object& strategy = ensure_object(spec, "updateStrategy");
    if (string_at(&strategy, "type").empty()) strategy["type"] = "RollingUpdate";
    if (string_at(&strategy, "type") == "RollingUpdate") {
      json::object& rolling = ensure_object(strategy, "rollingUpdate");
      if (!rolling.contains("maxUnavailable")) rolling["maxUnavailable"] = 1;
      if (!rolling.contains("maxSurge")) rolling["maxSurge"] = 0;
    }
    apply_template_defaults(object);
  }
};

}  // namespace

ResourceStorage daemonsets() {
  registry::ResourceDefinition definition{.group = "apps", .version = "v1", .resource = "daemonsets",
                                          .kind = "DaemonSet", .singular = "daemonset", .namespaced = true,
                                          .short_names = {"ds"}, .categories = {"all"},
                                          .storage_resource = "daemonsets", .subresources = {"status"}};
  return {std::move(definition), std::make_shared<DaemonSetStrategy>()};
}

}  // namespace kapi::apis
