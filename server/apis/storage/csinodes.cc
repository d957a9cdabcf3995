// storage.k8s.io/v1 CSINode (pkg/registry/storage/csinode/strategy.go, ValidateCSINode/ValidateCSINodeUpdate of
// pkg/apis/storage/validation as of 1.32 with AllowLongNodeID, printCSINode).
#include "base/name_validation.h"
#include "server/apis/core/core_validation.h"
#include "server/apis/storage/csi_driver_name.h"
#include "server/apis/storage/storage.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"

#include <set>

namespace kapi::apis {
namespace {

using namespace registry::fields;
using validation::ErrorList;
using validation::Path;

constexpr std::size_t kMaxNodeIdLength = 256;

ErrorList validate_csi_node(const json::object& node) {
  ErrorList errors;
  const Path drivers_path = Path("spec").child("drivers");
  std::set<std::string, std::less<>> names;
  for_each_object(object_at(node, "spec"), "drivers", [&](const json::object& driver, std::size_t i) {
    const Path at = drivers_path.index(i);
    const std::string_view name = string_at(driver, "name");
    core::append(errors, csi::csi_driver_name_errors(name, at.child("name")));
    const std::string_view node_id = string_at(driver, "nodeID");
    if (node_id.empty()) errors.push_back(validation::required(at.child("nodeID")));
    if (node_id.size() > kMaxNodeIdLength)
      errors.push_back(validation::invalid(at.child("nodeID"), node_id,
                                           "must be " + std::to_string(kMaxNodeIdLength) + " characters or less"));
    if (auto count = int_at(object_at(driver, "allocatable"), "count"); count && *count < 0)
      errors.push_back(validation::invalid_value(at.child("allocatable").child("count"), std::to_string(*count),
                                                 "must be greater than or equal to 0"));
    if (!names.emplace(name).second) errors.push_back(validation::duplicate(at.child("name"), name));
    std::set<std::string, std::less<>> keys;
    for (const auto& key : strings_at(driver, "topologyKeys")) {
      if (key.empty()) errors.push_back(validation::required(at));
      if (!keys.insert(key).second) errors.push_back(validation::duplicate(at, key));
      for (const auto& message : validation::is_qualified_name(key)) errors.push_back(validation::invalid(at, key, message));
    }
  });
  return errors;
}

// What Go writes whatever the body sent: drivers and each driver's topologyKeys (no omitempty) as null.
void fill_go_zero_values(json::object& node) {
  json::object& spec = ensure_object(node, "spec");
  if (!spec.contains("drivers")) spec["drivers"] = nullptr;
  for_each_object(&spec, "drivers", [](json::object& driver, std::size_t) {
    if (!driver.contains("topologyKeys")) driver["topologyKeys"] = nullptr;
  });
}

class CSINodeStrategy final : public registry::Strategy {
 public:
  bool allow_unconditional_update() const override { return false; }
  // kube's store for this kind has ReturnDeletedObject: a DELETE answers with the object, not a Status.
  bool return_deleted_object() const override { return true; }
  void prepare_for_create(json::object& node) const override { fill_go_zero_values(node); }
  void prepare_for_update(json::object& node, const json::object&) const override { fill_go_zero_values(node); }
  ErrorList validate(const json::object& node) const override { return validate_csi_node(node); }
  std::vector<registry::TableColumn> table_columns() const override {
    return {registry::name_column(),
            {"Drivers", "integer", "", "Drivers indicates the number of CSI drivers registered on the node", 0},
            registry::age_column()};
  }
  json::array table_cells(const json::object& node) const override {
    const json::array* drivers = array_at(object_at(node, "spec"), "drivers");
    return {json::string(registry::meta_string(node, "name")),
            static_cast<std::int64_t>(drivers ? drivers->size() : 0), json::string(registry::age_of(node))};
  }
};

}  // namespace

ResourceStorage csinodes() {
  registry::ResourceDefinition definition{.group = "storage.k8s.io", .version = "v1", .resource = "csinodes",
                                          .kind = "CSINode", .singular = "csinode", .namespaced = false};
  return {std::move(definition), std::make_shared<CSINodeStrategy>()};
}

}  // namespace kapi::apis
