// core/v1 ConfigMap (pkg/registry/core/configmap, validation.ValidateConfigMap, printers.printConfigMap).
#include "base/name_validation.h"
#include "server/apis/resource_storage.h"
#include "server/registry/object_meta.h"

#include <boost/json.hpp>

namespace kapi::apis {
namespace {

namespace json = boost::json;
using validation::Path;

// core.MaxSecretSize: the bound on a ConfigMap's or Secret's data.
constexpr std::size_t kMaxDataSize = 1024 * 1024;

class ConfigMapStrategy final : public registry::Strategy {
 public:
  validation::ErrorList validate(const json::object& object) const override {
    validation::ErrorList errors;
    std::size_t total = 0;
    const json::object* data = object_field(object, "data");
    const json::object* binary = object_field(object, "binaryData");
    if (data) {
      for (const auto& [key, value] : *data) {
        for (auto& message : validation::is_config_map_key(key)) errors.push_back(validation::invalid(Path("data"), key, message));
        if (binary && binary->contains(key))
          errors.push_back(validation::invalid(Path("data"), key, "duplicate of key present in binaryData"));
        total += value.is_string() ? value.as_string().size() : 0;
      }
    }
    if (binary) {
      for (const auto& [key, value] : *binary) {
        for (auto& message : validation::is_config_map_key(key))
          errors.push_back(validation::invalid(Path("binaryData"), key, message));
        total += value.is_string() ? value.as_string().size() * 3 / 4 : 0;
      }
    }
    if (total > kMaxDataSize)
      errors.push_back({validation::ErrorType::TooLong, "", "",
                        "must have at most " + std::to_string(kMaxDataSize) + " bytes"});
    return errors;
  }

  std::vector<registry::TableColumn> table_columns() const override {
    return {registry::name_column(), {"Data", "string", "", "Data contains the configuration data.", 0},
            registry::age_column()};
  }
  json::array table_cells(const json::object& object) const override {
    std::int64_t count = 0;
    if (auto* data = object_field(object, "data")) count += static_cast<std::int64_t>(data->size());
    if (auto* binary = object_field(object, "binaryData")) count += static_cast<std::int64_t>(binary->size());
    return {json::string(registry::meta_string(object, "name")), count, json::string(registry::age_of(object))};
  }

 private:
  static const json::object* object_field(const json::object& object, std::string_view key) {
    auto it = object.find(key);
    return it != object.end() && it->value().is_object() ? &it->value().as_object() : nullptr;
  }
};

}  // namespace

ResourceStorage configmaps() {
  registry::ResourceDefinition definition{.group = "", .version = "v1", .resource = "configmaps", .kind = "ConfigMap",
                                          .singular = "configmap", .namespaced = true, .short_names = {"cm"}};
  return {std::move(definition), std::make_shared<ConfigMapStrategy>()};
}

}  // namespace kapi::apis
