// The HorizontalPodAutoscaler's validation (pkg/apis/autoscaling/validation/validation.go), on the v2 form kube
// validates as its internal type.
#include "server/apis/autoscaling/hpa.h"

#include "base/name_validation.h"
#include "base/quantity.h"
#include "server/registry/json_fields.h"

#include <boost/json.hpp>

#include <set>

namespace kapi::apis::autoscaling {
namespace {

namespace json = boost::json;
using namespace registry::fields;
using validation::ErrorList;
using validation::Path;

constexpr std::int64_t kMaxPeriodSeconds = 1800;
constexpr std::int64_t kMaxStabilizationWindowSeconds = 3600;

std::string number(std::int64_t value) { return std::to_string(value); }

void validate_reference(const json::object* ref, const Path& path, ErrorList& errors) {
  for (std::string_view field : {"kind", "name"}) {
    const std::string_view value = string_at(ref, field);
    if (value.empty()) {
      errors.push_back(validation::required(path.child(field)));
      continue;
    }
    for (auto& message : validation::is_valid_path_segment_name(value))
      errors.push_back(validation::invalid(path.child(field), value, message));
  }
}

void validate_metric_identifier(const json::object* id, const Path& path, ErrorList& errors) {
  const std::string_view name = string_at(id, "name");
  if (name.empty()) {
    errors.push_back(validation::required(path.child("name"), "must specify a metric name"));
    return;
  }
  for (auto& message : validation::is_valid_path_segment_name(name))
    errors.push_back(validation::invalid(path.child("name"), name, message));
}

bool positive_quantity(const json::value& value) {
  if (value.is_int64()) return value.as_int64() > 0;
  if (!value.is_string()) return false;
  auto parsed = parse_quantity(value.as_string());
  return parsed && *parsed > 0;
}

std::string quantity_text(const json::value& value) {
  return value.is_string() ? std::string(value.as_string()) : json::serialize(value);
}

void validate_metric_target(const json::object* target, const Path& path, ErrorList& errors) {
  const std::string_view type = string_at(target, "type");
  if (type.empty()) errors.push_back(validation::required(path.child("type"), "must specify a metric target type"));
  if (type != "Utilization" && type != "Value" && type != "AverageValue")
    errors.push_back(validation::invalid(path.child("type"), type, "must be either Utilization, Value, or AverageValue"));
  for (std::string_view field : {"value", "averageValue"}) {
    const json::value* quantity = target ? target->if_contains(field) : nullptr;
    if (quantity && !quantity->is_null() && !positive_quantity(*quantity))
      errors.push_back(validation::invalid_value(path.child(field), quantity_text(*quantity), "must be positive"));
  }
  if (auto utilization = int_at(target, "averageUtilization"); utilization && *utilization < 1)
    errors.push_back(validation::invalid_value(path.child("averageUtilization"), number(*utilization), "must be greater than 0"));
}

bool has(const json::object* object, std::string_view field) {
  const json::value* value = object ? object->if_contains(field) : nullptr;
  return value && !value->is_null();
}

void validate_source(std::string_view kind, const json::object* source, const Path& path, ErrorList& errors) {
  const json::object* target = object_at(source, "target");
  const Path target_path = path.child("target");
  if (kind == "object") validate_reference(object_at(source, "describedObject"), path.child("describedObject"), errors);
  if (kind == "containerResource") {
    const std::string_view name = string_at(source, "name");
    if (name.empty()) errors.push_back(validation::required(path.child("name"), "must specify a resource name"));
    const std::string_view container = string_at(source, "container");
    if (container.empty()) {
      errors.push_back(validation::required(path.child("container"), "must specify a container"));
    } else {
      for (auto& message : validation::is_dns1123_label(container))
        errors.push_back(validation::invalid(path.child("container"), container, message));
    }
  }
  if (kind == "resource" && string_at(source, "name").empty())
    errors.push_back(validation::required(path.child("name"), "must specify a resource name"));
  if (kind == "object" || kind == "pods" || kind == "external")
    validate_metric_identifier(object_at(source, "metric"), path.child("metric"), errors);
  validate_metric_target(target, target_path, errors);
  if (kind == "object" && !has(target, "value") && !has(target, "averageValue"))
    errors.push_back(validation::required(target_path.child("averageValue"), "must set either a target value or averageValue"));
  if (kind == "external") {
    if (!has(target, "value") && !has(target, "averageValue"))
      errors.push_back(validation::required(target_path.child("averageValue"),
                                            "must set either a target value for metric or a per-pod target"));
    if (has(target, "value") && has(target, "averageValue"))
      errors.push_back(validation::forbidden(target_path.child("value"),
                                             "may not set both a target value for metric and a per-pod target"));
  }
  if (kind == "pods" && !has(target, "averageValue"))
    errors.push_back(validation::required(target_path.child("averageValue"), "must specify a positive target averageValue"));
  if (kind == "resource" || kind == "containerResource") {
    if (!has(target, "averageUtilization") && !has(target, "averageValue"))
      errors.push_back(validation::required(target_path.child("averageUtilization"),
                                            "must set either a target raw value or a target utilization"));
    if (has(target, "averageUtilization") && has(target, "averageValue"))
      errors.push_back(validation::forbidden(target_path.child("averageValue"),
                                             "may not set both a target raw value and a target utilization"));
  }
}

const std::vector<std::string> kSourceTypes{"ContainerResource", "External", "Object", "Pods", "Resource"};

// The source member each type names.
std::string_view source_field(std::string_view type) {
  if (type == "Object") return "object";
  if (type == "Pods") return "pods";
  if (type == "Resource") return "resource";
  if (type == "External") return "external";
  if (type == "ContainerResource") return "containerResource";
  return {};
}

void validate_metric(const json::object& metric, const Path& path, ErrorList& errors) {
  const std::string_view type = string_at(metric, "type");
  if (type.empty()) errors.push_back(validation::required(path.child("type"), "must specify a metric source type"));
  const std::string_view expected = source_field(type);
  if (expected.empty()) errors.push_back(validation::not_supported(path.child("type"), type, kSourceTypes));
  // kube validates the first source present only, in this order, and forbids the others.
  std::set<std::string_view> present;
  for (std::string_view kind : {"object", "external", "pods", "resource", "containerResource"}) {
    if (!has(&metric, kind)) continue;
    present.insert(kind);
    if (present.size() == 1) validate_source(kind, object_at(metric, kind), path.child(kind), errors);
  }
  if (!expected.empty() && !has(&metric, expected))
    errors.push_back(validation::required(path.child(expected), "must populate information for the given metric source"));
  if (expected.empty()) errors.push_back(validation::not_supported(path.child("type"), type, kSourceTypes));
  if (present.size() != 1) {
    present.erase(expected);
    for (std::string_view kind : present)
      errors.push_back(validation::forbidden(path.child(kind), "must populate the given metric source only"));
  }
}

void validate_scaling_rules(const json::object* rules, const Path& path, ErrorList& errors) {
  if (!rules) return;
  if (auto window = int_at(rules, "stabilizationWindowSeconds")) {
    if (*window < 0)
      errors.push_back(validation::invalid_value(path.child("stabilizationWindowSeconds"), number(*window),
                                                 "must be greater than or equal to zero"));
    if (*window > kMaxStabilizationWindowSeconds)
      errors.push_back(validation::invalid_value(path.child("stabilizationWindowSeconds"), number(*window),
                                                 "must be less than or equal to " + number(kMaxStabilizationWindowSeconds)));
  }
  if (has(rules, "selectPolicy")) {
    const std::string_view policy = string_at(rules, "selectPolicy");
    if (policy != "Max" && policy != "Min" && policy != "Disabled")
      errors.push_back(validation::not_supported(path.child("selectPolicy"), policy, {"Disabled", "Max", "Min"}));
  }
  const Path policies_path = path.child("policies");
  const json::array* policies = array_at(rules, "policies");
  if (!policies || policies->empty()) errors.push_back(validation::required(policies_path, "must specify at least one Policy"));
  if (!policies) return;
  for (std::size_t i = 0; i < policies->size(); ++i) {
    const json::object* policy = (*policies)[i].if_object();
    const Path at = policies_path.index(i);
    const std::string_view type = string_at(policy, "type");
    if (type != "Pods" && type != "Percent")
      errors.push_back(validation::not_supported(at.child("type"), type, {"Percent", "Pods"}));
    const std::int64_t value = int_or_zero(policy, "value");
    if (value <= 0) errors.push_back(validation::invalid_value(at.child("value"), number(value), "must be greater than zero"));
    const std::int64_t period = int_or_zero(policy, "periodSeconds");
    if (period <= 0)
      errors.push_back(validation::invalid_value(at.child("periodSeconds"), number(period), "must be greater than zero"));
    if (period > kMaxPeriodSeconds)
      errors.push_back(validation::invalid_value(at.child("periodSeconds"), number(period),
                                                 "must be less than or equal to " + number(kMaxPeriodSeconds)));
  }
}

}  // namespace

validation::ErrorList validate_hpa_spec(const json::object& hpa, std::int64_t min_replicas_lower_bound) {
  ErrorList errors;
  const json::object* spec = object_at(hpa, "spec");
  const Path path("spec");
  const std::optional<std::int64_t> min_replicas = int_at(spec, "minReplicas");
  const std::int64_t max_replicas = int_or_zero(spec, "maxReplicas");
  if (min_replicas && *min_replicas < min_replicas_lower_bound)
    errors.push_back(validation::invalid_value(path.child("minReplicas"), number(*min_replicas),
                                               "must be greater than or equal to " + number(min_replicas_lower_bound)));
  if (max_replicas < 1)
    errors.push_back(validation::invalid_value(path.child("maxReplicas"), number(max_replicas), "must be greater than 0"));
  if (min_replicas && max_replicas < *min_replicas)
    errors.push_back(validation::invalid_value(path.child("maxReplicas"), number(max_replicas),
                                               "must be greater than or equal to `minReplicas`"));
  validate_reference(object_at(spec, "scaleTargetRef"), path.child("scaleTargetRef"), errors);
  bool object_or_external = false;
  if (const json::array* metrics = array_at(spec, "metrics")) {
    for (std::size_t i = 0; i < metrics->size(); ++i) {
      const json::object* metric = (*metrics)[i].if_object();
      if (!metric) continue;
      validate_metric(*metric, path.child("metrics").index(i), errors);
      const std::string_view type = string_at(*metric, "type");
      object_or_external = object_or_external || type == "Object" || type == "External";
    }
  }
  if (min_replicas && *min_replicas == 0 && !object_or_external)
    errors.push_back(validation::forbidden(path.child("metrics"),
                                           "must specify at least one Object or External metric to support scaling to zero replicas"));
  const json::object* behavior = object_at(spec, "behavior");
  validate_scaling_rules(object_at(behavior, "scaleUp"), path.child("behavior").child("scaleUp"), errors);
  validate_scaling_rules(object_at(behavior, "scaleDown"), path.child("behavior").child("scaleDown"), errors);
  return errors;
}

validation::ErrorList validate_hpa_status(const json::object& hpa) {
  ErrorList errors;
  const json::object* status = object_at(hpa, "status");
  for (std::string_view field : {"currentReplicas", "desiredReplicas"}) {
    const std::int64_t value = int_or_zero(status, field);
    if (value < 0)
      errors.push_back(validation::invalid_value(Path("status").child(field), number(value),
                                                 "must be greater than or equal to 0"));
  }
  return errors;
}

}  // namespace kapi::apis::autoscaling
