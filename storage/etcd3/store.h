#pragma once
// storage::Interface on etcd v3, the behaviour of k8s.io/apiserver/pkg/storage/etcd3/store.go: every write is one
// Txn guarded by the key's mod_revision (create: "absent", update/delete: "unchanged since read"), read-modify-
// write loops retry with the state the failed Txn returned, lists page through Range with kube's continue tokens,
// TTLs use shared leases, and watches use etcd's Watch stream.
//
// Keys are passed in full ("/registry/pods/default/x"), as to every kapi backend: --etcd-prefix is applied by
// whoever builds the keys, so this store prepends nothing.
#include "base/log.h"
#include "storage/etcd3/client.h"
#include "storage/etcd3/compactor.h"
#include "storage/etcd3/feature_support.h"
#include "storage/etcd3/lease_manager.h"
#include "storage/etcd3/own_writes.h"
#include "storage/etcd3/watcher.h"
#include "storage/interface.h"

#include <asio/any_io_executor.hpp>

#include <chrono>
#include <memory>

namespace kapi::storage::etcd3 {

struct StoreOptions {
  ClientOptions client;
  // --etcd-compaction-interval; zero turns periodic compaction off.
  std::chrono::nanoseconds compaction_interval = std::chrono::minutes(5);
  LeaseReuse lease_reuse;
  base::Logger* logger = nullptr;  // may be null; must outlive the store
};

class Store final : public Interface {
 public:
  // `executor` runs the background compactor. Destroy the store before the executor's context.
  Store(asio::any_io_executor executor, StoreOptions options);
  ~Store() override;

  asio::awaitable<KeyValue> create(std::string key, std::string value, WriteOptions options) override;
  asio::awaitable<KeyValue> remove(std::string key, PreconditionCheck preconditions) override;
  asio::awaitable<std::optional<KeyValue>> get(std::string key, GetOptions options) override;
  asio::awaitable<ListResult> list(std::string key_prefix, ListOptions options) override;
  asio::awaitable<KeyValue> guaranteed_update(std::string key, bool ignore_not_found, PreconditionCheck preconditions,
                                              TryUpdate try_update, WriteOptions options) override;
  asio::awaitable<std::unique_ptr<WatchStream>> watch(std::string key, WatchOptions options) override;
  asio::awaitable<std::int64_t> count(std::string key_prefix) override;
  asio::awaitable<Revision> current_revision() override;
  // Sends nothing until every member is known to answer in order with its events (see feature_support.h).
  asio::awaitable<void> request_watch_progress() override;
  // Only on etcd 3.4.31, 3.5.13 or later, once every endpoint's version is known (Debian 12 ships 3.4.23).
  bool can_request_watch_progress() const override;
  asio::awaitable<std::optional<Revision>> unchanged_since(std::string key_prefix, Revision revision,
                                                           std::int64_t count) override;
  asio::awaitable<std::optional<KnownChanges>> known_changes_since(std::string key_prefix, Revision revision) override;
  asio::awaitable<void> compact(Revision revision) override;

  // kube-apiserver's etcd health check: a read of the key "health" succeeds within `timeout`
  // (--etcd-healthcheck-timeout, 2 s by default). Throws StorageError otherwise.
  asio::awaitable<void> check_health(std::chrono::milliseconds timeout = std::chrono::seconds(2));

  Client& client() noexcept { return *client_; }
  // Every endpoint's version has been read: can_request_watch_progress() is final.
  bool features_checked() const { return features_->checked(); }

 private:
  asio::awaitable<std::optional<KeyValue>> read_current(const std::string& key);
  // Every write: one Txn whose success branch writes or deletes `key` only (recorded in own_writes_).
  asio::awaitable<etcdserverpb::TxnResponse> commit(etcdserverpb::TxnRequest txn, const std::string& key);
  asio::awaitable<etcdserverpb::RangeResponse> read(etcdserverpb::RangeRequest range, const std::string& key);
  asio::awaitable<std::int64_t> lease_for(std::chrono::seconds ttl, const std::string& key);

  std::shared_ptr<Client> client_;
  LeaseManager leases_;
  std::shared_ptr<WatchRegistry> watches_;
  std::unique_ptr<FeatureSupport> features_;
  std::unique_ptr<Compactor> compactor_;
  OwnWrites own_writes_;
};

}  // namespace kapi::storage::etcd3
