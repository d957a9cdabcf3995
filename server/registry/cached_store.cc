#include "server/registry/cached_store.h"

namespace kapi::registry {

CachedStore make_cached_store(const ResourceDefinition& definition, std::shared_ptr<const Strategy> strategy,
                              storage::Interface& backend, const std::string& key_root,
                              asio::any_io_executor executor, base::Logger& logger) {
  // The Store itself says where its keys are; a Store over the raw backend answers that before the cache exists.
  const Store probe(definition, strategy, backend, key_root);
  storage::cacher::CacherOptions options;
  options.resource_prefix = probe.prefix("");
  options.logger = &logger;
  CachedStore made;
  made.cacher = std::make_unique<storage::cacher::Cacher>(backend, std::move(executor), std::move(options));
  made.store = std::make_unique<Store>(definition, std::move(strategy), *made.cacher, key_root);
  return made;
}

}  // namespace kapi::registry
