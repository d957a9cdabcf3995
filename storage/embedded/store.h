#pragma once
// The embedded backend: storage::Interface on SQLite in <data-dir>/kapi.db with etcd's MVCC semantics (see
// mvcc.h), so the layers above cannot tell it from etcd3.
//
// Threads: every SQLite call runs on the store's own small pool (one writer connection, reader connections as
// needed) and the calling coroutine awaits it; reactor threads never block. Background work (TTL expiry,
// periodic compaction) runs as coroutines on a strand of that pool.
//
// Writes use group commit: concurrent writes queue up, the writer takes the whole queue, applies it in one
// SQLite transaction (each write its own revision; one write failing, e.g. KeyExists, does not fail the others),
// commits with synchronous=FULL, fans the changes out to watchers, and only then completes each write. Many
// writers share one fsync, and a write is acknowledged only once it is durable.
#include "storage/embedded/mvcc.h"
#include "storage/embedded/watch_hub.h"
#include "storage/interface.h"

#include <asio/steady_timer.hpp>
#include <asio/strand.hpp>
#include <asio/thread_pool.hpp>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <vector>

namespace kapi::storage::embedded {

struct Options {
  std::filesystem::path data_dir;  // created if missing; holds kapi.db and its -wal / -shm files
  // Like kube's --etcd-compaction-interval: every interval, compact to the revision seen one interval earlier,
  // so at least one interval of history stays watchable. 0 disables periodic compaction.
  std::chrono::seconds compaction_interval{0};
  std::size_t pool_threads = 3;  // one for the writer, the rest for readers and background work
  // Inbox bound per watcher (see watch_hub.h for what happens to a watcher that falls further behind).
  std::size_t watch_queue_capacity = 10000;
};

class Store final : public Interface {
 public:
  // Opens or creates the database. File I/O: call it at startup, not from a serving reactor thread. Throws
  // StorageError(Internal) when the database cannot be opened.
  static std::unique_ptr<Store> open(Options options);

  // Stops background work, ends every watch, and waits for the pool (at most one in-flight SQLite batch).
  // No operation may be in flight on the store when it is destroyed; watch streams may outlive it (they end).
  ~Store() override;

  asio::awaitable<KeyValue> create(std::string key, std::string value, WriteOptions options) override;
  asio::awaitable<KeyValue> remove(std::string key, PreconditionCheck preconditions) override;
  asio::awaitable<std::optional<KeyValue>> get(std::string key, GetOptions options) override;
  asio::awaitable<ListResult> list(std::string key_prefix, ListOptions options) override;
  asio::awaitable<KeyValue> guaranteed_update(std::string key, bool ignore_not_found,
                                              PreconditionCheck preconditions, TryUpdate try_update,
                                              WriteOptions options) override;
  asio::awaitable<std::unique_ptr<WatchStream>> watch(std::string key, WatchOptions options) override;
  asio::awaitable<std::int64_t> count(std::string key_prefix) override;
  asio::awaitable<Revision> current_revision() override;
  asio::awaitable<std::optional<Revision>> unchanged_since(std::string key_prefix, Revision revision,
                                                           std::int64_t count) override;
  asio::awaitable<void> request_watch_progress() override;
  asio::awaitable<void> compact(Revision revision) override;

  const std::filesystem::path& database_file() const noexcept { return database_file_; }

 private:
  explicit Store(Options options);

  struct PendingWrite {
    std::vector<WriteOp> ops;
    Completion<std::vector<WriteOutcome>> done;
  };

  // Queues `ops` for the next group commit and waits until they are durable (or failed).
  asio::awaitable<std::vector<WriteOutcome>> write(std::vector<WriteOp> ops);
  asio::awaitable<WriteOutcome> write_one(WriteOp op);
  void run_batches();  // on the pool; the only user of writer_

  // Runs `read(MvccReader&)` on the pool with an idle reader connection.
  template <typename Read>
  auto with_reader(Read read) -> asio::awaitable<std::invoke_result_t<Read&, MvccReader&>>;
  std::unique_ptr<MvccReader> checkout_reader();
  void return_reader(std::unique_ptr<MvccReader> reader);

  asio::awaitable<std::optional<KeyValue>> read_current(const std::string& key);
  void note_expiry(std::chrono::seconds ttl);
  asio::awaitable<void> expiry_loop();
  asio::awaitable<void> compaction_loop();

  const Options options_;
  const std::filesystem::path database_file_;
  asio::thread_pool pool_;
  asio::strand<asio::thread_pool::executor_type> background_;
  MvccWriter writer_;
  std::shared_ptr<WatchHub> hub_;

  std::mutex readers_mutex_;
  std::vector<std::unique_ptr<MvccReader>> idle_readers_;

  std::mutex writes_mutex_;
  std::vector<PendingWrite> queued_writes_;
  bool writer_active_ = false;
  std::atomic<bool> stopping_{false};

  // Owned by the background strand.
  asio::steady_timer* expiry_timer_ = nullptr;
  asio::steady_timer* compaction_timer_ = nullptr;
  std::int64_t expiry_hint_ms_ = 0;  // a TTL deadline the expiry loop may not have seen yet
};

}  // namespace kapi::storage::embedded

// ------------------------------------------------------------------------------------------ implementation

#include "base/offload.h"

namespace kapi::storage::embedded {

// g++ 12 destroys temporaries of a co_await full-expression twice when they have non-trivial destructors; every
// coroutine here therefore names its callables and arguments before awaiting on them.
template <typename Read>
auto Store::with_reader(Read read) -> asio::awaitable<std::invoke_result_t<Read&, MvccReader&>> {
  auto work = [this, read = std::move(read)]() mutable {
    std::unique_ptr<MvccReader> reader = checkout_reader();
    struct Return {
      Store* store;
      std::unique_ptr<MvccReader>& reader;
      ~Return() { store->return_reader(std::move(reader)); }
    } give_back{this, reader};
    try {
      return read(*reader);
    } catch (const sqlite::SqliteError& e) {
      throw StorageError(ErrorCode::Internal, "", e.what());
    }
  };
  auto task = base::offload(pool_.get_executor(), std::move(work));
  co_return co_await std::move(task);
}

}  // namespace kapi::storage::embedded
