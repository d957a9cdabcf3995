// storage.k8s.io/v1 CSIStorageCapacity (pkg/registry/storage/csistoragecapacity/strategy.go,
// ValidateCSIStorageCapacity/ValidateCSIStorageCapacityUpdate of pkg/apis/storage/validation as of 1.32,
// printCSIStorageCapacity, which has no Age column).
#include "base/name_validation.h"
#include "base/quantity.h"
#include "server/apis/storage/storage.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"
#include "server/validation/metav1_validation.h"

namespace kapi::apis {
namespace {

using namespace registry::fields;
using validation::ErrorList;
using validation::Path;

ErrorList validate_capacity(const json::object& capacity) {
  ErrorList errors;
  if (const json::object* topology = object_at(capacity, "nodeTopology"))
    for (auto& error : validation::validate_label_selector(*topology, Path("nodeTopology"))) errors.push_back(std::move(error));
  const std::string_view class_name = string_at(capacity, "storageClassName");
  for (const auto& message : validation::is_dns1123_subdomain(class_name))
    errors.push_back(validation::invalid(Path("storageClassName"), class_name, message));
  // ValidateNonnegativeQuantity (a quantity that does not parse never gets here: decoding refuses it).
  if (auto it = capacity.find("capacity"); it != capacity.end() && it->value().is_string()) {
    const std::string_view text = it->value().as_string();
    if (auto value = parse_quantity(text); value && *value < 0)
      errors.push_back(validation::invalid(Path("capacity"), text, "must be greater than or equal to 0"));
  }
  return errors;
}

class CSIStorageCapacityStrategy final : public registry::Strategy {
 public:
  bool allow_unconditional_update() const override { return false; }
  ErrorList validate(const json::object& capacity) const override { return validate_capacity(capacity); }
  ErrorList validate_update(const json::object& capacity, const json::object& old) const override {
    ErrorList errors = validate_capacity(capacity);
    const json::value* topology = capacity.if_contains("nodeTopology");
    const json::value* old_topology = old.if_contains("nodeTopology");
    if ((topology == nullptr) != (old_topology == nullptr) || (topology && *topology != *old_topology))
      errors.push_back(validation::invalid_value(Path("nodeTopology"), topology ? json::serialize(*topology) : "null",
                                                 "field is immutable"));
    const std::string_view class_name = string_at(capacity, "storageClassName");
    if (class_name != string_at(old, "storageClassName"))
      errors.push_back(validation::invalid(Path("storageClassName"), class_name, "field is immutable"));
    return errors;
  }
  std::vector<registry::TableColumn> table_columns() const override {
    return {registry::name_column(),
            {"StorageClassName", "string", "",
             "storageClassName represents the name of the StorageClass that the reported capacity applies to. It "
             "must meet the same requirements as the name of a StorageClass object (non-empty, DNS subdomain). If "
             "that object no longer exists, the CSIStorageCapacity object is obsolete and should be removed by its "
             "creator. This field is immutable.",
             0},
            {"Capacity", "string", "",
             "capacity is the value reported by the CSI driver in its GetCapacityResponse for a GetCapacityRequest "
             "with topology and parameters that match the previous fields.\n\nThe semantic is currently (CSI spec "
             "1.2) defined as: The available capacity, in bytes, of the storage that can be used to provision "
             "volumes. If not set, that information is currently unavailable.",
             0}};
  }
  json::array table_cells(const json::object& capacity) const override {
    const std::string_view value = string_at(capacity, "capacity");
    return {json::string(registry::meta_string(capacity, "name")), json::string(string_at(capacity, "storageClassName")),
            json::string(value.empty() ? "<unset>" : value)};
  }
};

}  // namespace

ResourceStorage csistoragecapacities() {
  registry::ResourceDefinition definition{.group = "storage.k8s.io", .version = "v1",
                                          .resource = "csistoragecapacities", .kind = "CSIStorageCapacity",
                                          .singular = "csistoragecapacity", .namespaced = true};
  return {std::move(definition), std::make_shared<CSIStorageCapacityStrategy>()};
}

}  // namespace kapi::apis
