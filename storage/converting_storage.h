#pragma once
// Serving objects in another version than they are stored in: the part of kube's versioning codec
// (k8s.io/apimachinery runtime/serializer/versioning) that sits between a REST storage and etcd when a group
// version is served from another version's storage (autoscaling/v1 HorizontalPodAutoscalers stored as v2,
// events.k8s.io/v1 Events stored as core/v1, a CRD's `None` conversion). A TransformingStorage with the conversion
// as its transformer gives every read and watch event in the served version and stores every write as the storage
// version, so a Cacher above it holds and encodes objects in the version it serves.
#include "storage/transforming_storage.h"

#include <memory>
#include <string>
#include <string_view>

namespace kapi::storage {

// Converts one serialized object between the served and the storage version. Both directions take and return the
// whole object's bytes; they throw StorageError(InvalidObj) for bytes they cannot convert.
class ObjectConversion {
 public:
  virtual ~ObjectConversion() = default;
  virtual std::string to_storage(std::string_view served) const = 0;
  virtual std::string from_storage(std::string_view stored) const = 0;
};

// `conversion` as a TransformingStorage's transformer.
std::shared_ptr<const value::Transformer> conversion_transformer(std::shared_ptr<const ObjectConversion> conversion);

}  // namespace kapi::storage
