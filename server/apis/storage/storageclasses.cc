// storage.k8s.io/v1 StorageClass (pkg/registry/storage/storageclass/strategy.go, SetDefaults_StorageClass,
// ValidateStorageClass/ValidateStorageClassUpdate of pkg/apis/storage/validation as of 1.32, printStorageClass).
#include "base/name_validation.h"
#include "server/apis/storage/storage.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace kapi::apis {
namespace {

using namespace registry::fields;
using validation::ErrorList;
using validation::Path;

constexpr std::size_t kMaxParameterCount = 512;
constexpr std::size_t kMaxParameterSize = 256 * 1024;

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

// The string of an optional (pointer) member; nullopt when absent.
std::optional<std::string_view> optional_string(const json::object& object, std::string_view key) {
  auto it = object.find(key);
  if (it == object.end() || !it->value().is_string()) return std::nullopt;
  return std::string_view(it->value().as_string());
}

ErrorList validate_storage_class(const json::object& storage_class) {
  ErrorList errors;
  const std::string_view provisioner = string_at(storage_class, "provisioner");
  if (provisioner.empty()) errors.push_back(validation::required(Path("provisioner")));
  else
    for (const auto& message : validation::is_qualified_name(lower(provisioner)))
      errors.push_back(validation::invalid(Path("provisioner"), lower(provisioner), message));
  if (const json::object* parameters = object_at(storage_class, "parameters")) {
    if (parameters->size() > kMaxParameterCount) {
      errors.push_back(validation::too_long(Path("parameters"), kMaxParameterCount));
    } else {
      std::size_t total = 0;
      for (const auto& [key, value] : *parameters) {
        if (key.empty()) errors.push_back(validation::invalid(Path("parameters"), "", "field can not be empty."));
        total += key.size() + (value.is_string() ? value.as_string().size() : 0);
      }
      if (total > kMaxParameterSize) errors.push_back(validation::too_long(Path("parameters"), kMaxParameterSize));
    }
  }
  if (auto policy = optional_string(storage_class, "reclaimPolicy"); policy && !policy->empty() &&
                                                                   *policy != "Delete" && *policy != "Retain")
    errors.push_back(validation::not_supported(Path("reclaimPolicy"), *policy, {"Delete", "Retain"}));
  if (auto mode = optional_string(storage_class, "volumeBindingMode"); !mode)
    errors.push_back(validation::required(Path("volumeBindingMode")));
  else if (*mode != "Immediate" && *mode != "WaitForFirstConsumer")
    errors.push_back(validation::not_supported(Path("volumeBindingMode"), *mode, {"Immediate", "WaitForFirstConsumer"}));
  // validateAllowedTopologies / ValidateTopologySelectorTerm: each requirement has values, distinct, and a label
  // key; keys are distinct within a term.
  for_each_object(&storage_class, "allowedTopologies", [&](const json::object& term, std::size_t i) {
    const Path expressions_path = Path("allowedTopologies").index(i).child("matchLabelExpressions");
    std::set<std::string, std::less<>> keys;
    for_each_object(&term, "matchLabelExpressions", [&](const json::object& requirement, std::size_t r) {
      const Path at = expressions_path.index(r);
      const std::vector<std::string> values = strings_at(requirement, "values");
      if (values.empty()) errors.push_back(validation::required(at.child("values")));
      std::set<std::string, std::less<>> seen;
      for (std::size_t v = 0; v < values.size(); ++v)
        if (!seen.insert(values[v]).second) errors.push_back(validation::duplicate(at.child("values").index(v), values[v]));
      const std::string_view key = string_at(requirement, "key");
      for (const auto& message : validation::is_qualified_name(key))
        errors.push_back(validation::invalid(at.child("key"), key, message));
      if (!keys.emplace(key).second) errors.push_back(validation::duplicate(at.child("key"), key));
    });
  });
  return errors;
}

// SetDefaults_StorageClass.
void set_storage_class_defaults(json::object& storage_class) {
  if (!has(storage_class, "reclaimPolicy")) storage_class["reclaimPolicy"] = "Delete";
  if (!has(storage_class, "volumeBindingMode")) storage_class["volumeBindingMode"] = "Immediate";
}

// storageutil.IsDefaultAnnotation: the GA or the beta default-class annotation set to "true".
bool is_default_class(const json::object& storage_class) {
  const json::object* annotations = object_at(object_at(storage_class, "metadata"), "annotations");
  return string_at(annotations, "storageclass.kubernetes.io/is-default-class") == "true" ||
         string_at(annotations, "storageclass.beta.kubernetes.io/is-default-class") == "true";
}

class StorageClassStrategy final : public registry::Strategy {
 public:
  // kube's store for this kind has ReturnDeletedObject: a DELETE answers with the object, not a Status.
  bool return_deleted_object() const override { return true; }
  void apply_scheme_defaults(json::object& object) const override { set_storage_class_defaults(object); }
  void prepare_for_create(json::object& storage_class) const override { set_storage_class_defaults(storage_class); }
  void prepare_for_update(json::object& storage_class, const json::object&) const override {
    set_storage_class_defaults(storage_class);
  }
  ErrorList validate(const json::object& storage_class) const override { return validate_storage_class(storage_class); }
  ErrorList validate_update(const json::object& storage_class, const json::object& old) const override {
    ErrorList errors = validate_storage_class(storage_class);
    const json::object* parameters = object_at(storage_class, "parameters");
    const json::object* old_parameters = object_at(old, "parameters");
    const bool parameters_equal = (!parameters || parameters->empty()) && (!old_parameters || old_parameters->empty())
                                      ? (parameters == nullptr) == (old_parameters == nullptr)
                                      : parameters && old_parameters && *parameters == *old_parameters;
    if (!parameters_equal)
      errors.push_back(validation::forbidden(Path("parameters"), "updates to parameters are forbidden."));
    if (string_at(storage_class, "provisioner") != string_at(old, "provisioner"))
      errors.push_back(validation::forbidden(Path("provisioner"), "updates to provisioner are forbidden."));
    if (string_at(storage_class, "reclaimPolicy") != string_at(old, "reclaimPolicy"))
      errors.push_back(validation::forbidden(Path("reclaimPolicy"), "updates to reclaimPolicy are forbidden."));
    if (optional_string(storage_class, "volumeBindingMode") != optional_string(old, "volumeBindingMode"))
      errors.push_back(validation::invalid(Path("volumeBindingMode"), string_at(storage_class, "volumeBindingMode"),
                                           "field is immutable"));
    return errors;
  }
  std::vector<registry::TableColumn> table_columns() const override {
    return {registry::name_column(),
            {"Provisioner", "string", "", "provisioner indicates the type of the provisioner.", 0},
            {"ReclaimPolicy", "string", "",
             "reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage "
             "class. Defaults to Delete.",
             0},
            {"VolumeBindingMode", "string", "",
             "volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.  When unset, "
             "VolumeBindingImmediate is used. This field is only honored by servers that enable the VolumeScheduling "
             "feature.",
             0},
            {"AllowVolumeExpansion", "string", "",
             "allowVolumeExpansion shows whether the storage class allow volume expand.", 0},
            registry::age_column()};
  }
  json::array table_cells(const json::object& storage_class) const override {
    std::string name(registry::meta_string(storage_class, "name"));
    if (is_default_class(storage_class)) name += " (default)";
    return {json::string(name),
            json::string(string_at(storage_class, "provisioner")),
            json::string(optional_string(storage_class, "reclaimPolicy").value_or("Delete")),
            json::string(optional_string(storage_class, "volumeBindingMode").value_or("Immediate")),
            bool_at(storage_class, "allowVolumeExpansion"),
            json::string(registry::age_of(storage_class))};
  }
};

}  // namespace

ResourceStorage storageclasses() {
  registry::ResourceDefinition definition{.group = "storage.k8s.io", .version = "v1", .resource = "storageclasses",
                                          .kind = "StorageClass", .singular = "storageclass", .namespaced = false,
                                          .short_names = {"sc"}};
  return {std::move(definition), std::make_shared<StorageClassStrategy>()};
}

}  // namespace kapi::apis
