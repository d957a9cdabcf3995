#pragma once
// The watch cache (kube's watchCache + its store): the current objects of one resource keyed by storage key,
// optional secondary indexes, the revision the cache has reached, and the ring of recent events.
//
// Objects stay as the backend's serialized bytes (ObjectRef); the cache adds one ordered-set entry per object and,
// per index, one entry per index value. Ordered by key, so a prefix is a contiguous range and lists come out in
// the backend's order, ready for limit/continue.
//
// Not thread-safe: the Cacher serialises access (see cache_state.h).
#include "storage/cacher/cached_event.h"
#include "storage/cacher/event_history.h"

#include <absl/container/btree_set.h>

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace kapi::storage::cacher {

// A secondary index over the cached objects (kube's cache.Indexers, e.g. pods by spec.nodeName). `values` maps
// an object to its index values (usually one; none leaves the object out). It must be deterministic: the cache
// calls it again on the old object to unindex it, instead of storing every object's values.
struct Indexer {
  std::string name;
  std::function<std::vector<std::string>(const ObjectView&)> values;
};

// Orders ObjectRefs by key, and finds them by a plain key.
struct ByKey {
  using is_transparent = void;
  static std::string_view key_of(const ObjectRef& object) { return object->key; }
  static std::string_view key_of(std::string_view key) { return key; }
  template <typename A, typename B>
  bool operator()(const A& a, const B& b) const {
    return key_of(a) < key_of(b);
  }
};
// In key order. A B-tree keeps a cached object's entry to about the pointer itself (a red-black tree node is 48
// bytes), and the cache holds one for every object of its resource.
using ObjectSet = absl::btree_set<ObjectRef, ByKey>;

// A change arrived at or below a revision that the backend's progress notification had already claimed: reads
// and watches may have been answered at that revision without it, so the cache cannot go on from here.
class ChangeBehindProgress : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class WatchCache {
 public:
  WatchCache(std::vector<Indexer> indexers, EventHistory::Limits history_limits);

  // The state of a fresh list at `revision` replaces everything; the history restarts there.
  void replace(std::vector<KeyValue> items, Revision revision);
  // Applies one change from the backend's watch and records it in the history. Returns the event to dispatch,
  // or null when there is none (a change at or below the newest one applied, as a resumed watch may replay, or
  // the delete of an unknown key). Throws ChangeBehindProgress, changing nothing, for a change newer than every
  // change applied but not newer than the revision progress reached.
  EventRef apply(WatchEvent change, std::chrono::steady_clock::time_point now);
  // The backend reported progress: everything up to `revision` has been seen.
  void advance(Revision revision);
  void compact(Revision revision) { history_.compact(revision); }

  Revision revision() const noexcept { return revision_; }
  const EventHistory& history() const noexcept { return history_; }
  std::size_t size() const noexcept { return objects_.size(); }

  ObjectRef get(std::string_view key) const;
  // Objects whose key starts with `prefix`, in key order.
  std::vector<ObjectRef> list(std::string_view prefix) const;
  // The same, narrowed by an index: std::nullopt when there is no index called `index`.
  std::optional<std::vector<ObjectRef>> list_indexed(std::string_view index, const std::string& value,
                                                     std::string_view prefix) const;

 private:
  struct Index {
    Indexer indexer;
    std::unordered_map<std::string, ObjectSet> by_value;
  };

  void insert(const ObjectRef& object);
  void erase(ObjectSet::iterator position);

  std::vector<Index> indexes_;
  ObjectSet objects_;
  EventHistory history_;
  Revision revision_ = 0;      // what the cache has reached: the newest change, list or progress notification
  Revision last_change_ = 0;   // the newest change applied (or the list's revision)
};

}  // namespace kapi::storage::cacher
