// core/v1 PersistentVolume (pkg/registry/core/persistentvolume, validation.ValidatePersistentVolume and
// ValidatePersistentVolumeUpdate, v1.SetDefaults_PersistentVolume, printers.printPersistentVolume): cluster-scoped,
// created Pending with its phase transition time, status through its subresource, the volume source fixed once
// created.
#include "base/quantity.h"
#include "server/apis/core/core_validation.h"
#include "server/apis/core/resource_validation.h"
#include "server/apis/core/volume_claims.h"
#include "server/apis/resource_storage.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"

#include <array>
#include <map>

namespace kapi::apis {
namespace {

using namespace registry::fields;
using validation::ErrorList;
using validation::Path;

// The members of PersistentVolumeSource, inlined in the spec, in the order kube checks them.
constexpr std::array<std::string_view, 22> kVolumeSources{
    "hostPath",    "glusterfs",     "nfs",          "rbd",         "quobyte",      "cephfs",
    "iscsi",       "cinder",        "fc",           "flocker",     "flexVolume",   "azureFile",
    "vsphereVolume", "azureDisk",   "photonPersistentDisk", "portworxVolume", "scaleIO", "local",
    "storageos",   "csi",           "gcePersistentDisk", "awsElasticBlockStore"};

// The spec without the members that are not its volume source.
json::object volume_source(const json::object* spec) {
  json::object source;
  if (!spec) return source;
  for (auto name : kVolumeSources)
    if (auto it = spec->find(name); it != spec->end() && !it->value().is_null()) source[name] = it->value();
  return source;
}

void validate_source(const json::object& spec, const Path& path, ErrorList& errors) {
  std::size_t count = 0;
  for (auto name : kVolumeSources) {
    const json::object* source = object_at(spec, name);
    if (!source) continue;
    if (count++ > 0) {
      errors.push_back(validation::forbidden(path.child(name), "may not specify more than 1 volume type"));
      continue;
    }
    // The few required members of the common sources (validateHostPathVolumeSource, validateNFSVolumeSource,
    // validateLocalVolumeSource, ValidateCSIPersistentVolumeSource).
    const Path at = path.child(name);
    if (name == "hostPath" || name == "local") {
      if (string_at(source, "path").empty()) errors.push_back(validation::required(at.child("path")));
    } else if (name == "nfs") {
      if (string_at(source, "server").empty()) errors.push_back(validation::required(at.child("server")));
      const std::string_view nfs_path = string_at(source, "path");
      if (nfs_path.empty()) errors.push_back(validation::required(at.child("path")));
      else if (nfs_path.front() != '/')
        errors.push_back(validation::invalid(at.child("path"), nfs_path, "must be an absolute path"));
    } else if (name == "csi") {
      if (string_at(source, "driver").empty()) errors.push_back(validation::required(at.child("driver")));
      if (string_at(source, "volumeHandle").empty()) errors.push_back(validation::required(at.child("volumeHandle")));
    }
  }
  if (count == 0) errors.push_back(validation::required(path, "must specify a volume type"));
}

json::array volume_cells(const json::object& volume) {
  const json::object* spec = object_at(volume, "spec");
  const json::object* status = object_at(volume, "status");
  std::string claim;
  if (const json::object* ref = object_at(spec, "claimRef"))
    claim = std::string(string_at(ref, "namespace")) + "/" + std::string(string_at(ref, "name"));
  std::string capacity(string_at(object_at(spec, "capacity"), "storage"));
  if (capacity.empty()) capacity = "0";
  std::string phase(string_at(status, "phase"));
  if (!registry::meta_string(volume, "deletionTimestamp").empty()) phase = "Terminating";
  auto or_unset = [spec](std::string_view key) {
    return spec && spec->contains(key) ? std::string(string_at(spec, key)) : std::string("<unset>");
  };
  return {json::string(registry::meta_string(volume, "name")),
          json::string(capacity),
          json::string(core::access_modes_string(spec)),
          json::string(string_at(spec, "persistentVolumeReclaimPolicy")),
          json::string(phase),
          json::string(claim),
          json::string(core::storage_class_of(volume)),
          json::string(or_unset("volumeAttributesClassName")),
          json::string(string_at(status, "reason")),
          json::string(registry::age_of(volume)),
          json::string(or_unset("volumeMode"))};
}

class PersistentVolumeStrategy final : public registry::Strategy {
 public:
  // kube's store for this kind has ReturnDeletedObject: a DELETE answers with the object, not a Status.
  bool return_deleted_object() const override { return true; }
  void prepare_for_create(json::object& object) const override {
    object["status"] = json::object{{"phase", "Pending"}, {"lastPhaseTransitionTime", registry::rfc3339_now()}};
    core::drop_volume_attributes_class(object, nullptr);
  }
  void prepare_for_update(json::object& object, const json::object& old) const override {
    keep_status(object, old);
    core::drop_volume_attributes_class(object, &old);
  }
  // persistentvolumeStatusStrategy: a new phase gets a new transition time unless the writer set a newer one.
  void prepare_for_subresource_update(std::string_view subresource, json::object& object,
                                      const json::object& old) const override {
    if (subresource != "status") return;
    const json::object* old_status = object_at(old, "status");
    json::object& status = ensure_object(object, "status");
    const json::value* time = status.if_contains("lastPhaseTransitionTime");
    const json::value* old_time = old_status ? old_status->if_contains("lastPhaseTransitionTime") : nullptr;
    const bool unset = !time || time->is_null();
    if (string_at(status, "phase") == string_at(old_status, "phase")) {
      if (unset && old_time) status["lastPhaseTransitionTime"] = *old_time;
    } else if (unset || (old_time && *time == *old_time)) {
      status["lastPhaseTransitionTime"] = registry::rfc3339_now();
    }
  }
  ErrorList validate(const json::object& object) const override { return core::validate_persistent_volume(object); }
  ErrorList validate_update(const json::object& object, const json::object& old) const override {
    return core::validate_persistent_volume_update(object, old);
  }
  // kube's PersistentVolumeToSelectableFields keeps "name" for old clients.
  std::vector<std::string> selectable_field_names() const override { return {"name"}; }
  void selectable_fields(const json::object& object, registry::SelectableFields& fields) const override {
    fields["name"] = registry::meta_string(object, "name");
  }

  std::vector<registry::TableColumn> table_columns() const override {
    return {registry::name_column(),
            {"Capacity", "string", "",
             "capacity is the description of the persistent volume's resources and capacity. More info: "
             "https://kubernetes.io/docs/concepts/storage/persistent-volumes#capacity",
             0},
            {"Access Modes", "string", "",
             "accessModes contains all ways the volume can be mounted. More info: "
             "https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes",
             0},
            {"Reclaim Policy", "string", "",
             "persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its "
             "claim. Valid options are Retain (default for manually created PersistentVolumes), Delete (default for "
             "dynamically provisioned PersistentVolumes), and Recycle (deprecated). Recycle must be supported by the "
             "volume plugin underlying this PersistentVolume. More info: "
             "https://kubernetes.io/docs/concepts/storage/persistent-volumes#reclaiming",
             0},
            {"Status", "string", "",
             "phase indicates if a volume is available, bound to a claim, or released by a claim. More info: "
             "https://kubernetes.io/docs/concepts/storage/persistent-volumes#phase",
             0},
            {"Claim", "string", "",
             "claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim. "
             "Expected to be non-nil when bound. claim.VolumeName is the authoritative bind between PV and PVC. More "
             "info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#binding",
             0},
            {"StorageClass", "string", "", "StorageClass of the pv", 0},
            {"VolumeAttributesClass", "string", "", "VolumeAttributesClass of the pv", 0},
            {"Reason", "string", "",
             "reason is a brief CamelCase string that describes any failure and is meant for machine parsing and "
             "tidy display in the CLI.",
             0},
            registry::age_column(),
            {"VolumeMode", "string", "",
             "volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw "
             "block state. Value of Filesystem is implied when not included in spec.",
             1}};
  }
  json::array table_cells(const json::object& object) const override { return volume_cells(object); }
};

}  // namespace

namespace core {

// ValidatePersistentVolumeSpec for a volume an administrator creates (not one inlined in a pod).
ErrorList validate_persistent_volume(const json::object& volume) {
  ErrorList errors;
  static const json::object kEmpty;
  const json::object* spec_ptr = object_at(volume, "spec");
  const json::object& spec = spec_ptr ? *spec_ptr : kEmpty;
  const Path path("spec");
  validate_access_modes(spec, path.child("accessModes"), "", errors);
  const json::object* capacity = object_at(spec, "capacity");
  if (!capacity || capacity->empty()) errors.push_back(validation::required(path.child("capacity")));
  if (!capacity || !capacity->contains("storage") || capacity->size() > 1) {
    std::string listed = "core.ResourceList{";
    if (capacity) {
      std::map<std::string_view, std::string_view> sorted;  // Go prints a map's keys sorted
      for (const auto& [name, value] : *capacity)
        sorted.emplace(name, value.is_string() ? std::string_view(value.as_string()) : "");
      bool first = true;
      for (const auto& [name, value] : sorted) {
        listed += (first ? "" : ", ") + validation::quoted(name) + ":" + std::string(value);
        first = false;
      }
    }
    errors.push_back({validation::ErrorType::NotSupported, path.child("capacity").str(), listed + "}",
                      "supported values: \"storage\""});
  }
  if (capacity)
    for (const auto& [name, value] : *capacity) {
      if (!value.is_string()) continue;
      // ValidatePositiveQuantityValue.
      if (auto amount = parse_quantity(value.as_string()); amount && *amount <= 0)
        errors.push_back(validation::invalid(path.child("capacity").key(name), value.as_string(),
                                             "must be greater than zero"));
    }
  if (auto policy = string_at(spec, "persistentVolumeReclaimPolicy");
      !policy.empty() && policy != "Delete" && policy != "Recycle" && policy != "Retain")
    errors.push_back(validation::not_supported(path.child("persistentVolumeReclaimPolicy"), policy,
                                               {"Delete", "Recycle", "Retain"}));
  validate_class_names(spec, path, errors);
  validate_source(spec, path, errors);
  if (auto mode = string_at(spec, "volumeMode"); has(spec, "volumeMode") && mode != "Block" && mode != "Filesystem")
    errors.push_back(validation::not_supported(path.child("volumeMode"), mode, {"Block", "Filesystem"}));
  // A local volume lives on some nodes only.
  if (object_at(spec, "local") && !object_at(spec, "nodeAffinity"))
    errors.push_back(validation::required(path.child("nodeAffinity"), "Local volume requires node affinity"));
  if (has(spec, "volumeAttributesClassName") && !object_at(spec, "csi"))
    errors.push_back(validation::required(path.child("csi"), "has to be specified when using volumeAttributesClassName"));
  return errors;
}

ErrorList validate_persistent_volume_update(const json::object& volume, const json::object& old) {
  ErrorList errors = validate_persistent_volume(volume);
  const json::object* spec = object_at(volume, "spec");
  const json::object* old_spec = object_at(old, "spec");
  const json::object source = volume_source(spec);
  const json::object old_source = volume_source(old_spec);
  if (source != old_source)
    errors.push_back(validation::forbidden(Path("spec").child("persistentvolumesource"),
                                           "spec.persistentvolumesource is immutable after creation\n  core.PersistentVolumeSource{\n- " +
                                               json::serialize(old_source) + "\n+ " + json::serialize(source) + "\n  }\n"));
  const json::value* mode = spec ? spec->if_contains("volumeMode") : nullptr;
  const json::value* old_mode = old_spec ? old_spec->if_contains("volumeMode") : nullptr;
  if ((mode == nullptr) != (old_mode == nullptr) || (mode && *mode != *old_mode))
    errors.push_back(validation::invalid_value(Path("volumeMode"),
                                               mode && mode->is_string() ? "\"" + std::string(mode->as_string()) + "\"" : "null",
                                               "field is immutable"));
  return errors;
}

}  // namespace core

ResourceStorage persistentvolumes() {
  registry::ResourceDefinition definition{.group = "", .version = "v1", .resource = "persistentvolumes",
                                          .kind = "PersistentVolume", .singular = "persistentvolume",
                                          .namespaced = false, .short_names = {"pv"}, .subresources = {"status"}};
  return {std::move(definition), std::make_shared<PersistentVolumeStrategy>()};
}

}  // namespace kapi::apis
