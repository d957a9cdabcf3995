#include "server/apis/core/volume_claims.h"

#include "base/name_validation.h"
#include "server/registry/json_fields.h"

#include <algorithm>

namespace kapi::apis::core {

using namespace registry::fields;
using validation::ErrorList;
using validation::Path;

void validate_access_modes(const json::object& spec, const Path& path, std::string required_detail,
                           ErrorList& errors) {
  const std::vector<std::string> modes = strings_at(spec, "accessModes");
  if (modes.empty()) errors.push_back(validation::required(path, std::move(required_detail)));
  static const std::vector<std::string> kSupported{"ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce",
                                                   "ReadWriteOncePod"};
  bool once_pod = false;
  for (const auto& mode : modes) {
    if (std::find(kSupported.begin(), kSupported.end(), mode) == kSupported.end())
      errors.push_back(validation::not_supported(path, mode, kSupported));
    once_pod = once_pod || mode == "ReadWriteOncePod";
  }
  if (once_pod && modes.size() > 1)
    errors.push_back(validation::forbidden(path, "may not use ReadWriteOncePod with other access modes"));
}

void validate_class_names(const json::object& spec, const Path& path, ErrorList& errors) {
  if (auto name = string_at(spec, "storageClassName"); !name.empty())
    for (auto& message : validation::is_dns1123_subdomain(name))
      errors.push_back(validation::invalid(path.child("storageClassName"), name, message));
  if (auto it = spec.find("volumeAttributesClassName"); it != spec.end() && it->value().is_string()) {
    const std::string_view name = it->value().as_string();
    if (name.empty())
      errors.push_back(validation::required(path.child("volumeAttributesClassName"), "an empty string is disallowed"));
    for (auto& message : name.empty() ? std::vector<std::string>{} : validation::is_dns1123_subdomain(name))
      errors.push_back(validation::invalid(path.child("volumeAttributesClassName"), name, message));
  }
}

std::string access_modes_string(const json::object* holder) {
  const std::vector<std::string> modes = holder ? strings_at(*holder, "accessModes") : std::vector<std::string>{};
  std::string out;
  for (const auto& [mode, abbreviation] : {std::pair{"ReadWriteOnce", "RWO"}, std::pair{"ReadOnlyMany", "ROX"},
                                           std::pair{"ReadWriteMany", "RWX"}, std::pair{"ReadWriteOncePod", "RWOP"}})
    if (std::find(modes.begin(), modes.end(), mode) != modes.end()) out += (out.empty() ? "" : ",") + std::string(abbreviation);
  return out;
}

std::string storage_class_of(const json::object& object) {
  const json::object* annotations = object_at(object_at(object, "metadata"), "annotations");
  if (annotations && annotations->contains("volume.beta.kubernetes.io/storage-class"))
    return std::string(string_at(annotations, "volume.beta.kubernetes.io/storage-class"));
  return std::string(string_at(object_at(object, "spec"), "storageClassName"));
}

void drop_volume_attributes_class(json::object& object, const json::object* old) {
  if (old && has(object_or_empty(*old, "spec"), "volumeAttributesClassName")) return;
  if (json::object* spec = object_at(&object, "spec")) spec->erase("volumeAttributesClassName");
}

}  // namespace kapi::apis::core
