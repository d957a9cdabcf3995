// core/v1 ReplicationController (pkg/registry/core/replicationcontroller, v1.SetDefaults_ReplicationController,
// validation.ValidateReplicationController, printers.printReplicationController): status and an autoscaling/v1
// scale as subresources, metadata.generation counting spec changes, selectable by status.replicas; stored under
// /registry/controllers as kube stores them.
#include "server/apis/core/core_validation.h"
#include "server/apis/core/pod_defaults.h"
#include "server/apis/core/pod_validation.h"
#include "server/apis/core/resource_validation.h"
#include "server/apis/resource_storage.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"

#include <map>

namespace kapi::apis {
namespace {

using namespace registry::fields;
using validation::ErrorList;
using validation::Path;

// Go's %#v of a map[string]string, as the selector mismatch prints the template's labels.
std::string go_map_literal(const json::object* map) {
  std::map<std::string, std::string> sorted;
  if (map)
    for (const auto& [key, value] : *map) sorted[std::string(key)] = value.is_string() ? std::string(value.as_string()) : "";
  std::string out = "map[string]string{";
  bool first = true;
  for (const auto& [key, value] : sorted) {
    out += (first ? "" : ", ") + validation::quoted(key) + ":" + validation::quoted(value);
    first = false;
  }
  return out + "}";
}

std::string join_containers(const json::object& controller, std::string_view member) {
  std::string out;
  for_each_object(object_at(object_at(object_at(controller, "spec"), "template"), "spec"), "containers",
                  [&](const json::object& container, std::size_t) {
                    if (!out.empty()) out += ",";
                    out += string_at(container, member);
                  });
  return out;
}

class ReplicationControllerStrategy final : public registry::Strategy {
 public:
  // Orphaning was the behaviour before the garbage collector: core/v1 keeps it as the default.
  registry::GarbageCollectionPolicy default_garbage_collection_policy() const override {
    return registry::GarbageCollectionPolicy::kOrphanDependents;
  }
  void apply_scheme_defaults(json::object& object) const override { apply_defaults(object); }
  void prepare_for_create(json::object& object) const override {
    object["status"] = json::object{{"replicas", 0}};  // status.replicas has no omitempty: kube writes its 0
    apply_defaults(object);
  }
  void prepare_for_update(json::object& object, const json::object& old) const override {
    keep_status(object, old);
    apply_defaults(object);
  }
  bool tracks_generation() const override { return true; }
  ErrorList validate(const json::object& object) const override {
    return core::validate_replication_controller(object);
  }
  ErrorList validate_subresource_update(std::string_view subresource, const json::object& object,
                                        const json::object& old) const override {
    if (subresource != "status") return validate_update(object, old);
    return core::validate_replication_controller_status(object);
  }
  std::optional<registry::ScalePaths> scale_paths() const override {
    return registry::ScalePaths{.spec_replicas = {"spec", "replicas"},
                                .status_replicas = {"status", "replicas"},
                                .label_selector = {"spec", "selector"}};
  }

  std::vector<std::string> selectable_field_names() const override { return {"status.replicas"}; }
  void selectable_fields(const json::object& object, registry::SelectableFields& fields) const override {
    fields["status.replicas"] = std::to_string(int_or_zero(object_at(object, "status"), "replicas"));
  }

  std::vector<registry::TableColumn> table_columns() const override {
    return {registry::name_column(),
            {"Desired", "integer", "",
             "Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and "
             "unspecified. Defaults to 1. More info: "
             "https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller",
             0},
            {"Current", "integer", "",
             "Replicas is the most recently observed number of replicas. More info: "
             "https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller",
             0},
            {"Ready", "integer", "", "The number of ready replicas for this replication controller.", 0},
            registry::age_column(),
            {"Containers", "string", "", "Names of each container in the template.", 1},
            {"Images", "string", "", "Images referenced by each container in the template.", 1},
            {"Selector", "string", "",
             "Selector is a label query over pods that should match the Replicas count. If Selector is empty, it is "
             "defaulted to the labels present on the Pod template. Label keys and values that must match in order to "
             "be controlled by this replication controller, if empty defaulted to labels on Pod template. More info: "
             "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
             1}};
  }
  json::array table_cells(const json::object& object) const override {
    const json::object* spec = object_at(object, "spec");
    const json::object* status = object_at(object, "status");
    return {json::string(registry::meta_string(object, "name")),
            int_or_zero(spec, "replicas"),
            int_or_zero(status, "replicas"),
            int_or_zero(status, "readyReplicas"),
            json::string(registry::age_of(object)),
            json::string(join_containers(object, "name")),
            json::string(join_containers(object, "image")),
            json::string(core::format_labels(object_at(spec, "selector")))};
  }

 private:
  // SetDefaults_ReplicationController: the selector and the controller's labels default to the template's labels,
  // replicas to 1; the template's PodSpec takes a PodSpec's defaults.
  static void apply_defaults(json::object& object) {
    registry::metadata_of(object);  // both members exist before references to them are taken
    json::object& spec = ensure_object(object, "spec");
    json::object& meta = registry::metadata_of(object);
    if (const json::object* found = object_at(object_at(object_at(spec, "template"), "metadata"), "labels")) {
      const json::object template_labels = *found;  // copied: the writes below may move what it points into
      const json::object* selector = object_at(spec, "selector");
      if (!selector || selector->empty()) spec["selector"] = template_labels;
      const json::object* labels = object_at(meta, "labels");
      if (!labels || labels->empty()) meta["labels"] = template_labels;
    }
    if (!int_at(spec, "replicas")) spec["replicas"] = 1;
    if (json::object* pod_spec = object_at(object_at(&spec, "template"), "spec")) core::apply_pod_spec_defaults(*pod_spec);
  }
};

}  // namespace

namespace core {

// ValidateReplicationControllerSpec with ValidatePodTemplateSpecForRC.
ErrorList validate_replication_controller(const json::object& controller) {
  ErrorList errors;
  const Path path("spec");
  const json::object* spec = object_at(controller, "spec");
  if (auto seconds = int_or_zero(spec, "minReadySeconds"); seconds < 0)
    errors.push_back(validation::invalid_value(path.child("minReadySeconds"), std::to_string(seconds),
                                               "must be greater than or equal to 0"));
  const json::object* selector = object_at(spec, "selector");
  if (!selector || selector->empty()) errors.push_back(validation::required(path.child("selector")));
  if (auto replicas = int_or_zero(spec, "replicas"); replicas < 0)
    errors.push_back(validation::invalid_value(path.child("replicas"), std::to_string(replicas),
                                               "must be greater than or equal to 0"));
  const json::object* template_ = object_at(spec, "template");
  const Path template_path = path.child("template");
  if (!template_) {
    errors.push_back(validation::required(template_path));
    return errors;
  }
  const json::object* labels = object_at(object_at(*template_, "metadata"), "labels");
  if (selector && !selector->empty()) {
    bool matches = true;
    for (const auto& [key, value] : *selector) {
      const json::value* label = labels ? labels->if_contains(key) : nullptr;
      matches = matches && label && *label == value;
    }
    if (!matches)
      errors.push_back(validation::invalid_value(template_path.child("metadata").child("labels"),
                                                 go_map_literal(labels), "`selector` does not match template `labels`"));
  }
  append(errors, validate_pod_template_spec(*template_, template_path));
  const json::object* pod_spec = object_at(*template_, "spec");
  if (auto policy = string_at(pod_spec, "restartPolicy"); policy != "Always")
    errors.push_back(validation::not_supported(template_path.child("spec").child("restartPolicy"), policy, {"Always"}));
  if (pod_spec && has(*pod_spec, "activeDeadlineSeconds"))
    errors.push_back(validation::forbidden(template_path.child("spec").child("activeDeadlineSeconds"),
                                           "activeDeadlineSeconds in ReplicationController is not Supported"));
  return errors;
}

ErrorList validate_replication_controller_status(const json::object& controller) {
  ErrorList errors;
  const Path path("status");
  const json::object* status = object_at(controller, "status");
  for (std::string_view field :
       {"replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas", "observedGeneration"})
    if (auto value = int_or_zero(status, field); value < 0)
      errors.push_back(validation::invalid_value(path.child(field), std::to_string(value),
                                                 "must be greater than or equal to 0"));
  const std::int64_t replicas = int_or_zero(status, "replicas");
  const std::int64_t ready = int_or_zero(status, "readyReplicas");
  const std::int64_t available = int_or_zero(status, "availableReplicas");
  const std::string above_replicas = "cannot be greater than status.replicas";
  for (std::string_view field : {"fullyLabeledReplicas", "readyReplicas", "availableReplicas"})
    if (auto value = int_or_zero(status, field); value > replicas)
      errors.push_back(validation::invalid_value(path.child(field), std::to_string(value), above_replicas));
  if (available > ready)
    errors.push_back(validation::invalid_value(path.child("availableReplicas"), std::to_string(available),
                                               "cannot be greater than readyReplicas"));
  return errors;
}

}  // namespace core

ResourceStorage replicationcontrollers() {
  registry::ResourceDefinition definition{.group = "", .version = "v1", .resource = "replicationcontrollers",
                                          .kind = "ReplicationController", .singular = "replicationcontroller",
                                          .namespaced = true, .short_names = {"rc"}, .categories = {"all"},
                                          .storage_resource = "controllers",  // kube's key since its first days
                                          .subresources = {"scale", "status"}};
  return {std::move(definition), std::make_shared<ReplicationControllerStrategy>()};
}

}  // namespace kapi::apis
