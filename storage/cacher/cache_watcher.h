#pragma once
// One watch served from the cache (kube's cacheWatcher): a bounded buffer the dispatcher fills and the watch's
// consumer drains, on its own executor.
//
// Never blocking the dispatcher: when the buffer is full the watcher does not wait and does not drop anything;
// it falls *behind*. The dispatcher then skips it, and once the consumer has drained the buffer it refills it
// from the event history, starting after the last revision it had taken (catch_up), until it is live again. The
// same mechanism replays a watch that starts at a past revision. A watcher ends (terminate: the stream ends, the
// client re-watches from the last revision it saw, as after kube's forced close) when
//  - it stays behind without its consumer taking anything for longer than the blocked budget, or
//  - the history no longer reaches back to where it fell behind.
// So one stuck consumer costs the dispatcher one skipped check per event and delays nobody.
//
// Locking: producer-side calls run under the cache's lock, which orders them with each other and with the
// history; each watcher's own mutex orders them with its consumer. The predicate runs on the consumer's side,
// outside every lock (it may parse the object).
#include "base/ring_queue.h"
#include "storage/cacher/cached_event.h"
#include "storage/cacher/event_history.h"

#include <asio/any_io_executor.hpp>
#include <asio/experimental/concurrent_channel.hpp>

#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace kapi::storage::cacher {

// Wakes one waiting coroutine from any thread; rings coalesce (capacity 1), a completion is always posted.
// (The bool only avoids Asio 1.22's ambiguous channel traits for void(error_code).)
using Doorbell = asio::experimental::concurrent_channel<void(std::error_code, bool)>;

// The keys a watch or a list covers.
struct KeyScope {
  std::string key;  // a directory ending in '/' when recursive, else one exact key
  bool recursive = true;
  bool contains(std::string_view candidate) const { return recursive ? candidate.starts_with(key) : candidate == key; }
};

class CacheWatcher {
 public:
  using Clock = std::chrono::steady_clock;

  struct Settings {
    KeyScope scope;
    Predicate predicate;
    bool bookmarks = false;  // the watch asked for progress notifications (kube's allowWatchBookmarks)
    std::size_t buffer_capacity = 100;
    Clock::duration bookmark_interval = std::chrono::minutes(1);
  };

  // A raw item for the consumer; present() turns it into the event the watch sends (or nothing).
  struct Item {
    enum class Kind { Event, Wait, CatchUp, End };
    Kind kind = Kind::Wait;
    ObjectRef initial;      // an object of the initial state (an Added)
    EventRef change;        // a change from the dispatcher or the history
    Revision bookmark = 0;  // a Bookmark at this revision
    bool initial_events_end = false;
    std::optional<StorageError> error;
  };

  CacheWatcher(asio::any_io_executor executor, Settings settings);
  const Settings& settings() const noexcept { return settings_; }

  // ---- Starting, before the watcher is registered (under the cache's lock).
  // Initial Added events for `objects` (the state at `revision`), then changes after `revision`; with
  // `end_bookmark`, a Bookmark flagged initial_events_end right after the initial events.
  void start_with_state(std::vector<ObjectRef> objects, Revision revision, bool end_bookmark);
  // Changes after `revision`: behind from the start, the first catch_up replays the history.
  void start_after(Revision revision);
  // One Error event, then the end.
  void start_with_error(StorageError error);

  // ---- The dispatcher's side (under the cache's lock).
  // Returns false once the watcher has finished (the dispatcher may forget it).
  bool offer(const EventRef& event, Clock::time_point now, Clock::duration blocked_budget);
  // A Bookmark at `revision` when the watch wants bookmarks, one is due (or `forced`) and it fits the buffer.
  void offer_bookmark(Revision revision, Clock::time_point now, bool forced);
  // Refills the buffer from `history` while behind (under the cache's lock, at least shared).
  void catch_up(const EventHistory& history, Clock::time_point now);
  void enforce_budget(Clock::time_point now, Clock::duration blocked_budget);
  // Ends the watch now; whatever is buffered is dropped.
  void terminate();
  // Stopped or ended: the dispatcher may forget it.
  bool finished() const;

  // ---- The consumer's side.
  Item poll();
  Doorbell& doorbell() noexcept { return doorbell_; }
  void stop();

 private:
  struct Buffered {
    EventRef change;        // or, when null,
    Revision bookmark = 0;  // a Bookmark
  };

  void terminate_locked();
  void ring();

  const Settings settings_;
  Doorbell doorbell_;

  mutable std::mutex mutex_;
  std::vector<ObjectRef> initial_;
  std::size_t initial_next_ = 0;
  Revision initial_revision_ = 0;
  bool end_bookmark_pending_ = false;
  base::RingQueue<Buffered> buffer_;  // an idle watcher's holds no memory
  Revision delivered_through_ = 0;  // every change up to here is buffered, consumed, or outside the scope
  bool behind_ = false;
  Clock::time_point behind_since_;
  Clock::time_point last_taken_;
  Clock::time_point next_bookmark_;
  std::optional<StorageError> error_;
  bool ended_ = false;
  bool stopped_ = false;
};

// What `item` means to a watch with `predicate` (kube's convertToWatchEvent): a change entering the predicate is
// an Added, one leaving it a Deleted of the old state at the change's revision, one outside it nothing.
std::optional<SharedWatchEvent> present(const CacheWatcher::Item& item, const Predicate& predicate);

}  // namespace kapi::storage::cacher
