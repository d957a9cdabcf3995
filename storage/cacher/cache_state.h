#pragma once
// The state a Cacher's reflector, its readers and its watchers share, behind one reader/writer lock: the watch
// cache, the registered watchers (the dispatcher's fan-out list), and the readers waiting for a revision.
//
// The reflector applies each change and fans it out to the watchers in one critical section, so a watcher
// registered at revision R (its initial state or its history replay read under the same lock) sees exactly the
// changes after R. Readers and catching-up watchers take the lock shared; the dispatcher's per-watcher work
// under the exclusive lock is a scope check and, for the watchers in scope, a push into their buffer.
//
// Watch streams hold the state by shared_ptr, so they may outlive the Cacher: close() ends them.
#include "storage/cacher/cache_watcher.h"
#include "storage/cacher/options.h"
#include "storage/cacher/watch_cache.h"

#include <asio/any_io_executor.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <utility>
#include <vector>

namespace kapi::storage::cacher {

struct IndexQuery {
  std::string index;  // an Indexer's name
  std::string value;
};

class CacheState {
 public:
  using Clock = std::chrono::steady_clock;

  explicit CacheState(const CacherOptions& options);

  // ---- The reflector's side (one caller at a time).
  // A fresh list at `revision`: replaces the cache, ends every watcher (what they missed is unknowable, as in
  // kube's terminateAllWatchers) and makes the cache ready.
  void replace(std::vector<KeyValue> items, Revision revision);
  // One change: recorded, then dispatched to every watcher whose scope holds its key. Throws
  // ChangeBehindProgress (see watch_cache.h), changing nothing: the reflector must relist.
  void apply(WatchEvent change);
  // The backend reported progress up to `revision`.
  void progress(Revision revision);
  // Reads go to the backend until the next replace().
  void set_unready();
  // Periodic duties: due bookmarks, blocked watchers' budgets, forgetting finished watchers.
  void tick();
  // The Cacher stops: every watcher ends, nothing registers any more.
  void close();

  // ---- Requests.
  // Watches with progress_notify get a Bookmark as soon as the cache has reached `revision`.
  void request_bookmarks(Revision revision);
  void compact(Revision revision);
  bool ready() const;
  Revision revision() const;
  // Ready, and at `revision` or later.
  bool fresh(Revision revision) const;
  // Rings `bell` once fresh(revision); returns false (registering nothing) when it already is.
  bool await_revision(Revision revision, std::shared_ptr<Doorbell> bell);
  void forget_waiter(const std::shared_ptr<Doorbell>& bell);

  struct Snapshot {
    std::vector<ObjectRef> items;  // in key order
    Revision revision = 0;
  };
  // The objects in `scope` (narrowed by `index` when it names an index), or nullopt while not ready.
  std::optional<Snapshot> read(const KeyScope& scope, const std::optional<IndexQuery>& index) const;

  // ---- Watches.
  enum class Start {
    WithState,               // initial Added events for the current state, then changes
    WithStateThenBookmark,   // the same, with an initial-events-end Bookmark after the initial events
    After,                   // the changes after `after`, replayed from the history
  };
  // Registers a watcher. An `after` older than the history gives a watcher that only sends Error(Expired);
  // while not ready, one that has already ended.
  std::shared_ptr<CacheWatcher> add_watcher(asio::any_io_executor executor, CacheWatcher::Settings settings,
                                            Start start, Revision after = 0);
  void catch_up(CacheWatcher& watcher) const;

  struct Stats {
    std::size_t objects = 0;
    std::size_t history_size = 0;
    std::size_t history_capacity = 0;
    std::size_t watchers = 0;
    Revision revision = 0;
  };
  Stats stats() const;

 private:
  void after_progress_locked(Clock::time_point now);
  void end_all_watchers_locked();

  const Clock::duration blocked_budget_;

  mutable std::shared_mutex mutex_;
  WatchCache cache_;
  bool ready_ = false;
  bool closed_ = false;
  Revision bookmarks_requested_at_ = 0;
  std::vector<std::shared_ptr<CacheWatcher>> watchers_;
  std::vector<std::pair<Revision, std::shared_ptr<Doorbell>>> waiters_;
};

}  // namespace kapi::storage::cacher
