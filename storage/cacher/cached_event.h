#pragma once
// One change as the watch cache records it (kube's watchCacheEvent): its objects are the shared objects of
// storage/shared_object.h, so the cache's store, its event history and every watcher's buffer point at the same
// bytes, and each event carries the encodings its watchers share.
#include "storage/shared_object.h"

#include <chrono>
#include <memory>

namespace kapi::storage::cacher {

// One change as the watch cache recorded it. `prev` comes from the cache itself, so every event knows the state
// it replaced; watchers use it to turn changes into Added/Deleted when an object enters or leaves their predicate.
struct CachedEvent {
  WatchEventType type = WatchEventType::Added;  // Added, Modified or Deleted
  // The new state; for Deleted the last state. Its mod_revision is the change's revision (for Deleted, the
  // deletion's): the history holds an event per change, so the revision is not kept twice.
  ObjectRef object;
  ObjectRef prev;  // the replaced state (Modified, Deleted); null for Added
  std::chrono::steady_clock::time_point recorded;  // when the cache saw it (drives the history's capacity)

  EncodingCache object_encodings;  // `object` presented at `revision`
  // `prev` presented at `revision`: the Deleted a watcher sends when a Modified takes the object out of its
  // predicate (kube sends the old object with the event's resourceVersion).
  EncodingCache prev_encodings;

  Revision revision() const { return object->mod_revision; }
};
using EventRef = std::shared_ptr<const CachedEvent>;

}  // namespace kapi::storage::cacher
