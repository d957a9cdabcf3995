// core/v1 PersistentVolumeClaim (pkg/registry/core/persistentvolumeclaim, validation.ValidatePersistentVolumeClaim
// and ValidatePersistentVolumeClaimUpdate, printers.printPersistentVolumeClaim): created Pending, status through
// its subresource, the spec fixed once created except the volume name (set once) and, for a bound claim, the
// storage request.
#include "base/quantity.h"
#include "server/apis/core/core_validation.h"
#include "server/apis/core/resource_names.h"
#include "server/apis/core/resource_validation.h"
#include "server/apis/core/volume_claims.h"
#include "server/apis/resource_storage.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"

namespace kapi::apis {
namespace {

using namespace registry::fields;
using validation::ErrorList;
using validation::Path;

std::optional<QuantityNanos> storage_request(const json::object* spec) {
  std::string_view text = string_at(object_at(object_at(spec, "resources"), "requests"), "storage");
  if (text.empty()) return std::nullopt;
  return parse_quantity(text);
}

// pvcutil.EnforceDataSourceBackwardsCompatibility and NormalizeDataSources (AnyVolumeDataSource is on): each of
// dataSource and dataSourceRef defaults to the other.
void normalize_data_sources(json::object& claim) {
  json::object* spec = object_at(&claim, "spec");
  if (!spec) return;
  const json::object* source = object_at(*spec, "dataSource");
  const json::object* ref = object_at(*spec, "dataSourceRef");
  if (source && !ref) {
    json::object copy = *source;  // copied before the insertion that may move it
    (*spec)["dataSourceRef"] = std::move(copy);
  } else if (ref && !source && string_at(ref, "namespace").empty()) {
    json::object copy = *ref;
    copy.erase("namespace");
    (*spec)["dataSource"] = std::move(copy);
  }
}

json::array claim_cells(const json::object& claim) {
  const json::object* spec = object_at(claim, "spec");
  const json::object* status = object_at(claim, "status");
  std::string phase(string_at(status, "phase"));
  if (!registry::meta_string(claim, "deletionTimestamp").empty()) phase = "Terminating";
  std::string capacity, modes;
  if (!string_at(spec, "volumeName").empty()) {
    modes = core::access_modes_string(status);
    capacity = std::string(string_at(object_at(status, "capacity"), "storage"));
    if (capacity.empty()) capacity = "0";
  }
  auto or_unset = [spec](std::string_view key) {
    return spec && spec->contains(key) ? std::string(string_at(spec, key)) : std::string("<unset>");
  };
  return {json::string(registry::meta_string(claim, "name")), json::string(phase),
          json::string(string_at(spec, "volumeName")),           json::string(capacity),
          json::string(modes),                                   json::string(core::storage_class_of(claim)),
          json::string(or_unset("volumeAttributesClassName")),   json::string(registry::age_of(claim)),
          json::string(or_unset("volumeMode"))};
}

class PersistentVolumeClaimStrategy final : public registry::Strategy {
 public:
  // kube's store for this kind has ReturnDeletedObject: a DELETE answers with the object, not a Status.
  bool return_deleted_object() const override { return true; }
  void prepare_for_create(json::object& object) const override {
    // The status is cleared; decoding the stored claim then defaults its phase to Pending.
    object["status"] = json::object{{"phase", "Pending"}};
    core::drop_volume_attributes_class(object, nullptr);
    normalize_data_sources(object);
  }
  void prepare_for_update(json::object& object, const json::object& old) const override {
    keep_status(object, old);
    core::drop_volume_attributes_class(object, &old);
    normalize_data_sources(object);
  }
  ErrorList validate(const json::object& object) const override {
    return core::validate_persistent_volume_claim(object);
  }
  ErrorList validate_update(const json::object& object, const json::object& old) const override {
    return core::validate_persistent_volume_claim_update(object, old);
  }
  // kube's PersistentVolumeClaimToSelectableFields keeps "name" for old clients.
  std::vector<std::string> selectable_field_names() const override { return {"name"}; }
  void selectable_fields(const json::object& object, registry::SelectableFields& fields) const override {
    fields["name"] = registry::meta_string(object, "name");
  }

  std::vector<registry::TableColumn> table_columns() const override {
    return {registry::name_column(),
            {"Status", "string", "", "phase represents the current phase of PersistentVolumeClaim.", 0},
            {"Volume", "string", "", "volumeName is the binding reference to the PersistentVolume backing this claim.", 0},
            {"Capacity", "string", "", "capacity represents the actual resources of the underlying volume.", 0},
            {"Access Modes", "string", "",
             "accessModes contains the actual access modes the volume backing the PVC has. More info: "
             "https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes-1",
             0},
            {"StorageClass", "string", "", "StorageClass of the pvc", 0},
            {"VolumeAttributesClass", "string", "", "VolumeAttributesClass of the pvc", 0},
            registry::age_column(),
            {"VolumeMode", "string", "",
             "volumeMode defines what type of volume is required by the claim. Value of Filesystem is implied when "
             "not included in claim spec.",
             1}};
  }
  json::array table_cells(const json::object& object) const override { return claim_cells(object); }
};

}  // namespace

namespace core {

// ValidatePersistentVolumeClaimSpec.
ErrorList validate_persistent_volume_claim(const json::object& claim) {
  ErrorList errors;
  static const json::object kEmpty;
  const json::object* spec_ptr = object_at(claim, "spec");
  const json::object& spec = spec_ptr ? *spec_ptr : kEmpty;
  const Path path("spec");
  validate_access_modes(spec, path.child("accessModes"), "at least 1 access mode is required", errors);
  const json::object* requests = object_at(object_at(spec, "resources"), "requests");
  const Path storage_path = path.child("resources").key("storage");
  if (!requests || !requests->contains("storage")) {
    errors.push_back(validation::required(storage_path));
  } else if (const json::value& value = requests->at("storage"); value.is_string()) {
    if (auto amount = parse_quantity(value.as_string()); amount && *amount <= 0)
      errors.push_back(validation::invalid(storage_path, value.as_string(), "must be greater than zero"));
    else append(errors, quantity_value_errors("storage", value.as_string(), storage_path));
  }
  validate_class_names(spec, path, errors);
  if (auto mode = string_at(spec, "volumeMode"); has(spec, "volumeMode") && mode != "Block" && mode != "Filesystem")
    errors.push_back(validation::not_supported(path.child("volumeMode"), mode, {"Block", "Filesystem"}));
  return errors;
}

ErrorList validate_persistent_volume_claim_update(const json::object& claim, const json::object& old) {
  ErrorList errors = validate_persistent_volume_claim(claim);
  json::object spec = object_or_empty(claim, "spec");
  json::object old_spec = object_or_empty(old, "spec");
  // The volume name may be set once.
  if (string_at(old_spec, "volumeName").empty()) {
    if (auto it = spec.find("volumeName"); it != spec.end()) old_spec["volumeName"] = it->value();
    else old_spec.erase("volumeName");
  }
  // A storage class may be set on a claim that had none (validateStorageClassUpgradeFromNil).
  if (!old_spec.contains("storageClassName") && spec.contains("storageClassName")) spec.erase("storageClassName");
  const bool bound = string_at(object_at(claim, "status"), "phase") == "Bound";
  if (bound) {
    json::object* requests = object_at(object_at(&spec, "resources"), "requests");
    const json::object* old_requests = object_at(object_at(old_spec, "resources"), "requests");
    if (requests) {
      if (old_requests && old_requests->contains("storage")) (*requests)["storage"] = old_requests->at("storage");
      else requests->erase("storage");
    }
  }
  if (spec != old_spec)
    errors.push_back(validation::forbidden(
        Path("spec"), "spec is immutable after creation except resources.requests and volumeAttributesClassName for "
                      "bound claims\n  core.PersistentVolumeClaimSpec{\n- " +
                          json::serialize(old_spec) + "\n+ " + json::serialize(spec) + "\n  }\n"));
  // RecoverVolumeExpansionFailure (on in 1.32): a request may shrink, but not to the recorded capacity.
  const auto size = storage_request(object_at(claim, "spec"));
  const auto old_size = storage_request(object_at(old, "spec"));
  if (size && old_size && *size < *old_size) {
    std::string_view capacity = string_at(object_at(object_at(old, "status"), "capacity"), "storage");
    const QuantityNanos recorded = capacity.empty() ? 0 : parse_quantity(capacity).value_or(0);
    if (*size <= recorded)
      errors.push_back(validation::forbidden(Path("spec").child("resources").child("requests").child("storage"),
                                             "field can not be less than status.capacity"));
  }
  return errors;
}

}  // namespace core

ResourceStorage persistentvolumeclaims() {
  registry::ResourceDefinition definition{.group = "", .version = "v1", .resource = "persistentvolumeclaims",
                                          .kind = "PersistentVolumeClaim", .singular = "persistentvolumeclaim",
                                          .namespaced = true, .short_names = {"pvc"}, .subresources = {"status"}};
  return {std::move(definition), std::make_shared<PersistentVolumeClaimStrategy>()};
}

}  // namespace kapi::apis
