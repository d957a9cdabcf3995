// core/v1 PodTemplate (pkg/registry/core/podtemplate, validation.ValidatePodTemplate, printers.printPodTemplate):
// the template is checked as a pod template spec (ValidatePodTemplateSpec) and defaulted as a PodSpec; changes to
// it bump metadata.generation.
#include "server/apis/core/core_validation.h"
#include "server/apis/core/pod_defaults.h"
#include "server/apis/core/pod_validation.h"
#include "server/apis/core/resource_validation.h"
#include "server/apis/resource_storage.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"

namespace kapi::apis {
namespace {

using namespace registry::fields;
using validation::ErrorList;
using validation::Path;

std::string join_containers(const json::object* spec, std::string_view member) {
  std::string out;
  for_each_object(spec, "containers", [&](const json::object& container, std::size_t) {
    if (!out.empty()) out += ",";
    out += string_at(container, member);
  });
  return out;
}

class PodTemplateStrategy final : public registry::Strategy {
 public:
  // kube's store for this kind has ReturnDeletedObject: a DELETE answers with the object, not a Status.
  bool return_deleted_object() const override { return true; }
  void apply_scheme_defaults(json::object& object) const override { apply_defaults(object); }
  void prepare_for_create(json::object& object) const override { apply_defaults(object); }
  void prepare_for_update(json::object& object, const json::object&) const override { apply_defaults(object); }
  bool tracks_generation() const override { return true; }
  ErrorList validate(const json::object& object) const override {
    return core::validate_pod_template_spec(object_or_empty(object, "template"), Path("template"));
  }

  std::vector<registry::TableColumn> table_columns() const override {
    return {registry::name_column(),
            {"Containers", "string", "", "Names of each container in the template.", 0},
            {"Images", "string", "", "Images referenced by each container in the template.", 0},
            {"Pod Labels", "string", "", "The labels for the pod template.", 0}};
  }
  json::array table_cells(const json::object& object) const override {
    const json::object* template_ = object_at(object, "template");
    const json::object* spec = object_at(template_, "spec");
    return {json::string(registry::meta_string(object, "name")), json::string(join_containers(spec, "name")),
            json::string(join_containers(spec, "image")),
            json::string(core::format_labels(object_at(object_at(template_, "metadata"), "labels")))};
  }

 private:
  static void apply_defaults(json::object& object) {
    if (json::object* spec = object_at(object_at(&object, "template"), "spec")) core::apply_pod_spec_defaults(*spec);
  }
};

}  // namespace

ResourceStorage podtemplates() {
  registry::ResourceDefinition definition{.group = "", .version = "v1", .resource = "podtemplates",
                                          .kind = "PodTemplate", .singular = "podtemplate", .namespaced = true};
  return {std::move(definition), std::make_shared<PodTemplateStrategy>()};
}

}  // namespace kapi::apis
