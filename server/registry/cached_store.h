#pragma once
// One resource's registry Store reading through its own watch cache, as kube's generic registry builds it with
// StorageWithCacher: a Cacher over the backend's keys of the resource, and the Store on top of it.
#include "server/registry/store.h"
#include "server/registry/version_conversion.h"
#include "storage/cacher/cacher.h"

#include <asio/any_io_executor.hpp>

#include <memory>

namespace kapi::base {
class Logger;
}

namespace kapi::registry {

struct CachedStore {
  std::unique_ptr<storage::TransformingStorage> stored_as;  // kube's storage codec and encryption at rest
  std::unique_ptr<storage::TransformingStorage> conversion;  // for a version served from another's storage
  std::unique_ptr<storage::cacher::Cacher> cacher;
  std::unique_ptr<Store> store;
};

// With a `stored_as` transformer, objects are stored through it: kube's storage codec (--storage-media-type) and
// encryption at rest (--encryption-provider-config).
// With a `conversion`, the resource is served from another version's storage: `strategy` is the storage version's,
// applied to converted objects (registry::converted_strategy), and the Cacher holds objects in the served version.
// The Store records DELETE's propagation policy in the garbage collector's finalizers (kube-apiserver's
// --enable-garbage-collector, true by default): kapi runs the collector that removes them.
CachedStore make_cached_store(const ResourceDefinition& definition, std::shared_ptr<const Strategy> strategy,
                              storage::Interface& backend, const std::string& key_root,
                              asio::any_io_executor executor, base::Logger& logger,
                              std::shared_ptr<const VersionConversion> conversion = nullptr,
                              std::shared_ptr<const storage::value::Transformer> stored_as = nullptr);

}  // namespace kapi::registry
