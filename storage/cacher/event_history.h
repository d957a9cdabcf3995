#pragma once
// The watch cache's ring of recent events (the cyclic buffer of kube's watch_cache.go), from which a watch that
// starts at a past resourceVersion is replayed.
//
// Capacity adapts like kube's resizeCacheLocked, checked whenever an event arrives at a full ring:
//  - grow ×2 (up to the upper bound) when even the oldest event is younger than the fresh window: events are
//    being evicted before a client that fell a window behind could have resumed from them;
//  - shrink ÷2 (down to the lower bound) when the newest quarter of the ring is already older than the window:
//    the ring keeps far more history than the window needs. An idle ring keeps its size until the next event;
//    with no events arriving it costs nothing more than what it already holds.
// Not thread-safe: the watch cache guards it.
#include "storage/cacher/cached_event.h"

#include <chrono>
#include <cstddef>
#include <deque>

namespace kapi::storage::cacher {

class EventHistory {
 public:
  struct Limits {
    std::size_t lower_bound = 100;
    std::size_t upper_bound = 100 * 1024;
    // kube's eventFreshDuration: the bookmark frequency (1 min) plus a margin, so that a watcher's last
    // bookmark is usually still in the ring when it resumes.
    std::chrono::steady_clock::duration fresh_window = std::chrono::seconds(75);
  };

  explicit EventHistory(Limits limits);

  // Empties the ring; it is complete from `floor` on (after a relist at that revision).
  void reset(Revision floor);
  // Appends `event` (its `recorded` time is taken as now), resizing and evicting as above.
  void append(EventRef event);
  // Drops events at or below `revision`, like a compaction of the backend's history.
  void compact(Revision revision);

  // Every event after this revision is in the ring; a watch from an older revision is too old.
  Revision floor() const noexcept { return floor_; }
  Revision last_revision() const noexcept { return events_.empty() ? floor_ : events_.back()->revision(); }
  std::size_t size() const noexcept { return events_.size(); }
  std::size_t capacity() const noexcept { return capacity_; }

  // The position of the first event after `revision` (size() when there is none).
  std::size_t first_after(Revision revision) const;
  const EventRef& at(std::size_t position) const { return events_[position]; }

 private:
  void resize(std::chrono::steady_clock::time_point now);
  void evict_front();

  const Limits limits_;
  std::size_t capacity_;
  std::deque<EventRef> events_;
  Revision floor_ = 0;
};

}  // namespace kapi::storage::cacher
