// kube's ScaleHandler (managedfields/scalehandler.go).
#include "server/fieldmanager/scale_handler.h"

#include "server/fieldmanager/managed_fields.h"

#include <boost/json/object.hpp>

#include <utility>

namespace kapi::fieldmanager {
namespace {

namespace json = boost::json;
namespace sm = structured_merge;

const sm::Path& replicas_path_in_scale() {
  static const sm::Path path{sm::PathElement::field("spec"), sm::PathElement::field("replicas")};
  return path;
}
constexpr const char* kScaleGroupVersion = "autoscaling/v1";

Managed decode_entries(const json::array& entries) {
  return decode_managed_fields(json::object{{"metadata", json::object{{"managedFields", entries}}}});
}

json::array encode_entries(const Managed& managed) {
  json::object holder;
  set_managed_fields(holder, managed);
  const json::array* entries = managed_fields_of(holder);
  return entries ? *entries : json::array();
}

sm::Set set_of(const sm::Path& path) {
  sm::Set set;
  set.insert(path);
  return set;
}

// A manager's time, when it has one, carried into `to`.
void copy_time(const Managed& from, const std::string& manager, Managed& to) {
  if (auto time = from.times.find(manager); time != from.times.end()) to.times[manager] = time->second;
}

}  // namespace

ScaleHandler::ScaleHandler(json::array parent_entries, std::string group_version, ResourcePathMappings mappings)
    : parent_entries_(std::move(parent_entries)), group_version_(std::move(group_version)), mappings_(std::move(mappings)) {}

json::array ScaleHandler::to_subresource() const {
  const Managed parent = decode_entries(parent_entries_);
  Managed scale;
  for (const auto& [manager, versioned] : parent.fields) {
    auto mapping = mappings_.find(versioned.api_version);
    if (mapping == mappings_.end() || mapping->second.empty()) continue;
    if (!versioned.set.has(mapping->second)) continue;
    scale.fields[manager] = sm::VersionedSet{set_of(replicas_path_in_scale()), kScaleGroupVersion, versioned.applied};
    copy_time(parent, manager, scale);
  }
  return encode_entries(scale);
}

json::array ScaleHandler::to_parent(const json::array& scale_entries) const {
  const Managed parent = decode_entries(parent_entries_);
  Managed scale = decode_entries(scale_entries);
  Managed result;
  for (const auto& [manager, versioned] : parent.fields) {
    auto mapping = mappings_.find(versioned.api_version);
    if (mapping == mappings_.end()) continue;  // a version no longer known
    const sm::Path& path = mapping->second;
    if (path.empty() || !versioned.set.has(path)) {
      result.fields[manager] = versioned;
      copy_time(parent, manager, result);
      continue;
    }
    if (auto owner = scale.fields.find(manager); owner != scale.fields.end()) {
      // The manager still owns replicas through the scale: its entry stays as it is.
      result.fields[manager] = versioned;
      copy_time(parent, manager, result);
      scale.fields.erase(owner);
      continue;
    }
    // Replicas was taken through the scale.
    sm::Set rest = versioned.set.difference(set_of(path));
    if (!rest.empty()) {
      result.fields[manager] = sm::VersionedSet{std::move(rest), versioned.api_version, versioned.applied};
      copy_time(parent, manager, result);
    }
  }
  auto own_path = mappings_.find(group_version_);
  const sm::Path replicas = own_path == mappings_.end() ? sm::Path() : own_path->second;
  for (const auto& [manager, versioned] : scale.fields) {
    if (!versioned.set.has(replicas_path_in_scale())) continue;
    result.fields[manager] = sm::VersionedSet{set_of(replicas), group_version_, versioned.applied};
    // kube takes the time from the main resource's entries, where a manager new to them has none.
    copy_time(parent, manager, result);
  }
  return encode_entries(result);
}

}  // namespace kapi::fieldmanager
