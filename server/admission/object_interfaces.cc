#include "server/admission/object_interfaces.h"

#include <stdexcept>

namespace kapi::admission {

void ObjectInterfaces::add(Version version) { versions_.push_back(std::move(version)); }

std::vector<EquivalentResource> ObjectInterfaces::equivalents(const GroupVersionResource& resource,
                                                              std::string_view subresource) const {
  std::vector<EquivalentResource> found;
  const Version* requested = nullptr;
  for (const Version& version : versions_)
    if (version.resource == resource) requested = &version;
  if (!requested) return found;
  for (const Version& version : versions_) {
    if (version.storage != requested->storage) continue;
    if (subresource.empty()) {
      found.push_back({version.resource, version.kind});
    } else if (auto it = version.subresources.find(subresource); it != version.subresources.end()) {
      found.push_back({version.resource, it->second});
    }
  }
  return found;
}

const ObjectInterfaces::Version* ObjectInterfaces::find_kind(const GroupVersionKind& kind) const {
  for (const Version& version : versions_)
    if (version.kind == kind) return &version;
  return nullptr;
}

boost::json::object ObjectInterfaces::convert(boost::json::object object, const GroupVersionKind& from,
                                              const GroupVersionKind& to) const {
  if (from == to) return object;
  const Version* source = find_kind(from);
  const Version* target = find_kind(to);
  auto unknown = [](const GroupVersionKind& kind) {
    return std::runtime_error("no kind \"" + kind.kind + "\" is registered for version \"" +
                              (kind.group.empty() ? kind.version : kind.group + "/" + kind.version) + "\"");
  };
  if (!source) throw unknown(from);
  if (!target || target->storage != source->storage) throw unknown(to);
  if (source->to_storage) object = source->to_storage(std::move(object));
  if (target->from_storage) object = target->from_storage(std::move(object));
  return object;
}

void ObjectInterfaces::default_object(boost::json::object& object, const GroupVersionKind& kind) const {
  const Version* version = find_kind(kind);
  if (version && version->defaults) version->defaults(object);
}

}  // namespace kapi::admission
