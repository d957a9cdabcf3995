// storage.k8s.io/v1 CSIDriver (pkg/registry/storage/csidriver/strategy.go, SetDefaults_CSIDriver,
// ValidateCSIDriver/ValidateCSIDriverUpdate of pkg/apis/storage/validation as of 1.32, printCSIDriver).
#include "base/name_validation.h"
#include "server/apis/storage/csi_driver_name.h"
#include "server/apis/storage/storage.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace kapi::apis {

namespace csi {

validation::ErrorList csi_driver_name_errors(std::string_view name, const validation::Path& path) {
  validation::ErrorList errors;
  if (name.empty()) errors.push_back(validation::required(path));
  if (name.size() > 63) errors.push_back(validation::too_long(path, 63));
  std::string lowered(name);
  std::transform(lowered.begin(), lowered.end(), lowered.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const auto& message : validation::is_dns1123_subdomain(lowered))
    errors.push_back(validation::invalid(path, name, message));
  return errors;
}

}  // namespace csi

namespace {

using namespace registry::fields;
using validation::ErrorList;
using validation::Path;

ErrorList validate_csi_driver(const json::object& driver) {
  ErrorList errors = csi::csi_driver_name_errors(registry::meta_string(driver, "name"), Path("name"));
  const Path spec_path("spec");
  const json::object& spec = object_or_empty(driver, "spec");
  if (auto it = spec.find("fsGroupPolicy"); it != spec.end() && it->value().is_string()) {
    const std::string_view policy = it->value().as_string();
    if (policy != "File" && policy != "None" && policy != "ReadWriteOnceWithFSType")
      errors.push_back(validation::not_supported(spec_path.child("fsGroupPolicy"), policy,
                                                 {"File", "None", "ReadWriteOnceWithFSType"}));
  }
  std::set<std::string, std::less<>> audiences;
  for_each_object(&spec, "tokenRequests", [&](const json::object& request, std::size_t i) {
    const Path at = spec_path.child("tokenRequests").index(i);
    const std::string_view audience = string_at(request, "audience");
    if (!audiences.emplace(audience).second) {
      errors.push_back(validation::duplicate(at.child("audience"), audience));
      return;
    }
    const std::optional<std::int64_t> seconds = int_at(request, "expirationSeconds");
    if (!seconds) return;
    if (*seconds < 600)
      errors.push_back(validation::invalid_value(at.child("expirationSeconds"), std::to_string(*seconds),
                                                 "may not specify a duration less than 10 minutes"));
    if (*seconds > (std::int64_t{1} << 32))
      errors.push_back(validation::invalid_value(at.child("expirationSeconds"), std::to_string(*seconds),
                                                 "may not specify a duration larger than 2^32 seconds"));
  });
  for (const auto& mode : strings_at(spec, "volumeLifecycleModes"))
    if (mode != "Persistent" && mode != "Ephemeral")
      errors.push_back(validation::not_supported(spec_path.child("volumeLifecycleModes"), mode, {"Persistent", "Ephemeral"}));
  return errors;
}

// SetDefaults_CSIDriver, with the SELinuxMountReadWriteOncePod gate on (its 1.32 default).
void set_csi_driver_defaults(json::object& driver) {
  json::object& spec = ensure_object(driver, "spec");
  for (auto [member, value] : {std::pair{"attachRequired", true}, std::pair{"podInfoOnMount", false},
                               std::pair{"storageCapacity", false}, std::pair{"requiresRepublish", false},
                               std::pair{"seLinuxMount", false}})
    if (!has(spec, member)) spec[member] = value;
  if (!has(spec, "fsGroupPolicy")) spec["fsGroupPolicy"] = "ReadWriteOnceWithFSType";
  const json::array* modes = array_at(spec, "volumeLifecycleModes");
  if (!modes || modes->empty()) spec["volumeLifecycleModes"] = json::array{"Persistent"};
}

std::string go_modes(const json::object& spec) {
  std::string out = "[]storage.VolumeLifecycleMode{";
  const auto modes = strings_at(spec, "volumeLifecycleModes");
  for (std::size_t i = 0; i < modes.size(); ++i) out += (i ? ", " : "") + validation::quoted(modes[i]);
  return out + "}";
}

class CSIDriverStrategy final : public registry::Strategy {
 public:
  bool allow_unconditional_update() const override { return false; }
  // kube's store for this kind has ReturnDeletedObject: a DELETE answers with the object, not a Status.
  bool return_deleted_object() const override { return true; }
  void apply_scheme_defaults(json::object& object) const override { set_csi_driver_defaults(object); }
  void prepare_for_create(json::object& driver) const override { set_csi_driver_defaults(driver); }
  // Generation is not set on create, but a spec change bumps it (the strategy's PrepareForUpdate).
  void prepare_for_update(json::object& driver, const json::object& old) const override {
    set_csi_driver_defaults(driver);
    if (object_or_empty(driver, "spec") != object_or_empty(old, "spec")) {
      auto& generation = registry::metadata_of(driver)["generation"];
      generation = (generation.is_int64() ? generation.as_int64() : 0) + 1;
    }
  }
  ErrorList validate(const json::object& driver) const override { return validate_csi_driver(driver); }
  ErrorList validate_update(const json::object& driver, const json::object& old) const override {
    ErrorList errors = validate_csi_driver(driver);
    const json::object& spec = object_or_empty(driver, "spec");
    const json::object& old_spec = object_or_empty(old, "spec");
    // kube's field path has the typo "attachedRequired".
    if (bool_at(spec, "attachRequired") != bool_at(old_spec, "attachRequired"))
      errors.push_back(validation::invalid_value(Path("spec").child("attachedRequired"),
                                                 bool_at(spec, "attachRequired") ? "true" : "false", "field is immutable"));
    if (strings_at(spec, "volumeLifecycleModes") != strings_at(old_spec, "volumeLifecycleModes"))
      errors.push_back(validation::invalid_value(Path("spec").child("volumeLifecycleModes"), go_modes(spec),
                                                 "field is immutable"));
    return errors;
  }
  std::vector<registry::TableColumn> table_columns() const override {
    return {registry::name_column(),
            {"AttachRequired", "boolean", "", description("attachRequired"), 0},
            {"PodInfoOnMount", "boolean", "", description("podInfoOnMount"), 0},
            {"StorageCapacity", "boolean", "", description("storageCapacity"), 0},
            {"TokenRequests", "string", "", description("tokenRequests"), 0},
            {"RequiresRepublish", "boolean", "", description("requiresRepublish"), 0},
            {"Modes", "string", "", description("volumeLifecycleModes"), 0},
            registry::age_column()};
  }
  json::array table_cells(const json::object& driver) const override {
    const json::object& spec = object_or_empty(driver, "spec");
    std::string audiences;
    for_each_object(&spec, "tokenRequests", [&](const json::object& request, std::size_t i) {
      audiences += (i ? "," : "") + std::string(string_at(request, "audience"));
    });
    std::string modes;
    for (const auto& mode : strings_at(spec, "volumeLifecycleModes")) modes += (modes.empty() ? "" : ",") + mode;
    return {json::string(registry::meta_string(driver, "name")),
            has(spec, "attachRequired") ? bool_at(spec, "attachRequired") : true,
            bool_at(spec, "podInfoOnMount"),
            bool_at(spec, "storageCapacity"),
            json::string(audiences.empty() ? "<unset>" : audiences),
            bool_at(spec, "requiresRepublish"),
            json::string(modes.empty() ? "<none>" : modes),
            json::string(registry::age_of(driver))};
  }

 private:
  // The CSIDriverSpec field docs kube's printer uses as descriptions (the first paragraph).
  static std::string description(std::string_view field) {
    if (field == "attachRequired")
      return "attachRequired indicates this CSI volume driver requires an attach operation (because it implements "
             "the CSI ControllerPublishVolume() method), and that the Kubernetes attach detach controller should "
             "call the attach volume interface which checks the volumeattachment status and waits until the volume "
             "is attached before proceeding to mounting. The CSI external-attacher coordinates with CSI volume "
             "driver and updates the volumeattachment status when the attach operation is complete. If the "
             "CSIDriverRegistry feature gate is enabled and the value is specified to false, the attach operation "
             "will be skipped. Otherwise the attach operation will be called.\n\nThis field is immutable.";
    if (field == "podInfoOnMount")
      return "podInfoOnMount indicates this CSI volume driver requires additional pod information (like podName, "
             "podUID, etc.) during mount operations, if set to true. If set to false, pod information will not be "
             "passed on mount. Default is false.";
    if (field == "storageCapacity")
      return "storageCapacity indicates that the CSI volume driver wants pod scheduling to consider the storage "
             "capacity that the driver deployment will report by creating CSIStorageCapacity objects with capacity "
             "information, if set to true.";
    if (field == "tokenRequests")
      return "tokenRequests indicates the CSI driver needs pods' service account tokens it is mounting volume for "
             "to do necessary authentication.";
    if (field == "requiresRepublish")
      return "requiresRepublish indicates the CSI driver wants `NodePublishVolume` being periodically called to "
             "reflect any possible change in the mounted volume. This field defaults to false.";
    return "volumeLifecycleModes defines what kind of volumes this CSI volume driver supports. The default if the "
           "list is empty is \"Persistent\", which is the usage defined by the CSI specification and implemented in "
           "Kubernetes via the usual PV/PVC mechanism.";
  }
};

}  // namespace

ResourceStorage csidrivers() {
  registry::ResourceDefinition definition{.group = "storage.k8s.io", .version = "v1", .resource = "csidrivers",
                                          .kind = "CSIDriver", .singular = "csidriver", .namespaced = false};
  return {std::move(definition), std::make_shared<CSIDriverStrategy>()};
}

}  // namespace kapi::apis
