#pragma once
// A group version served from another version's storage (kube: a REST storage whose codec converts through the
// internal type, e.g. autoscaling/v1 HorizontalPodAutoscalers kept as autoscaling/v2, events.k8s.io/v1 Events kept
// as core/v1). The conversion works on parsed objects; the storage layer gets its byte form
// (a storage::TransformingStorage), and the served version's strategy is the storage version's, applied to the object
// converted to the storage version — as kube's strategies see only internal objects, so field paths in errors and
// field selectors are the storage shape's.
#include "server/registry/strategy.h"
#include "storage/converting_storage.h"

#include <boost/json/object.hpp>

#include <memory>

namespace kapi::registry {

class VersionConversion {
 public:
  virtual ~VersionConversion() = default;
  // Each takes a whole object, apiVersion and kind included, and returns it in the other version.
  virtual boost::json::object to_storage(boost::json::object served) const = 0;
  virtual boost::json::object from_storage(boost::json::object stored) const = 0;
};

// The byte form of `conversion`, for a storage::TransformingStorage: bytes that do not parse as an object throw
// StorageError(InvalidObj).
std::shared_ptr<const storage::ObjectConversion> object_conversion(std::shared_ptr<const VersionConversion> conversion);

// The served version's strategy: `storage_version`'s, each object converted to the storage version before it
// and back after it changed it. The served kind's patch schema comes from the catalog, not from here.
std::shared_ptr<const Strategy> converted_strategy(std::shared_ptr<const Strategy> storage_version,
                                                   std::shared_ptr<const VersionConversion> conversion);

}  // namespace kapi::registry
