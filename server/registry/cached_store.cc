#include "server/registry/cached_store.h"

namespace kapi::registry {

CachedStore make_cached_store(const ResourceDefinition& definition, std::shared_ptr<const Strategy> strategy,
                              storage::Interface& backend, const std::string& key_root,
                              asio::any_io_executor executor, base::Logger& logger,
                              std::shared_ptr<const VersionConversion> conversion,
                              std::shared_ptr<const storage::value::Transformer> stored_as) {
  CachedStore made;
  storage::Interface* served = &backend;
  if (stored_as) {
    made.stored_as = std::make_unique<storage::TransformingStorage>(backend, std::move(stored_as));
    served = made.stored_as.get();
  }
  if (conversion) {
    made.conversion = std::make_unique<storage::TransformingStorage>(
        *served, storage::conversion_transformer(object_conversion(conversion)));
    served = made.conversion.get();
    strategy = converted_strategy(std::move(strategy), std::move(conversion));
  }
  // The Store itself says where its keys are; a Store over the raw backend answers that before the cache exists.
  const Store probe(definition, strategy, *served, key_root);
  storage::cacher::CacherOptions options;
  options.resource_prefix = probe.prefix("");
  options.logger = &logger;
  made.cacher = std::make_unique<storage::cacher::Cacher>(*served, std::move(executor), std::move(options));
  made.store = std::make_unique<Store>(definition, std::move(strategy), *made.cacher, key_root, true);
  return made;
}

}  // namespace kapi::registry
