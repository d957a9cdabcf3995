// apps/v1 ControllerRevision (pkg/registry/apps/controllerrevision, ValidateControllerRevision,
// printControllerRevision).
#include "server/apis/apps/apps.h"
#include "server/apis/apps/workload.h"
#include "server/registry/object_meta.h"

#include <cctype>

namespace kapi::apis {
namespace {

using namespace apps;

class ControllerRevisionStrategy final : public registry::Strategy {
 public:
  validation::ErrorList validate(const json::object& object) const override {
    validation::ErrorList errors;
    if (auto revision = int_at(&object, "revision"); revision && *revision < 0)
      errors.push_back(validation::invalid_value(validation::Path("revision"), std::to_string(*revision),
                                                 "must be greater than or equal to 0"));
    return errors;
  }
  // ValidateControllerRevisionUpdate: a revision's data never changes.
  validation::ErrorList validate_update(const json::object& object, const json::object& old) const override {
    validation::ErrorList errors = validate(object);
    auto data = [](const json::object& revision) {
      auto it = revision.find("data");
      return it == revision.end() ? json::value() : it->value();
    };
    if (data(object) != data(old))
      errors.push_back(validation::invalid_value(validation::Path("data"), json::serialize(data(object)),
                                                 "field is immutable"));
    return errors;
  }

  std::vector<registry::TableColumn> table_columns() const override {
    return {registry::name_column(),
            {"Controller", "string", "", "Controller of the object", 0},
            {"Revision", "string", "", "Revision indicates the revision of the state represented by Data.", 0},
            registry::age_column()};
  }
  json::array table_cells(const json::object& object) const override {
    return {json::string(registry::meta_string(object, "name")), json::string(controller_name(object)),
            int_at(&object, "revision").value_or(0), json::string(registry::age_of(object))};
  }

 private:
  // formatResourceName of the controller owner reference: "statefulset.apps/web", "<none>" without one.
  static std::string controller_name(const json::object& object) {
    const json::object* metadata = object_at(object, "metadata");
    auto it = metadata ? metadata->find("ownerReferences") : nullptr;
    if (!metadata || it == metadata->end() || !it->value().is_array()) return "<none>";
    for (const auto& reference : it->value().as_array()) {
      const json::object* owner = reference.if_object();
      if (!owner) continue;
      auto controller = owner->find("controller");
      if (controller == owner->end() || !controller->value().is_bool() || !controller->value().as_bool()) continue;
      std::string_view api_version = string_at(owner, "apiVersion");
      std::size_t slash = api_version.find('/');
      std::string kind(string_at(owner, "kind"));
      if (slash != std::string_view::npos) kind += "." + std::string(api_version.substr(0, slash));
      for (char& c : kind) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      return kind.empty() ? std::string(string_at(owner, "name")) : kind + "/" + std::string(string_at(owner, "name"));
    }
    return "<none>";
  }
};

}  // namespace

ResourceStorage controllerrevisions() {
  // As kube's: no short name, no category, no subresource.
  registry::ResourceDefinition definition{.group = "apps", .version = "v1", .resource = "controllerrevisions",
                                          .kind = "ControllerRevision", .singular = "controllerrevision",
                                          .namespaced = true, .storage_resource = "controllerrevisions"};
  return {std::move(definition), std::make_shared<ControllerRevisionStrategy>()};
}

}  // namespace kapi::apis
