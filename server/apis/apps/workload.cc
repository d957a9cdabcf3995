#include "server/apis/apps/workload.h"

#include "server/selectors/metav1_label_selector.h"

#include <algorithm>
#include <map>

namespace kapi::apis::apps {
namespace {

using validation::Path;

std::map<std::string, std::string> string_map(const json::object* object) {
  std::map<std::string, std::string> out;
  if (!object) return out;
  for (const auto& [key, value] : *object)
    if (value.is_string()) out.emplace(std::string(key), std::string(value.as_string()));
  return out;
}

// Go's %#v of a map[string]string: keys sorted, both sides quoted.
std::string go_map_literal(const std::map<std::string, std::string>& map) {
  std::string out = "map[string]string{";
  bool first = true;
  for (const auto& [key, value] : map) {
    if (!first) out += ", ";
    first = false;
    out += validation::quoted(key) + ":" + validation::quoted(value);
  }
  return out + "}";
}

std::string join_containers(const json::object& workload, std::string_view member) {
  const json::object* template_spec = object_at(object_at(object_at(workload, "spec"), "template"), "spec");
  std::string out;
  if (const json::array* containers = array_at(template_spec, "containers")) {
    for (const auto& container : *containers) {
      if (!container.is_object()) continue;
      if (!out.empty()) out += ",";
      out += string_at(&container.as_object(), member);
    }
  }
  return out;
}

}  // namespace

std::string label_selector_literal(const json::object* selector) {
  std::string out = "&LabelSelector{MatchLabels:map[string]string{";
  for (const auto& [key, value] : string_map(object_at(selector, "matchLabels"))) out += key + ": " + value + ",";
  out += "},MatchExpressions:[]LabelSelectorRequirement{";
  if (const json::array* expressions = array_at(selector, "matchExpressions")) {
    for (const auto& expression : *expressions) {
      if (!expression.is_object()) continue;
      const json::object& requirement = expression.as_object();
      std::string values;
      if (const json::array* list = array_at(&requirement, "values"))
        for (const auto& value : *list)
          if (value.is_string()) values += (values.empty() ? "" : " ") + std::string(value.as_string());
      out += "LabelSelectorRequirement{Key:" + std::string(string_at(&requirement, "key")) +
             ",Operator:" + std::string(string_at(&requirement, "operator")) + ",Values:[" + values + "],},";
    }
  }
  return out + "},}";
}

std::string default_image_pull_policy(std::string_view image) {
  if (image.find('@') != std::string_view::npos) return "IfNotPresent";
  // A tag follows the last ':' after the last '/' (a registry port comes before a '/').
  std::size_t slash = image.rfind('/');
  std::size_t colon = image.rfind(':');
  if (colon == std::string_view::npos || (slash != std::string_view::npos && colon < slash)) return "Always";
  return image.substr(colon + 1) == "latest" ? "Always" : "IfNotPresent";
}

void apply_template_defaults(json::object& workload) {
  json::object* template_spec = object_at(object_at(object_at(&workload, "spec"), "template"), "spec");
  for (const char* list : {"initContainers", "containers"}) {
    json::array* containers = array_at(template_spec, list);
    if (!containers) continue;
    for (auto& container : *containers) {
      if (!container.is_object()) continue;
      json::object& fields = container.as_object();
      if (string_at(&fields, "imagePullPolicy").empty())
        fields["imagePullPolicy"] = default_image_pull_policy(string_at(&fields, "image"));
    }
  }
}

std::optional<std::string> selector_string(const json::object* selector) {
  if (!selector) return std::string();
  std::optional<selectors::LabelSelector> parsed = selectors::label_selector_from_metav1(*selector);
  if (!parsed) return std::nullopt;
  return parsed->to_string();
}

validation::ErrorList validate_workload_spec(const json::object& workload, const WorkloadRules& rules) {
  validation::ErrorList errors;
  Path spec_path("spec");
  const json::object* spec = object_at(workload, "spec");
  if (rules.has_replicas) {
    if (auto replicas = int_at(spec, "replicas"); replicas && *replicas < 0)
      errors.push_back(validation::invalid_value(spec_path.child("replicas"), std::to_string(*replicas),
                                                 "must be greater than or equal to 0"));
  }
  const json::object* selector = spec ? object_at(*spec, "selector") : nullptr;
  const json::object* template_ = spec ? object_at(*spec, "template") : nullptr;
  if (!selector) {
    errors.push_back(validation::required(spec_path.child("selector")));
  } else {
    std::optional<std::string> parsed = selector_string(selector);
    if (!parsed) {
      errors.push_back(validation::invalid_value(spec_path.child("selector"), label_selector_literal(selector),
                                                 "invalid label selector"));
    } else if (parsed->empty()) {
      errors.push_back(validation::invalid_value(spec_path.child("selector"), label_selector_literal(selector),
                                                 "empty selector is invalid for " + rules.kind));
    } else {
      const json::object* template_meta = template_ ? object_at(*template_, "metadata") : nullptr;
      auto labels = string_map(template_meta ? object_at(*template_meta, "labels") : nullptr);
      selectors::LabelMap label_map(labels.begin(), labels.end());
      if (!selectors::LabelSelector::parse(*parsed).matches(label_map))
        errors.push_back(validation::invalid_value(spec_path.child("template").child("metadata").child("labels"),
                                                   go_map_literal(labels),
                                                   "`selector` does not match template `labels`"));
    }
  }
  Path pod_spec_path = spec_path.child("template").child("spec");
  const json::object* pod_spec = template_ ? object_at(*template_, "spec") : nullptr;
  const json::array* containers = array_at(pod_spec, "containers");
  if (!containers || containers->empty()) {
    errors.push_back(validation::required(pod_spec_path.child("containers")));
  } else {
    for (std::size_t i = 0; i < containers->size(); ++i) {
      const json::object* container = (*containers)[i].if_object();
      if (string_at(container, "name").empty())
        errors.push_back(validation::required(pod_spec_path.child("containers").index(i).child("name")));
      if (string_at(container, "image").empty())
        errors.push_back(validation::required(pod_spec_path.child("containers").index(i).child("image")));
    }
  }
  std::string_view restart_policy = string_at(pod_spec, "restartPolicy");
  if (rules.restart_policy_always && !restart_policy.empty() && restart_policy != "Always")
    errors.push_back(validation::not_supported(pod_spec_path.child("restartPolicy"), restart_policy, {"Always"}));
  return errors;
}

validation::ErrorList validate_selector_unchanged(const json::object& workload, const json::object& old) {
  const json::object* spec = object_at(workload, "spec");
  const json::object* old_spec = object_at(old, "spec");
  const json::object* selector = spec ? object_at(*spec, "selector") : nullptr;
  const json::object* old_selector = old_spec ? object_at(*old_spec, "selector") : nullptr;
  bool same = (!selector && !old_selector) || (selector && old_selector && *selector == *old_selector);
  if (same) return {};
  return {validation::invalid_value(Path("spec").child("selector"), label_selector_literal(selector),
                                    "field is immutable")};
}

json::string containers_cell(const json::object& workload) { return json::string(join_containers(workload, "name")); }
json::string images_cell(const json::object& workload) { return json::string(join_containers(workload, "image")); }

json::string selector_cell(const json::object& workload) {
  const json::object* spec = object_at(workload, "spec");
  std::optional<std::string> selector = selector_string(spec ? object_at(*spec, "selector") : nullptr);
  return json::string(selector ? *selector : "<error>");
}

std::vector<registry::TableColumn> wide_columns(std::string selector_description) {
  std::vector<registry::TableColumn> columns{
      {"Containers", "string", "", "Names of each container in the template.", 1},
      {"Images", "string", "", "Images referenced by each container in the template.", 1}};
  if (!selector_description.empty()) columns.push_back({"Selector", "string", "", std::move(selector_description), 1});
  return columns;
}

void append_wide_cells(json::array& cells, const json::object& workload, bool with_selector) {
  cells.push_back(containers_cell(workload));
  cells.push_back(images_cell(workload));
  if (with_selector) cells.push_back(selector_cell(workload));
}

}  // namespace kapi::apis::apps
