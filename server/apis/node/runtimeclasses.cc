// node.k8s.io/v1 RuntimeClass (pkg/registry/node/runtimeclass/strategy.go; pkg/apis/node/validation
// ValidateRuntimeClass, validateOverhead, validateScheduling and ValidateRuntimeClassUpdate;
// printers.printRuntimeClass).
#include "server/apis/node/node.h"

#include "base/name_validation.h"
#include "server/apis/core/pod_validation.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"
#include "server/validation/object_meta.h"

#include <array>
#include <set>

namespace kapi::apis {
namespace {

namespace json = boost::json;
using namespace registry::fields;
using validation::Path;

class RuntimeClassStrategy final : public registry::Strategy {
 public:
  bool tracks_generation() const override { return true; }

  validation::ErrorList validate(const json::object& object) const override {
    validation::ErrorList errors;
    const std::string_view handler = string_at(object, "handler");
    for (auto& message : validation::is_dns1123_label(handler))
      errors.push_back(validation::invalid(Path("handler"), handler, message));
    // validateOverhead reuses ValidateResourceRequirements, the fixed overhead taken as limits.
    if (const json::object* pod_fixed = object_at(object_at(object, "overhead"), "podFixed")) {
      const json::object as_container{{"resources", json::object{{"limits", *pod_fixed}}}};
      for (auto& error : core::resource_requirements_errors(as_container, Path("overhead"))) errors.push_back(std::move(error));
    }
    if (const json::object* scheduling = object_at(object, "scheduling")) {
      if (const json::object* node_selector = object_at(*scheduling, "nodeSelector"))
        for (auto& error : validation::validate_labels(*node_selector, Path("scheduling").child("nodeSelector")))
          errors.push_back(std::move(error));
      const Path tolerations_path = Path("scheduling").child("tolerations");
      for (auto& error : core::tolerations_errors(*scheduling, tolerations_path)) errors.push_back(std::move(error));
      // Each toleration (key, operator, value, effect) at most once.
      std::set<std::array<std::string, 4>> seen;
      for_each_object(scheduling, "tolerations", [&](const json::object& toleration, std::size_t i) {
        std::array<std::string, 4> key{std::string(string_at(toleration, "key")), std::string(string_at(toleration, "operator")),
                                       std::string(string_at(toleration, "value")), std::string(string_at(toleration, "effect"))};
        if (!seen.insert(key).second)
          errors.push_back({validation::ErrorType::Duplicate, tolerations_path.index(i).str(),
                            "core.Toleration{Key:" + validation::quoted(key[0]) + ", Operator:" + validation::quoted(key[1]) +
                                ", Value:" + validation::quoted(key[2]) + ", Effect:" + validation::quoted(key[3]) +
                                ", TolerationSeconds:(*int64)(nil)}",
                            ""});
      });
    }
    return errors;
  }
  validation::ErrorList validate_update(const json::object& object, const json::object& old) const override {
    validation::ErrorList errors = validate(object);
    if (string_at(object, "handler") != string_at(old, "handler"))
      errors.push_back(validation::invalid(Path("handler"), string_at(object, "handler"), "field is immutable"));
    return errors;
  }

  std::vector<registry::TableColumn> table_columns() const override {
    return {registry::name_column(),
            {"Handler", "string", "",
             "Handler specifies the underlying runtime the CRI calls to handle pod and/or container creation.", 0},
            registry::age_column()};
  }
  json::array table_cells(const json::object& object) const override {
    return {json::string(registry::meta_string(object, "name")), json::string(string_at(object, "handler")),
            json::string(registry::age_of(object))};
  }
};

}  // namespace

ResourceStorage runtimeclasses() {
  registry::ResourceDefinition definition{.group = "node.k8s.io", .version = "v1", .resource = "runtimeclasses",
                                          .kind = "RuntimeClass", .singular = "runtimeclass", .namespaced = false,
                                          .storage_resource = "runtimeclasses"};
  return {std::move(definition), std::make_shared<RuntimeClassStrategy>()};
}

}  // namespace kapi::apis
