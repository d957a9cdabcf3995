#include "server/apiextensions/customresourcedefinitions.h"

#include "server/apiextensions/crd_decoding.h"
#include "server/apiextensions/crd_model.h"
#include "server/apiextensions/crd_validation.h"
#include "server/registry/object_meta.h"

#include <boost/json.hpp>

namespace kapi::apiextensions {
namespace {

namespace json = boost::json;

json::object& member_object(json::object& object, std::string_view key) {
  json::value& value = object[key];
  return value.is_object() ? value.as_object() : value.emplace_object();
}

// The storage version joins status.storedVersions when it is new there (PrepareForCreate/PrepareForUpdate).
void record_storage_version(json::object& crd) {
  json::object& status = member_object(crd, "status");
  json::value& stored = status["storedVersions"];
  if (!stored.is_array()) stored.emplace_array();
  const json::object* spec = crd.if_contains("spec") ? crd.at("spec").if_object() : nullptr;
  const json::value* versions = spec ? spec->if_contains("versions") : nullptr;
  if (!versions || !versions->is_array()) return;
  for (const auto& version : versions->as_array()) {
    if (!version.is_object()) continue;
    const json::value* storage = version.as_object().if_contains("storage");
    if (!storage || !storage->is_bool() || !storage->as_bool()) continue;
    const json::value* name = version.as_object().if_contains("name");
    if (!name || !name->is_string()) break;
    for (const auto& known : stored.as_array())
      if (known == *name) return;
    stored.as_array().push_back(*name);
    break;
  }
}

class CustomResourceDefinitionStrategy final : public registry::Strategy {
 public:
  explicit CustomResourceDefinitionStrategy(const kapi::schema::Catalog& catalog) : catalog_(catalog) {}

  // kapi's catalog has no CRD type: bodies are decoded against apiextensions' Go structs (crd_decoding.h), so
  // values of the wrong type are refused and unknown fields dropped and reported (warnings, or
  // fieldValidation=Strict errors) as kube's decoder does.
  std::optional<std::vector<std::string>> conform(json::object& crd) const override {
    return decode_crd(catalog_, crd);
  }

  void prepare_for_create(json::object& crd) const override {
    default_crd(crd);
    crd["status"] = json::object{{"acceptedNames", json::object{{"kind", ""}, {"plural", ""}}},
                                 {"storedVersions", json::array()}};
    record_storage_version(crd);
  }
  void prepare_for_update(json::object& crd, const json::object& old) const override {
    default_crd(crd);
    if (const json::value* status = old.if_contains("status")) crd["status"] = *status;
    else crd.erase("status");
    record_storage_version(crd);
  }
  validation::ErrorList validate(const json::object& crd) const override { return validate_crd(crd); }
  validation::ErrorList validate_update(const json::object& crd, const json::object& old) const override {
    return validate_crd_update(crd, old);
  }
  bool tracks_generation() const override { return true; }

  // REST.Delete: the first DELETE marks the CRD Terminating and adds the cleanup finalizer; the finalizing
  // controller deletes its custom resources, then removes the finalizer, which deletes the CRD.
  std::optional<json::object> mark_for_deletion(const json::object& current,
                                                std::optional<std::int64_t> /*grace_period_seconds*/) const override {
    json::object crd = current;
    json::object& meta = registry::metadata_of(crd);
    if (const json::value* timestamp = meta.if_contains("deletionTimestamp"); timestamp && !timestamp->is_null())
      return std::nullopt;
    meta["deletionTimestamp"] = registry::rfc3339_now();
    meta["deletionGracePeriodSeconds"] = 0;
    json::value& finalizers = meta["finalizers"];
    if (!finalizers.is_array()) finalizers.emplace_array();
    bool present = false;
    for (const auto& finalizer : finalizers.as_array()) present = present || (finalizer.is_string() && finalizer.as_string() == kCleanupFinalizer);
    if (!present) finalizers.as_array().emplace_back(kCleanupFinalizer);
    set_crd_condition(crd, "Terminating", "True", "InstanceDeletionPending",
                      "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon");
    return crd;
  }

 private:
  const kapi::schema::Catalog& catalog_;
};

}  // namespace

registry::ResourceDefinition customresourcedefinitions_definition() {
  registry::ResourceDefinition definition{.group = std::string(kGroup), .version = "v1",
                                          .resource = "customresourcedefinitions",
                                          .kind = "CustomResourceDefinition",
                                          .singular = "customresourcedefinition", .namespaced = false,
                                          .short_names = {"crd", "crds"}, .categories = {"api-extensions"}};
  definition.storage_resource = "apiextensions.k8s.io/customresourcedefinitions";
  definition.subresources = {"status"};
  return definition;
}

std::shared_ptr<const registry::Strategy> customresourcedefinitions_strategy(const kapi::schema::Catalog& catalog) {
  return std::make_shared<CustomResourceDefinitionStrategy>(catalog);
}

void set_crd_condition(json::object& crd, std::string_view type, std::string_view status, std::string_view reason,
                       std::string_view message) {
  json::object& crd_status = member_object(crd, "status");
  json::value& conditions = crd_status["conditions"];
  if (!conditions.is_array()) conditions.emplace_array();
  json::object condition{{"type", type}, {"status", status}, {"lastTransitionTime", registry::rfc3339_now()},
                         {"reason", reason}, {"message", message}};
  for (auto& existing : conditions.as_array()) {
    if (!existing.is_object() || registry::string_field(existing.as_object(), "type") != type) continue;
    if (registry::string_field(existing.as_object(), "status") == status)
      if (const json::value* time = existing.as_object().if_contains("lastTransitionTime"))
        condition["lastTransitionTime"] = *time;
    existing = std::move(condition);
    return;
  }
  conditions.as_array().push_back(std::move(condition));
}

}  // namespace kapi::apiextensions
