#pragma once
// What the apps/v1 workloads (Deployment, ReplicaSet, StatefulSet, DaemonSet) share: their pod template's code
// defaults, ValidatePodTemplateSpecForReplicaSet-style checks of selector and template, and the CONTAINERS, IMAGES
// and SELECTOR cells of kube's printers (layoutContainerCells, metav1.LabelSelectorAsSelector).
#include "server/registry/json_fields.h"
#include "server/registry/strategy.h"
#include "server/validation/field_error.h"

#include <boost/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kapi::apis::apps {

namespace json = boost::json;

using registry::fields::array_at;
using registry::fields::ensure_object;
using registry::fields::int_at;
using registry::fields::int_or_zero;
using registry::fields::object_at;
using registry::fields::string_at;

// SetDefaults_Container on every container of spec.template.spec: imagePullPolicy Always for an image without
// tag and digest or tagged "latest", else IfNotPresent.
void apply_template_defaults(json::object& workload);
std::string default_image_pull_policy(std::string_view image);

// The label selector string of a metav1.LabelSelector ("app=web,tier in (a,b)"); std::nullopt when it does not
// parse. A missing selector selects nothing and prints as "".
std::optional<std::string> selector_string(const json::object* selector);
// The generated String() of a *metav1.LabelSelector ("&LabelSelector{MatchLabels:map[string]string{...},...}"), as
// ValidateImmutableField and the printers of selector-valued cells print it.
std::string label_selector_literal(const json::object* selector);

// How field errors print a map[string]string (Go's %#v: map[string]string{"a":"b"}) and a *metav1.LabelSelector
// (its generated String()), as ValidateImmutableField and the selector checks show them.
std::string label_map_literal(const json::object* labels);
std::string label_selector_literal(const json::object* selector);

struct WorkloadRules {
  std::string kind;  // "deployment", in "empty selector is invalid for deployment"
  bool has_replicas = true;
  bool restart_policy_always = true;
};
// spec.selector required, non-empty and matching spec.template.metadata.labels; spec.replicas >= 0; the template's
// containers (names and images) and restartPolicy.
validation::ErrorList validate_workload_spec(const json::object& workload, const WorkloadRules& rules);
// The rule every apps/v1 workload adds on update: spec.selector is immutable.
validation::ErrorList validate_selector_unchanged(const json::object& workload, const json::object& old);

// The cells of -o wide: container names, images, and the selector.
json::string containers_cell(const json::object& workload);
json::string images_cell(const json::object& workload);
json::string selector_cell(const json::object& workload);
// The -o wide columns (priority 1) kube's printers give every workload: CONTAINERS and IMAGES, then SELECTOR
// described as the resource's printer describes it (none when `selector_description` is empty, as for
// StatefulSets); append_wide_cells adds their cells in the same order.
std::vector<registry::TableColumn> wide_columns(std::string selector_description);
void append_wide_cells(json::array& cells, const json::object& workload, bool with_selector);

// What the workload strategies share: metadata.generation follows spec changes, and updates keep the selector
// (StatefulSet replaces the update rule with its own, which forbids more).
class WorkloadStrategy : public registry::Strategy {
 public:
  bool tracks_generation() const final { return true; }
  validation::ErrorList validate_update(const json::object& object, const json::object& old) const override {
    validation::ErrorList errors = validate(object);
    for (auto& error : validate_selector_unchanged(object, old)) errors.push_back(std::move(error));
    return errors;
  }
};

}  // namespace kapi::apis::apps
