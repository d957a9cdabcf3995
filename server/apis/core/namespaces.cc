// core/v1 Namespace (pkg/registry/core/namespace): cluster-scoped, named by a DNS-1123 label, Active on create
// with the "kubernetes" finalizer in spec. DELETE only turns it Terminating; the namespace controller deletes
// its content and then removes that finalizer through /finalize, which deletes the namespace.
#include "server/apierrors/errors.h"
#include "server/apis/resource_storage.h"
#include "server/registry/object_meta.h"

#include <boost/json.hpp>

namespace kapi::apis {
namespace {

namespace json = boost::json;

class NamespaceStrategy final : public registry::Strategy {
 public:
  bool name_is_dns_label() const override { return true; }
  void prepare_for_create(json::object& object) const override {
    object["status"] = json::object{{"phase", "Active"}};
    auto& spec = object["spec"];
    if (!spec.is_object()) spec = json::object();
    spec.as_object()["finalizers"] = json::array{"kubernetes"};
    // The immutable label kube-apiserver keeps on every namespace (NamespaceDefaultLabelName).
    auto& labels = registry::metadata_of(object)["labels"];
    if (!labels.is_object()) labels = json::object();
    labels.as_object()["kubernetes.io/metadata.name"] = registry::meta_string(object, "name");
  }
  void prepare_for_update(json::object& object, const json::object& old) const override {
    // status and spec.finalizers change through their own subresources only.
    if (auto it = old.find("status"); it != old.end()) object["status"] = it->value();
    if (auto it = old.find("spec"); it != old.end()) object["spec"] = it->value();
    auto& labels = registry::metadata_of(object)["labels"];
    if (!labels.is_object()) labels = json::object();
    labels.as_object()["kubernetes.io/metadata.name"] = registry::meta_string(object, "name");
  }
  std::optional<json::object> mark_for_deletion(const json::object& current,
                                                std::optional<std::int64_t> /*grace_period_seconds*/) const override {
    if (registry::meta_string(current, "deletionTimestamp").empty()) {
      json::object marked = current;
      registry::metadata_of(marked)["deletionTimestamp"] = registry::rfc3339_now();
      auto& status = marked["status"];
      if (!status.is_object()) status = json::object();
      status.as_object()["phase"] = "Terminating";
      return marked;
    }
    if (!spec_finalizers_empty(current)) return current;  // still terminating: nothing more to do yet
    return std::nullopt;
  }
  bool deletes_when_finalized(const json::object& object) const override { return spec_finalizers_empty(object); }
  std::vector<std::string> selectable_field_names() const override { return {"status.phase"}; }
  void selectable_fields(const json::object& object, registry::SelectableFields& fields) const override {
    fields["status.phase"] = phase(object);
  }
  std::vector<registry::TableColumn> table_columns() const override {
    return {registry::name_column(),
            {"Status", "string", "", "The status of the namespace", 0},
            registry::age_column()};
  }
  json::array table_cells(const json::object& object) const override {
    return {json::string(registry::meta_string(object, "name")), json::string(phase(object)),
            json::string(registry::age_of(object))};
  }

 private:
  static bool spec_finalizers_empty(const json::object& object) {
    auto spec = object.find("spec");
    if (spec == object.end() || !spec->value().is_object()) return true;
    auto finalizers = spec->value().as_object().find("finalizers");
    return finalizers == spec->value().as_object().end() || !finalizers->value().is_array() ||
           finalizers->value().as_array().empty();
  }
  static std::string phase(const json::object& object) {
    auto status = object.find("status");
    if (status == object.end() || !status->value().is_object()) return "";
    return std::string(registry::string_field(status->value().as_object(), "phase"));
  }
};

}  // namespace

ResourceStorage namespaces() {
  registry::ResourceDefinition definition{.group = "", .version = "v1", .resource = "namespaces", .kind = "Namespace",
                                          .singular = "namespace", .namespaced = false, .short_names = {"ns"},
                                          .subresources = {"status", "finalize"},
                                          // kube's namespace REST has no DeleteCollection.
                                          .verbs = {"create", "delete", "get", "list", "patch", "update", "watch"}};
  return {std::move(definition), std::make_shared<NamespaceStrategy>()};
}

}  // namespace kapi::apis
