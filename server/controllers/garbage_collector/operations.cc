// What the garbage collector does to objects (kube's pkg/controller/garbagecollector/operations.go and patch.go),
// through the Store their apiVersion/kind maps to. kube patches ownerReferences and finalizers with a patch that
// names the object's uid (or resourceVersion); here each change is a read-modify-write of the Store that refuses
// another object under the same name and runs again when it loses a race, which is what those patches amount to.
#include "server/controllers/garbage_collector/garbage_collector.h"

#include "base/log.h"
#include "server/apierrors/errors.h"
#include "server/registry/object_meta.h"

#include <boost/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace kapi::controllers {

namespace json = boost::json;
using garbage_collector::InvalidOwnerReference;
using garbage_collector::ObjectReference;
using garbage_collector::OwnerReference;

namespace {

// restMappingError: the apiVersion/kind is not served (yet: a CRD may come); retried.
struct RestMappingError : std::runtime_error {
  RestMappingError(std::string_view kind, std::string_view api_version)
      : std::runtime_error("unable to get REST mapping for " + std::string(kind) + "." + std::string(api_version)) {}
};

// The namespace an object is read in: none for a cluster-scoped kind (resourceDefaultNamespace).
std::string namespace_for(bool namespaced, const std::string& namespace_) { return namespaced ? namespace_ : ""; }

// The object `current` when it is still the one `identity` names; else the 404/409 a patch naming its uid meets.
const json::object& same_object(const json::object* current, const ObjectReference& identity,
                                const registry::ResourceDefinition& definition) {
  if (!current) throw apierrors::ApiError(apierrors::not_found(definition.group, definition.resource, identity.name));
  if (registry::meta_string(*current, "uid") != identity.uid)
    throw apierrors::ApiError(apierrors::conflict(
        definition.group, definition.resource, identity.name,
        "Precondition failed: UID in precondition: " + identity.uid + ", UID in object meta: " +
            std::string(registry::meta_string(*current, "uid"))));
  return *current;
}

}  // namespace

GarbageCollector::Mapping GarbageCollector::mapping_for(std::string_view api_version, std::string_view kind) const {
  std::optional<Mapping> mapping = find_mapping(api_version, kind);
  if (!mapping) throw RestMappingError(kind, api_version);
  return std::move(*mapping);
}

asio::awaitable<std::optional<json::object>> GarbageCollector::get_object(const ObjectReference& identity) {
  Mapping mapping = mapping_for(identity.api_version, identity.kind);
  try {
    // resourceVersion "": read from storage, not the watch cache (kube's GET without one is a quorum read).
    std::string namespace_ = namespace_for(mapping.namespaced, identity.namespace_);
    std::string name = identity.name;
    std::string latest;
    registry::ReadObject read = co_await mapping.store->get(std::move(namespace_), std::move(name), std::move(latest));
    co_return registry::parse_json_object(read.json);
  } catch (const apierrors::ApiError& error) {
    if (error.status().code == 404) co_return std::nullopt;
    throw;
  }
}

asio::awaitable<void> GarbageCollector::delete_object(const ObjectReference& identity, std::string resource_version,
                                                      std::vector<OwnerReference> owners_at_version,
                                                      std::string policy) {
  Mapping mapping = mapping_for(identity.api_version, identity.kind);
  const std::string namespace_ = namespace_for(mapping.namespaced, identity.namespace_);
  registry::DeleteOptions options;
  options.precondition_uid = identity.uid;
  if (!resource_version.empty()) options.precondition_resource_version = resource_version;
  options.propagation_policy = policy;
  try {
    registry::DeleteOptions first = options;
    std::string name = identity.name;
    registry::DeleteResult deleted = co_await mapping.store->remove(namespace_, std::move(name), std::move(first));
    co_return;
  } catch (const apierrors::ApiError& error) {
    if (error.status().code != 409 || resource_version.empty()) throw;
  }
  // The object changed since it was read: delete it anyway if its ownerReferences did not (so that frequent
  // unrelated updates do not starve the collector), else let the next attempt look again.
  std::optional<json::object> live = co_await get_object(identity);
  if (!live)
    throw apierrors::ApiError(apierrors::not_found(mapping.store->definition().group,
                                                   mapping.store->definition().resource, identity.name));
  if (registry::meta_string(*live, "uid") != identity.uid ||
      registry::meta_string(*live, "resourceVersion") == resource_version ||
      garbage_collector::owner_references(*live) != owners_at_version)
    throw apierrors::ApiError(apierrors::conflict(mapping.store->definition().group,
                                                  mapping.store->definition().resource, identity.name,
                                                  "the object has been modified"));
  options.precondition_resource_version.reset();
  std::string name = identity.name;
  registry::DeleteResult deleted = co_await mapping.store->remove(namespace_, std::move(name), std::move(options));
}

asio::awaitable<void> GarbageCollector::remove_owner_references(const ObjectReference& identity,
                                                                std::set<std::string> owner_uids) {
  Mapping mapping = mapping_for(identity.api_version, identity.kind);
  const registry::ResourceDefinition& definition = mapping.store->definition();
  registry::UpdateFunction without_references = [&](const json::object* current) {
    json::object updated = same_object(current, identity, definition);
    std::vector<OwnerReference> references = garbage_collector::owner_references(updated);
    const std::size_t before = references.size();
    std::erase_if(references, [&](const OwnerReference& reference) { return owner_uids.contains(reference.uid); });
    if (references.size() == before) return updated;  // nothing to remove: an unchanged object writes nothing
    auto& metadata = registry::metadata_of(updated);
    if (references.empty()) metadata.erase("ownerReferences");
    else metadata["ownerReferences"] = garbage_collector::to_json(references);
    return updated;
  };
  registry::WriteOptions options;
  std::string namespace_ = namespace_for(mapping.namespaced, identity.namespace_);
  std::string name = identity.name;
  auto updated = co_await mapping.store->update(std::move(namespace_), std::move(name), without_references, options);
}

asio::awaitable<void> GarbageCollector::unblock_owner_references(const ObjectReference& identity) {
  Mapping mapping = mapping_for(identity.api_version, identity.kind);
  const registry::ResourceDefinition& definition = mapping.store->definition();
  registry::UpdateFunction unblocked = [&](const json::object* current) {
    json::object updated = same_object(current, identity, definition);
    std::vector<OwnerReference> references = garbage_collector::owner_references(updated);
    bool changed = false;
    for (auto& reference : references)
      if (reference.blocks()) {
        reference.block_owner_deletion = false;
        changed = true;
      }
    if (changed) registry::metadata_of(updated)["ownerReferences"] = garbage_collector::to_json(references);
    return updated;
  };
  registry::WriteOptions options;
  std::string namespace_ = namespace_for(mapping.namespaced, identity.namespace_);
  std::string name = identity.name;
  auto updated = co_await mapping.store->update(std::move(namespace_), std::move(name), unblocked, options);
}

asio::awaitable<void> GarbageCollector::remove_finalizer(const ObjectReference& identity, std::string finalizer) {
  Mapping mapping = mapping_for(identity.api_version, identity.kind);
  const registry::ResourceDefinition& definition = mapping.store->definition();
  registry::UpdateFunction finalized = [&](const json::object* current) {
    json::object updated = same_object(current, identity, definition);
    auto& metadata = registry::metadata_of(updated);
    auto finalizers = metadata.find("finalizers");
    if (finalizers == metadata.end() || !finalizers->value().is_array()) return updated;  // already removed
    auto& list = finalizers->value().as_array();
    list.erase(std::remove(list.begin(), list.end(), json::value(finalizer)), list.end());
    if (list.empty()) metadata.erase("finalizers");
    return updated;
  };
  registry::WriteOptions options;
  std::string namespace_ = namespace_for(mapping.namespaced, identity.namespace_);
  std::string name = identity.name;
  try {
    // Removing the last finalizer of an object being deleted deletes it.
    auto updated = co_await mapping.store->update(std::move(namespace_), std::move(name), finalized, options);
  } catch (const apierrors::ApiError& error) {
    if (error.status().code == 404) co_return;  // gone already
    throw;
  }
}

asio::awaitable<void> GarbageCollector::record_invalid_namespace(InvalidOwnerReference invalid) {
  // record.EventRecorder's Event: Warning, from the garbage-collector-controller, named after the object and the
  // time in nanoseconds (hex), in the object's namespace.
  const auto now = std::chrono::system_clock::now();
  const long long nanos =
      std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
  char suffix[32];
  std::snprintf(suffix, sizeof suffix, "%llx", nanos);
  const ObjectReference& dependent = invalid.dependent;
  const std::string namespace_ = dependent.namespace_.empty() ? "default" : dependent.namespace_;
  const std::string timestamp = registry::rfc3339_now();
  json::object event{
      {"metadata", json::object{{"name", dependent.name + "." + suffix}, {"namespace", namespace_}}},
      {"involvedObject", json::object{{"kind", dependent.kind},
                                      {"namespace", dependent.namespace_},
                                      {"name", dependent.name},
                                      {"uid", dependent.uid},
                                      {"apiVersion", dependent.api_version}}},
      {"reason", "OwnerRefInvalidNamespace"},
      {"message", "ownerRef " + invalid.owner.to_string() + " does not exist in namespace \"" + dependent.namespace_ +
                      "\""},
      {"source", json::object{{"component", "garbage-collector-controller"}}},
      {"firstTimestamp", timestamp},
      {"lastTimestamp", timestamp},
      {"count", 1},
      {"type", "Warning"},
      {"reportingComponent", "garbage-collector-controller"},
      {"reportingInstance", ""},
  };
  try {
    registry::WriteOptions options;
    std::string in = namespace_;
    auto created = co_await events_.create(std::move(in), std::move(event), options);
  } catch (const std::exception& error) {
    // Events are best effort, as the recorder's are.
    if (!stopping_->requested()) logger_.warning(std::string("garbage collector: recording an event: ") + error.what());
  }
}

}  // namespace kapi::controllers
