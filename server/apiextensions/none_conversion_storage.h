#pragma once
// A CRD's `None` conversion (apiextensions' nopConverter) as a storage layer: a custom resource version whose
// objects are stored in another version reads and watches them with apiVersion rewritten to its own, and writes
// them in the storage version, so every served version's Cacher holds its objects in the version it serves.
#include "storage/interface.h"

#include <string>

namespace kapi::apiextensions {

// The object bytes with their top-level apiVersion set to `api_version`.
std::string with_api_version(std::string_view object, std::string_view api_version);

class NoneConversionStorage final : public storage::Interface {
 public:
  // `served` and `stored`: "<group>/<version>" of the version read through this layer and of the storage version.
  NoneConversionStorage(storage::Interface& backend, std::string served, std::string stored)
      : backend_(backend), served_(std::move(served)), stored_(std::move(stored)) {}

  asio::awaitable<storage::KeyValue> create(std::string key, std::string value, storage::WriteOptions options) override;
  asio::awaitable<storage::KeyValue> remove(std::string key, storage::PreconditionCheck preconditions) override;
  asio::awaitable<std::optional<storage::KeyValue>> get(std::string key, storage::GetOptions options) override;
  asio::awaitable<storage::ListResult> list(std::string key_prefix, storage::ListOptions options) override;
  asio::awaitable<storage::KeyValue> guaranteed_update(std::string key, bool ignore_not_found,
                                                       storage::PreconditionCheck preconditions,
                                                       storage::TryUpdate try_update,
                                                       storage::WriteOptions options) override;
  asio::awaitable<std::unique_ptr<storage::WatchStream>> watch(std::string key, storage::WatchOptions options) override;
  asio::awaitable<std::int64_t> count(std::string key_prefix) override { return backend_.count(std::move(key_prefix)); }
  asio::awaitable<storage::Revision> current_revision() override { return backend_.current_revision(); }
  asio::awaitable<void> request_watch_progress() override { return backend_.request_watch_progress(); }
  bool can_request_watch_progress() const override { return backend_.can_request_watch_progress(); }
  asio::awaitable<void> compact(storage::Revision revision) override { return backend_.compact(revision); }

 private:
  storage::KeyValue served(storage::KeyValue kv) const;

  storage::Interface& backend_;
  std::string served_, stored_;
};

}  // namespace kapi::apiextensions
