#pragma once
// A CRD's `None` conversion (apiextensions' nopConverter): an object of another version is the same object with its
// apiVersion rewritten. Served through a storage::TransformingStorage (conversion_transformer), so every served
// version's Cacher holds its objects in the version it serves.
#include "storage/converting_storage.h"

#include <string>

namespace kapi::apiextensions {

// The object bytes with their top-level apiVersion set to `api_version`.
std::string with_api_version(std::string_view object, std::string_view api_version);

class NoneConversion final : public storage::ObjectConversion {
 public:
  // `served` and `stored`: "<group>/<version>" of the version read through this conversion and of the storage
  // version.
  NoneConversion(std::string served, std::string stored) : served_(std::move(served)), stored_(std::move(stored)) {}

  std::string to_storage(std::string_view served) const override { return with_api_version(served, stored_); }
  std::string from_storage(std::string_view stored) const override { return with_api_version(stored, served_); }

 private:
  std::string served_, stored_;
};

}  // namespace kapi::apiextensions
