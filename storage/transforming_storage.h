#pragma once
// A storage layer whose values pass through a value::Transformer between the layer above and the backend: kube's
// etcd3 store with its transformer (k8s.io/apiserver/pkg/storage/etcd3's TransformFromStorage and
// TransformToStorage calls), used for encryption at rest and for serving one version from another's storage
// (converting_storage.h). Every read, watch event and precondition sees transformed-back values; every write stores
// transformed ones, with the object's key as the transformer's context.
//
// Updates follow kube's GuaranteedUpdate: an update that leaves the object as it was writes nothing, unless the
// stored value is stale (read by a transformer other than the first: an old key), which it rewrites with the first.
// A value that cannot be transformed fails its read with Internal, as kube's "unable to transform key" error.
#include "storage/interface.h"
#include "storage/value/transformer.h"

#include <memory>

namespace kapi::storage {

class TransformingStorage final : public Interface {
 public:
  // `backend` must outlive this layer.
  TransformingStorage(Interface& backend, std::shared_ptr<const value::Transformer> transformer)
      : backend_(backend), transformer_(std::move(transformer)) {}

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
  asio::awaitable<std::optional<Revision>> unchanged_since(std::string key_prefix, Revision revision,
                                                           std::int64_t count) override {
    return backend_.unchanged_since(std::move(key_prefix), revision, count);
  }
  asio::awaitable<std::optional<KnownChanges>> known_changes_since(std::string key_prefix, Revision revision) override {
    return backend_.known_changes_since(std::move(key_prefix), revision);
  }
  asio::awaitable<void> compact(Revision revision) override { return backend_.compact(revision); }

 private:
  Predicate on_stored(Predicate predicate) const;
  PreconditionCheck on_stored(PreconditionCheck preconditions) const;

  Interface& backend_;
  std::shared_ptr<const value::Transformer> transformer_;
};

}  // namespace kapi::storage
