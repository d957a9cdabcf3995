// core/v1 Secret (pkg/registry/core/secret): stringData is merged into data (base64) on write, type defaults to
// Opaque and may not change.
#include "base/base64.h"
#include "base/name_validation.h"
#include "server/apis/resource_storage.h"
#include "server/registry/object_meta.h"

#include <boost/json.hpp>

namespace kapi::apis {
namespace {

namespace json = boost::json;
using validation::Path;

class SecretStrategy final : public registry::Strategy {
 public:
  void prepare_for_create(json::object& object) const override { normalize(object); }
  void prepare_for_update(json::object& object, const json::object&) const override { normalize(object); }

  validation::ErrorList validate(const json::object& object) const override {
    validation::ErrorList errors;
    if (auto it = object.find("data"); it != object.end() && it->value().is_object()) {
      for (const auto& [key, value] : it->value().as_object())
        for (auto& message : validation::is_config_map_key(key)) errors.push_back(validation::invalid(Path("data"), key, message));
    }
    return errors;
  }
  validation::ErrorList validate_update(const json::object& object, const json::object& old) const override {
    validation::ErrorList errors = validate(object);
    std::string_view type = registry::string_field(object, "type");
    if (type != registry::string_field(old, "type")) errors.push_back(validation::invalid(Path("type"), type, "field is immutable"));
    return errors;
  }

  std::vector<registry::TableColumn> table_columns() const override {
    return {registry::name_column(),
            {"Type", "string", "", "The type of the secret", 0},
            {"Data", "string", "", "The number of entries in the secret", 0},
            registry::age_column()};
  }
  json::array table_cells(const json::object& object) const override {
    std::int64_t count = 0;
    if (auto it = object.find("data"); it != object.end() && it->value().is_object())
      count = static_cast<std::int64_t>(it->value().as_object().size());
    return {json::string(registry::meta_string(object, "name")), json::string(registry::string_field(object, "type")),
            count, json::string(registry::age_of(object))};
  }

 private:
  static void normalize(json::object& object) {
    if (registry::string_field(object, "type").empty()) object["type"] = "Opaque";
    auto string_data = object.find("stringData");
    if (string_data == object.end()) return;
    if (string_data->value().is_object()) {
      auto& data = object["data"];
      if (!data.is_object()) data = json::object();
      for (const auto& [key, value] : string_data->value().as_object())
        if (value.is_string()) data.as_object()[key] = base::base64_encode(value.as_string());
    }
    object.erase("stringData");
  }
};

}  // namespace

ResourceStorage secrets() {
  registry::ResourceDefinition definition{.group = "", .version = "v1", .resource = "secrets", .kind = "Secret",
                                          .singular = "secret", .namespaced = true};
  return {std::move(definition), std::make_shared<SecretStrategy>()};
}

}  // namespace kapi::apis
