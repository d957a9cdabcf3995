#pragma once
// A storage layer that serves objects in another version than they are stored in: the part of kube's versioning
// codec (k8s.io/apimachinery runtime/serializer/versioning) that sits between a REST storage and etcd when a group
// version is served from another version's storage (autoscaling/v1 HorizontalPodAutoscalers stored as v2,
// events.k8s.io/v1 Events stored as core/v1, a CRD's `None` conversion). Every read and watch event comes out in
// the served version and every write goes in as the storage version, so a Cacher above it holds and encodes
// objects in the version it serves.
#include "storage/interface.h"

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

class ConvertingStorage final : public Interface {
 public:
  // `backend` and `conversion` must outlive this layer.
  ConvertingStorage(Interface& backend, std::shared_ptr<const ObjectConversion> conversion)
      : backend_(backend), conversion_(std::move(conversion)) {}

  asio::awaitable<KeyValue> create(std::string key, std::string value, WriteOptions options) override;
  asio::awaitable<KeyValue> remove(std::string key, PreconditionCheck preconditions) override;
  asio::awaitable<std::optional<KeyValue>> get(std::string key, GetOptions options) override;
  asio::awaitable<ListResult> list(std::string key_prefix, ListOptions options) override;
  asio::awaitable<KeyValue> guaranteed_update(std::string key, bool ignore_not_found, PreconditionCheck preconditions,
                                              TryUpdate try_update, WriteOptions options) override;
  asio::awaitable<std::unique_ptr<WatchStream>> watch(std::string key, WatchOptions options) override;
  asio::awaitable<std::int64_t> count(std::string key_prefix) override { return backend_.count(std::move(key_prefix)); }
  asio::awaitable<Revision> current_revision() override { return backend_.current_revision(); }
  asio::awaitable<void> request_watch_progress() override { return backend_.request_watch_progress(); }
  bool can_request_watch_progress() const override { return backend_.can_request_watch_progress(); }
  asio::awaitable<void> compact(Revision revision) override { return backend_.compact(revision); }

 private:
  KeyValue served(KeyValue stored) const;
  // A predicate on served objects, applied by the backend to stored ones.
  Predicate on_stored(Predicate served_predicate) const;

  Interface& backend_;
  std::shared_ptr<const ObjectConversion> conversion_;
};

}  // namespace kapi::storage
