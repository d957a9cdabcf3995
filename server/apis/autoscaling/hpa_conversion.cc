// autoscaling/v1 ⇄ v2 HorizontalPodAutoscalers (pkg/apis/autoscaling/v1/conversion.go): v1 has one CPU
// utilization target, so the other metrics, the current metrics and the conditions travel in annotations,
// written as v1's own metric types, and are read back from them.
#include "server/apis/autoscaling/hpa.h"

#include "server/registry/json_fields.h"

#include <boost/json.hpp>

namespace kapi::apis::autoscaling {
namespace {

namespace json = boost::json;
using namespace registry::fields;

constexpr std::string_view kMetricSpecsAnnotation = "autoscaling.alpha.kubernetes.io/metrics";
constexpr std::string_view kMetricStatusesAnnotation = "autoscaling.alpha.kubernetes.io/current-metrics";
constexpr std::string_view kConditionsAnnotation = "autoscaling.alpha.kubernetes.io/conditions";
constexpr std::int64_t kDefaultCpuUtilization = 80;

// Copies `from[key]` to `to[as]` when present and not null.
void copy(const json::object* from, std::string_view key, json::object& to, std::string_view as) {
  if (!from) return;
  if (const json::value* value = from->if_contains(key); value && !value->is_null()) to[as] = *value;
}
void copy(const json::object* from, std::string_view key, json::object& to) { copy(from, key, to, key); }
json::value member_or(const json::object* from, std::string_view key, json::value fallback) {
  const json::value* value = from ? from->if_contains(key) : nullptr;
  return value && !value->is_null() ? *value : fallback;
}

json::object metric_identifier(const json::object* v1, std::string_view selector_key) {
  json::object id{{"name", member_or(v1, "metricName", "")}};
  copy(v1, selector_key, id, "selector");
  return id;
}

json::object reference(const json::object* ref) {
  json::object out{{"kind", member_or(ref, "kind", "")}, {"name", member_or(ref, "name", "")}};
  copy(ref, "apiVersion", out);
  return out;
}

// --- v2 → v1 -------------------------------------------------------------------------------------------------

json::object v1_metric_spec(const json::object& v2) {
  const std::string_view type = string_at(v2, "type");
  json::object out{{"type", type}};
  if (const json::object* object = object_at(v2, "object")) {
    const json::object* target = object_at(*object, "target");
    const json::object* metric = object_at(*object, "metric");
    json::object source{{"target", reference(object_at(*object, "describedObject"))},
                        {"metricName", member_or(metric, "name", "")},
                        {"targetValue", member_or(target, "value", "0")}};
    copy(metric, "selector", source);
    copy(target, "averageValue", source);
    out["object"] = std::move(source);
  }
  if (const json::object* pods = object_at(v2, "pods")) {
    const json::object* metric = object_at(*pods, "metric");
    json::object source{{"metricName", member_or(metric, "name", "")},
                        {"targetAverageValue", member_or(object_at(*pods, "target"), "averageValue", "0")}};
    copy(metric, "selector", source);
    out["pods"] = std::move(source);
  }
  for (std::string_view kind : {"resource", "containerResource"}) {
    if (const json::object* resource = object_at(v2, kind)) {
      const json::object* target = object_at(*resource, "target");
      json::object source{{"name", member_or(resource, "name", "")}};
      copy(target, "averageUtilization", source, "targetAverageUtilization");
      copy(target, "averageValue", source, "targetAverageValue");
      if (kind == "containerResource") source["container"] = member_or(resource, "container", "");
      out[kind] = std::move(source);
    }
  }
  if (const json::object* external = object_at(v2, "external")) {
    const json::object* target = object_at(*external, "target");
    const json::object* metric = object_at(*external, "metric");
    json::object source{{"metricName", member_or(metric, "name", "")}};
    copy(metric, "selector", source, "metricSelector");
    copy(target, "value", source, "targetValue");
    copy(target, "averageValue", source, "targetAverageValue");
    out["external"] = std::move(source);
  }
  return out;
}

json::object v1_metric_status(const json::object& v2) {
  json::object out{{"type", string_at(v2, "type")}};
  if (const json::object* object = object_at(v2, "object")) {
    const json::object* current = object_at(*object, "current");
    const json::object* metric = object_at(*object, "metric");
    json::object status{{"target", reference(object_at(*object, "describedObject"))},
                        {"metricName", member_or(metric, "name", "")},
                        {"currentValue", member_or(current, "value", "0")}};
    copy(metric, "selector", status);
    copy(current, "averageValue", status);
    out["object"] = std::move(status);
  }
  if (const json::object* pods = object_at(v2, "pods")) {
    const json::object* metric = object_at(*pods, "metric");
    json::object status{{"metricName", member_or(metric, "name", "")},
                        {"currentAverageValue", member_or(object_at(*pods, "current"), "averageValue", "0")}};
    copy(metric, "selector", status);
    out["pods"] = std::move(status);
  }
  for (std::string_view kind : {"resource", "containerResource"}) {
    if (const json::object* resource = object_at(v2, kind)) {
      const json::object* current = object_at(*resource, "current");
      json::object status{{"name", member_or(resource, "name", "")}};
      copy(current, "averageUtilization", status, "currentAverageUtilization");
      status["currentAverageValue"] = member_or(current, "averageValue", "0");
      if (kind == "containerResource") status["container"] = member_or(resource, "container", "");
      out[kind] = std::move(status);
    }
  }
  if (const json::object* external = object_at(v2, "external")) {
    const json::object* current = object_at(*external, "current");
    const json::object* metric = object_at(*external, "metric");
    json::object status{{"metricName", member_or(metric, "name", "")}};
    copy(metric, "selector", status, "metricSelector");
    status["currentValue"] = member_or(current, "value", "0");
    copy(current, "averageValue", status, "currentAverageValue");
    out["external"] = std::move(status);
  }
  return out;
}

bool is_cpu(const json::object& metric, std::string_view type) {
  return string_at(metric, "type") == "Resource" && string_at(object_at(metric, "resource"), "name") == "cpu" &&
         (type.empty() || object_at(object_at(metric, "resource"), type));
}

// --- v1 → v2 -------------------------------------------------------------------------------------------------

json::object target(std::string_view type, std::initializer_list<std::pair<std::string_view, json::value>> values) {
  json::object out{{"type", type}};
  for (const auto& [key, value] : values)
    if (!value.is_null()) out[key] = value;
  return out;
}

json::object v2_metric_spec(const json::object& v1) {
  json::object out{{"type", string_at(v1, "type")}};
  if (const json::object* object = object_at(v1, "object")) {
    const bool average = object->contains("averageValue") && !object->at("averageValue").is_null();
    out["object"] = json::object{
        {"describedObject", reference(object_at(*object, "target"))},
        {"target", target(average ? "AverageValue" : "Value", {{"value", member_or(object, "targetValue", "0")},
                                                               {"averageValue", member_or(object, "averageValue", nullptr)}})},
        {"metric", metric_identifier(object, "selector")}};
  }
  if (const json::object* pods = object_at(v1, "pods"))
    out["pods"] = json::object{{"metric", metric_identifier(pods, "selector")},
                               {"target", target("AverageValue", {{"averageValue", member_or(pods, "targetAverageValue", "0")}})}};
  for (std::string_view kind : {"resource", "containerResource"}) {
    if (const json::object* resource = object_at(v1, kind)) {
      const json::value utilization = member_or(resource, "targetAverageUtilization", nullptr);
      json::object source{{"name", member_or(resource, "name", "")},
                          {"target", target(utilization.is_null() ? "AverageValue" : "Utilization",
                                            {{"averageValue", member_or(resource, "targetAverageValue", nullptr)},
                                             {"averageUtilization", utilization}})}};
      if (kind == "containerResource") source["container"] = member_or(resource, "container", "");
      out[kind] = std::move(source);
    }
  }
  if (const json::object* external = object_at(v1, "external")) {
    const json::value value = member_or(external, "targetValue", nullptr);
    out["external"] = json::object{
        {"metric", metric_identifier(external, "metricSelector")},
        {"target", target(value.is_null() ? "AverageValue" : "Value",
                          {{"value", value}, {"averageValue", member_or(external, "targetAverageValue", nullptr)}})}};
  }
  return out;
}

json::object v2_metric_status(const json::object& v1) {
  json::object out{{"type", string_at(v1, "type")}};
  auto current = [](std::initializer_list<std::pair<std::string_view, json::value>> values) {
    json::object out;
    for (const auto& [key, value] : values)
      if (!value.is_null()) out[key] = value;
    return out;
  };
  if (const json::object* object = object_at(v1, "object"))
    out["object"] = json::object{{"metric", metric_identifier(object, "selector")},
                                 {"current", current({{"value", member_or(object, "currentValue", "0")},
                                                      {"averageValue", member_or(object, "averageValue", nullptr)}})},
                                 {"describedObject", reference(object_at(*object, "target"))}};
  if (const json::object* pods = object_at(v1, "pods"))
    out["pods"] = json::object{{"metric", metric_identifier(pods, "selector")},
                               {"current", current({{"averageValue", member_or(pods, "currentAverageValue", "0")}})}};
  for (std::string_view kind : {"resource", "containerResource"}) {
    if (const json::object* resource = object_at(v1, kind)) {
      json::object status{{"name", member_or(resource, "name", "")},
                          {"current", current({{"averageValue", member_or(resource, "currentAverageValue", "0")},
                                               {"averageUtilization", member_or(resource, "currentAverageUtilization", nullptr)}})}};
      if (kind == "containerResource") status["container"] = member_or(resource, "container", "");
      out[kind] = std::move(status);
    }
  }
  if (const json::object* external = object_at(v1, "external"))
    out["external"] = json::object{{"metric", metric_identifier(external, "metricSelector")},
                                   {"current", current({{"value", member_or(external, "currentValue", "0")},
                                                        {"averageValue", member_or(external, "currentAverageValue", nullptr)}})}};
  return out;
}

// The array an annotation holds (written by from_storage), removed from `annotations`; empty when absent or not
// a JSON array (kube fails the conversion there; a hand-edited annotation then loses its metrics instead).
json::array take_annotation(json::object* annotations, std::string_view key) {
  if (!annotations) return {};
  auto it = annotations->find(key);
  if (it == annotations->end()) return {};
  json::array items;
  if (it->value().is_string()) {
    boost::system::error_code error;
    json::value parsed = json::parse(it->value().as_string(), error);
    if (!error && parsed.is_array()) items = std::move(parsed.as_array());
  }
  annotations->erase(it);
  return items;
}

class HpaV1Conversion final : public registry::VersionConversion {
 public:
  json::object to_storage(json::object v1) const override {
    json::object metadata = member_or(&v1, "metadata", json::object()).as_object();
    json::object* annotations = object_at(metadata, "annotations");
    json::array other_metrics = take_annotation(annotations, kMetricSpecsAnnotation);
    json::array current_metrics = take_annotation(annotations, kMetricStatusesAnnotation);
    json::array conditions = take_annotation(annotations, kConditionsAnnotation);
    if (annotations && annotations->empty()) metadata.erase("annotations");

    const json::object* spec_v1 = object_at(v1, "spec");
    json::object spec{{"scaleTargetRef", reference(object_at(spec_v1, "scaleTargetRef"))}};
    copy(spec_v1, "minReplicas", spec);
    spec["maxReplicas"] = member_or(spec_v1, "maxReplicas", 0);
    json::array metrics;
    for (const auto& metric : other_metrics)
      if (metric.is_object()) metrics.push_back(v2_metric_spec(metric.as_object()));
    const json::value cpu = member_or(spec_v1, "targetCPUUtilizationPercentage", nullptr);
    if (!cpu.is_null() || metrics.empty())
      metrics.push_back(json::object{
          {"type", "Resource"},
          {"resource", json::object{{"name", "cpu"},
                                    {"target", json::object{{"type", "Utilization"},
                                                            {"averageUtilization",
                                                             cpu.is_null() ? json::value(kDefaultCpuUtilization) : cpu}}}}}});
    spec["metrics"] = std::move(metrics);

    const json::object* status_v1 = object_at(v1, "status");
    json::object status;
    copy(status_v1, "observedGeneration", status);
    copy(status_v1, "lastScaleTime", status);
    if (auto replicas = int_or_zero(status_v1, "currentReplicas"); replicas != 0) status["currentReplicas"] = replicas;
    status["desiredReplicas"] = int_or_zero(status_v1, "desiredReplicas");
    json::array current;
    if (!current_metrics.empty()) {
      for (const auto& metric : current_metrics)
        if (metric.is_object()) current.push_back(v2_metric_status(metric.as_object()));
    } else if (auto utilization = member_or(status_v1, "currentCPUUtilizationPercentage", nullptr); !utilization.is_null()) {
      current.push_back(json::object{
          {"type", "Resource"},
          {"resource", json::object{{"name", "cpu"}, {"current", json::object{{"averageUtilization", utilization}}}}}});
    }
    status["currentMetrics"] = current.empty() ? json::value(nullptr) : json::value(std::move(current));
    if (!conditions.empty()) status["conditions"] = std::move(conditions);

    return json::object{{"kind", "HorizontalPodAutoscaler"},
                        {"apiVersion", "autoscaling/v2"},
                        {"metadata", std::move(metadata)},
                        {"spec", std::move(spec)},
                        {"status", std::move(status)}};
  }

  json::object from_storage(json::object v2) const override {
    json::object metadata = member_or(&v2, "metadata", json::object()).as_object();
    const json::object* spec_v2 = object_at(v2, "spec");
    const json::object* status_v2 = object_at(v2, "status");

    json::array other_metrics;
    std::optional<json::value> cpu_target;
    if (const json::array* metrics = array_at(spec_v2, "metrics")) {
      for (const auto& item : *metrics) {
        const json::object* metric = item.if_object();
        if (!metric) continue;
        if (is_cpu(*metric, "") && !cpu_target)
          if (auto utilization = int_at(object_at(object_at(*metric, "resource"), "target"), "averageUtilization"))
            cpu_target = *utilization;
        const bool cpu_utilization =
            is_cpu(*metric, "") && int_at(object_at(object_at(*metric, "resource"), "target"), "averageUtilization");
        if (!cpu_utilization) other_metrics.push_back(v1_metric_spec(*metric));
      }
    }
    json::array current_metrics;
    std::optional<json::value> cpu_current;
    if (const json::array* metrics = array_at(status_v2, "currentMetrics")) {
      for (const auto& item : *metrics) {
        const json::object* metric = item.if_object();
        if (!metric) continue;
        current_metrics.push_back(v1_metric_status(*metric));
        if (is_cpu(*metric, ""))
          if (auto utilization = int_at(object_at(object_at(*metric, "resource"), "current"), "averageUtilization"))
            cpu_current = *utilization;
      }
    }
    json::array conditions;
    if (const json::array* items = array_at(status_v2, "conditions"))
      for (const auto& item : *items) {
        const json::object* condition = item.if_object();
        if (!condition) continue;
        json::object out{{"type", member_or(condition, "type", "")},
                         {"status", member_or(condition, "status", "")},
                         {"lastTransitionTime", member_or(condition, "lastTransitionTime", nullptr)}};
        copy(condition, "reason", out);
        copy(condition, "message", out);
        conditions.push_back(std::move(out));
      }
    if (!other_metrics.empty() || !current_metrics.empty() || !conditions.empty()) {
      json::object& annotations = ensure_object(metadata, "annotations");
      if (!other_metrics.empty()) annotations[kMetricSpecsAnnotation] = json::serialize(other_metrics);
      if (!current_metrics.empty()) annotations[kMetricStatusesAnnotation] = json::serialize(current_metrics);
      if (!conditions.empty()) annotations[kConditionsAnnotation] = json::serialize(conditions);
    }

    json::object spec{{"scaleTargetRef", reference(object_at(spec_v2, "scaleTargetRef"))}};
    copy(spec_v2, "minReplicas", spec);
    spec["maxReplicas"] = member_or(spec_v2, "maxReplicas", 0);
    if (cpu_target) spec["targetCPUUtilizationPercentage"] = *cpu_target;

    json::object status;
    copy(status_v2, "observedGeneration", status);
    copy(status_v2, "lastScaleTime", status);
    status["currentReplicas"] = int_or_zero(status_v2, "currentReplicas");
    status["desiredReplicas"] = int_or_zero(status_v2, "desiredReplicas");
    if (cpu_current) status["currentCPUUtilizationPercentage"] = *cpu_current;

    return json::object{{"kind", "HorizontalPodAutoscaler"},
                        {"apiVersion", "autoscaling/v1"},
                        {"metadata", std::move(metadata)},
                        {"spec", std::move(spec)},
                        {"status", std::move(status)}};
  }
};

}  // namespace

std::shared_ptr<const registry::VersionConversion> hpa_v1_conversion() { return std::make_shared<HpaV1Conversion>(); }

}  // namespace kapi::apis::autoscaling
