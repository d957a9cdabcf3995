#pragma once
// The Cacher (k8s.io/apiserver/pkg/storage/cacher): storage::Interface for one resource, served from a watch
// cache that a reflector keeps in step with the backend, with one dispatcher fanning changes out to all watches.
//
//  - Writes, count, current_revision go to the backend (compact also trims the cache's history).
//  - The reflector coroutine lists the resource prefix, then watches it from the list's revision with progress
//    notifications; a broken watch resumes from the cache's revision, an Expired one relists (ending every
//    watcher, as kube does). So does a change that arrives at or below a revision a progress notification had
//    already claimed: reads and watches may have been answered without it, so clients must start over (410).
//  - GET: resourceVersion "" goes to the backend (like kube: a single-key read costs the backend no more than
//    asking its revision); "0" is served from the cache as it is; "N" once the cache has reached N (else
//    TooLargeResourceVersion after fresh_wait_timeout). A backend that cannot be asked for progress (etcd
//    before 3.4.31/3.5.13) answers "N" itself while the cache is behind: only an event could bring the cache.
//  - LIST: Exact, continue tokens and the legacy "limit with resourceVersion N" go to the backend. Everything
//    else is served from the cache: "0" as it is, "N"/NotOlderThan once the cache reached N, "" (consistent)
//    once the cache reached the backend's current revision (KEP-2340: the Cacher asks the backend for progress
//    notifications while it waits; after consistent_read_timeout it falls back to the backend, or fails with
//    Timeout). A backend that cannot be asked for progress answers it directly, as "N" above, unless it knows
//    every change since the cache's revision without reading (known_changes_since: etcd3's own writes), and the
//    cache waits for those under the prefix, at the cost of asking the backend its revision; or unless it
//    confirms that nothing under the prefix changed since the cache's revision (unchanged_since): then the cache's
//    state is served at the backend's current revision, at the cost of one keys-only Range instead of the whole
//    list, which concurrent LISTs of a scope share (shared_unchanged_checks.h). As in kube 1.32, a `limit` is
//    honoured from the cache: the page is cut after `limit` matches, its continue token holds the cache's
//    revision, and the continuation goes to the backend (an exact read there).
//  - WATCH: "", "0" or send_initial_events start with the current state as Added events (send_initial_events
//    first waits for the requested or current revision and ends the state with an initial_events_end Bookmark);
//    "N" replays the history after N, or sends Error(Expired, "too old resource version: N (oldest)") when the
//    history no longer reaches back to N. Watches with progress_notify get Bookmarks every bookmark_interval and
//    after request_watch_progress(). Slow watchers never delay others (see cache_watcher.h).
//  - Keys outside the resource prefix, and any read while the cache is (re)initialising, go to the backend.
//
// Threads: every method may be called from any thread and any executor; the reflector and the periodic duties
// run on a strand of the executor given at construction; each watch delivers on its consumer's executor.
//
// Lifetime: the backend must outlive the Cacher, and no call may be in flight when it is destroyed (watch
// streams may outlive it: they end). The destructor stops the background work and blocks until it is done, so
// destroy the Cacher from a thread that does not run its executor, or co_await shutdown() first.
#include "storage/cacher/cache_state.h"
#include "storage/cacher/options.h"
#include "storage/cacher/shared_unchanged_checks.h"
#include "storage/cacher/watch_stream.h"
#include "storage/interface.h"

#include <asio/any_io_executor.hpp>
#include <asio/steady_timer.hpp>
#include <asio/strand.hpp>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>

namespace kapi::storage::cacher {

class Cacher final : public Interface {
 public:
  // Starts the reflector at once; reads go to the backend until its first list is in.
  Cacher(Interface& backend, asio::any_io_executor executor, CacherOptions options);
  ~Cacher() override;
  Cacher(const Cacher&) = delete;
  Cacher& operator=(const Cacher&) = delete;

  asio::awaitable<KeyValue> create(std::string key, std::string value, WriteOptions options) override;
  asio::awaitable<KeyValue> remove(std::string key, PreconditionCheck preconditions) override;
  asio::awaitable<std::optional<KeyValue>> get(std::string key, GetOptions options) override;
  asio::awaitable<ListResult> list(std::string key_prefix, ListOptions options) override;
  asio::awaitable<KeyValue> guaranteed_update(std::string key, bool ignore_not_found,
                                              PreconditionCheck preconditions, TryUpdate try_update,
                                              WriteOptions options) override;
  // A CacheWatchStream for keys under the resource prefix (see watch_stream.h), else the backend's stream.
  asio::awaitable<std::unique_ptr<WatchStream>> watch(std::string key, WatchOptions options) override;
  asio::awaitable<std::int64_t> count(std::string key_prefix) override;
  asio::awaitable<Revision> current_revision() override;
  asio::awaitable<void> request_watch_progress() override;
  bool can_request_watch_progress() const override { return backend_.can_request_watch_progress(); }
  asio::awaitable<std::optional<Revision>> unchanged_since(std::string key_prefix, Revision revision,
                                                           std::int64_t count) override {
    return backend_.unchanged_since(std::move(key_prefix), revision, count);
  }
  asio::awaitable<std::optional<KnownChanges>> known_changes_since(std::string key_prefix, Revision revision) override {
    return backend_.known_changes_since(std::move(key_prefix), revision);
  }
  asio::awaitable<void> compact(Revision revision) override;

  // get() and list() without copying the objects' bytes: the same rules, the cache's shared objects (a delegated
  // read's results are wrapped by the backend, not copied).
  asio::awaitable<std::optional<ObjectRef>> get_shared(std::string key, GetOptions options) override;
  asio::awaitable<SharedListResult> list_shared(std::string key_prefix, ListOptions options) override;
  // A list whose candidates come from an index (kube's pred.IndexFields hint), e.g. pods with
  // {"spec.nodeName", "node-1"}. `options.predicate` must still select exactly what the caller wants (the index
  // only narrows the candidates, and the requests that go to the backend use only the predicate). An unknown
  // index falls back to scanning the prefix.
  asio::awaitable<ListResult> list_by_index(std::string key_prefix, IndexQuery index, ListOptions options);

  // Stops the reflector and the periodic duties, ends every watch, and waits until the background work is done.
  asio::awaitable<void> shutdown();

  bool ready() const { return state_->ready(); }
  CacheState::Stats stats() const { return state_->stats(); }

 private:
  asio::awaitable<void> reflect();
  asio::awaitable<void> relist();
  asio::awaitable<void> run_periodic_duties();
  void start(asio::awaitable<void> task);
  void finish_task();
  void request_stop();

  bool covers(const KeyScope& scope) const;
  // A read at resourceVersion `revision` that the backend must answer: the cache is behind it and cannot be
  // brought up on demand (a backend without progress requests).
  bool behind_without_progress(Revision revision) const;
  // Waits until the cache is ready at `revision` or later; false after `timeout`. With `ask_progress`, asks the
  // backend for progress notifications meanwhile (at most every 100 ms per Cacher).
  asio::awaitable<bool> wait_until_fresh(Revision revision, std::chrono::milliseconds timeout, bool ask_progress);
  asio::awaitable<void> ask_progress_throttled();
  // list_shared(), with candidates narrowed by `index` when it names one.
  asio::awaitable<SharedListResult> list_cached(std::string key_prefix, ListOptions options,
                                                std::optional<IndexQuery> index);
  // For a consistent read without progress requests: the cache's state under `scope` (narrowed by `index`) at
  // the backend's current revision or later, when the backend knows every change since the cache's revision
  // without reading (Interface::known_changes_since) and the cache has reached those under the prefix; else
  // std::nullopt.
  asio::awaitable<std::optional<CacheState::Snapshot>> read_known_current(const KeyScope& scope,
                                                                         const std::optional<IndexQuery>& index);
  // For a consistent LIST without progress requests: the cache's state under `scope` at the backend's current
  // revision, when the backend confirms that nothing changed there (Interface::unchanged_since); else null.
  asio::awaitable<SharedUnchangedChecks::Proven> prove_unchanged(const KeyScope& scope);
  // One page of `snapshot`'s objects that match `options`, at the snapshot's revision.
  SharedListResult page(CacheState::Snapshot snapshot, const KeyScope& scope, const ListOptions& options) const;

  Interface& backend_;
  const CacherOptions options_;
  const std::string prefix_;
  const std::shared_ptr<CacheState> state_;
  asio::strand<asio::any_io_executor> strand_;
  std::atomic<std::int64_t> last_progress_request_ns_{0};
  SharedUnchangedChecks unchanged_checks_;

  // Owned by the strand.
  bool stopping_ = false;
  std::unique_ptr<WatchStream> backend_watch_;
  asio::steady_timer retry_timer_;
  asio::steady_timer tick_timer_;

  // Background tasks still running; the destructor and shutdown() wait for zero.
  std::mutex tasks_mutex_;
  std::condition_variable tasks_done_;
  int tasks_running_ = 0;
  bool shut_down_ = false;  // shutdown() has finished: the destructor has nothing left to stop
  std::vector<std::shared_ptr<Doorbell>> shutdown_waiters_;
};

}  // namespace kapi::storage::cacher
