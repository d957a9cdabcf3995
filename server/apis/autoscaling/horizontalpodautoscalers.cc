// HorizontalPodAutoscaler (pkg/registry/autoscaling/horizontalpodautoscaler, SetDefaults_HorizontalPodAutoscaler in
// pkg/apis/autoscaling/v2/defaults.go, printHorizontalPodAutoscaler): stored as autoscaling/v2, served at v2 and,
// through kube's conversion, at v1. Status is written through its subresource only; kube counts no generation.
#include "server/apis/autoscaling/autoscaling.h"
#include "server/apis/autoscaling/hpa.h"

#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"

#include <boost/json.hpp>

namespace kapi::apis {
namespace {

namespace json = boost::json;
using namespace registry::fields;

constexpr std::int64_t kDefaultCpuUtilization = 80;

json::object policy(std::string_view type, std::int64_t value, std::int64_t period_seconds) {
  return {{"type", type}, {"value", value}, {"periodSeconds", period_seconds}};
}

// GenerateHPAScaleUpRules / GenerateHPAScaleDownRules: the defaults, with whatever the rules set kept.
json::object scaling_rules(const json::value* rules, bool up) {
  json::object out;
  if (up) out["stabilizationWindowSeconds"] = 0;
  out["selectPolicy"] = "Max";
  out["policies"] = up ? json::array{policy("Pods", 4, 15), policy("Percent", 100, 15)}
                       : json::array{policy("Percent", 100, 15)};
  if (rules && rules->is_object())
    for (std::string_view key : {"stabilizationWindowSeconds", "selectPolicy", "policies"})
      if (const json::value* set = rules->as_object().if_contains(key); set && !set->is_null()) out[key] = *set;
  return out;
}

void set_hpa_defaults(json::object& hpa) {
  json::object& spec = ensure_object(hpa, "spec");
  if (!int_at(spec, "minReplicas")) spec["minReplicas"] = 1;
  const json::array* metrics = array_at(spec, "metrics");
  if (!metrics || metrics->empty())
    spec["metrics"] = json::array{json::object{
        {"type", "Resource"},
        {"resource", json::object{{"name", "cpu"},
                                  {"target", json::object{{"type", "Utilization"},
                                                          {"averageUtilization", kDefaultCpuUtilization}}}}}}};
  if (json::object* behavior = object_at(spec, "behavior")) {
    (*behavior)["scaleUp"] = scaling_rules(behavior->if_contains("scaleUp"), true);
    (*behavior)["scaleDown"] = scaling_rules(behavior->if_contains("scaleDown"), false);
  }
}

// formatHPAMetrics: each metric's current value against its target, two at most.
std::string format_metrics(const json::object* spec, const json::object* status) {
  const json::array* specs = array_at(spec, "metrics");
  if (!specs || specs->empty()) return "<none>";
  const json::array* statuses = array_at(status, "currentMetrics");
  auto status_of = [&](std::size_t i, std::string_view kind) -> const json::object* {
    if (!statuses || i >= statuses->size() || !(*statuses)[i].is_object()) return nullptr;
    return object_at((*statuses)[i].as_object(), kind);
  };
  auto text = [](const json::object* object, std::string_view key) -> std::string {
    const json::value* value = object ? object->if_contains(key) : nullptr;
    if (!value || value->is_null()) return "<unknown>";
    return value->is_string() ? std::string(value->as_string()) : json::serialize(*value);
  };
  std::vector<std::string> list;
  for (std::size_t i = 0; i < specs->size(); ++i) {
    const json::object* metric = (*specs)[i].if_object();
    const std::string_view type = string_at(metric, "type");
    if (type == "External" || type == "Object") {
      const std::string_view kind = type == "External" ? "external" : "object";
      const json::object* target = object_at(object_at(metric, kind), "target");
      const json::object* current = object_at(status_of(i, kind), "current");
      if (int_at(target, "averageValue") || !string_at(target, "averageValue").empty())
        list.push_back(text(current, "averageValue") + "/" + text(target, "averageValue") + " (avg)");
      else
        list.push_back(text(current, "value") + "/" + text(target, "value"));
    } else if (type == "Pods") {
      list.push_back(text(object_at(status_of(i, "pods"), "current"), "averageValue") + "/" +
                     text(object_at(object_at(metric, "pods"), "target"), "averageValue"));
    } else if (type == "Resource" || type == "ContainerResource") {
      const std::string_view kind = type == "Resource" ? "resource" : "containerResource";
      const json::object* source = object_at(metric, kind);
      const json::object* target = object_at(source, "target");
      const json::object* current = object_at(status_of(i, kind), "current");
      const std::string name(string_at(source, "name"));
      if (target && target->contains("averageValue") && !target->at("averageValue").is_null()) {
        list.push_back(name + ": " + text(current, "averageValue") + "/" + text(target, "averageValue"));
      } else {
        auto utilization = int_at(current, "averageUtilization");
        auto wanted = int_at(target, "averageUtilization");
        list.push_back(name + ": " + (utilization ? std::to_string(*utilization) + "%" : "<unknown>") + "/" +
                       (wanted ? std::to_string(*wanted) + "%" : "<auto>"));
      }
    } else {
      list.push_back("<unknown type>");
    }
  }
  constexpr std::size_t kShown = 2;
  std::string out;
  for (std::size_t i = 0; i < list.size() && i < kShown; ++i) out += (i ? ", " : "") + list[i];
  if (list.size() > kShown) out += " + " + std::to_string(list.size() - kShown) + " more...";
  return out;
}

class HorizontalPodAutoscalerStrategy final : public registry::Strategy {
 public:
  void apply_scheme_defaults(json::object& object) const override { set_hpa_defaults(object); }
  void prepare_for_create(json::object& hpa) const override {
    set_hpa_defaults(hpa);
    hpa["status"] = json::object{{"desiredReplicas", 0}, {"currentMetrics", nullptr}};
  }
  void prepare_for_update(json::object& hpa, const json::object& old) const override {
    set_hpa_defaults(hpa);
    if (const json::value* status = old.if_contains("status")) hpa["status"] = *status;
  }
  validation::ErrorList validate(const json::object& hpa) const override {
    return autoscaling::validate_hpa_spec(hpa, 1);
  }
  validation::ErrorList validate_update(const json::object& hpa, const json::object& old) const override {
    // An autoscaler that already scales to zero may keep doing so.
    const bool scales_to_zero = int_at(object_at(old, "spec"), "minReplicas") == std::optional<std::int64_t>(0);
    validation::ErrorList errors = autoscaling::validate_hpa_spec(hpa, scales_to_zero ? 0 : 1);
    for (auto& error : autoscaling::validate_hpa_status(hpa)) errors.push_back(std::move(error));
    return errors;
  }

  std::vector<registry::TableColumn> table_columns() const override {
    return {registry::name_column(),
            {"Reference", "string", "",
             "reference to scaled resource; horizontal pod autoscaler will learn the current resource consumption and "
             "will set the desired number of pods by using its Scale subresource.",
             0},
            {"Targets", "string", "", "the target value of the metric, and the current value observed", 0},
            {"MinPods", "string", "",
             "lower limit for the number of pods that can be set by the autoscaler, default 1.", 0},
            {"MaxPods", "integer", "",
             "upper limit for the number of pods that can be set by the autoscaler; cannot be smaller than MinReplicas.",
             0},
            {"Replicas", "integer", "", "current number of replicas of pods managed by this autoscaler.", 0},
            registry::age_column()};
  }
  json::array table_cells(const json::object& hpa) const override {
    const json::object* spec = object_at(hpa, "spec");
    const json::object* status = object_at(hpa, "status");
    const json::object* target = object_at(spec, "scaleTargetRef");
    auto min_replicas = int_at(spec, "minReplicas");
    return {json::string(registry::meta_string(hpa, "name")),
            json::string(std::string(string_at(target, "kind")) + "/" + std::string(string_at(target, "name"))),
            json::string(format_metrics(spec, status)),
            json::string(min_replicas ? std::to_string(*min_replicas) : "<unset>"),
            int_or_zero(spec, "maxReplicas"),
            int_or_zero(status, "currentReplicas"),
            json::string(registry::age_of(hpa))};
  }
};

registry::ResourceDefinition definition(std::string version) {
  return {.group = "autoscaling",
          .version = std::move(version),
          .resource = "horizontalpodautoscalers",
          .kind = "HorizontalPodAutoscaler",
          .singular = "horizontalpodautoscaler",
          .namespaced = true,
          .short_names = {"hpa"},
          .categories = {"all"},
          .storage_resource = "horizontalpodautoscalers",
          .subresources = {"status"}};
}

}  // namespace

ResourceStorage horizontalpodautoscalers_v2() {
  return {definition("v2"), std::make_shared<HorizontalPodAutoscalerStrategy>()};
}

ResourceStorage horizontalpodautoscalers_v1() {
  return {definition("v1"), std::make_shared<HorizontalPodAutoscalerStrategy>(), autoscaling::hpa_v1_conversion()};
}

}  // namespace kapi::apis
