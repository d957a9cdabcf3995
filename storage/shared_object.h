#pragma once
// Objects and events as readers share them, so that what many clients read is stored and encoded once: an object
// version is immutable serialized bytes behind a shared pointer, with a lazily filled cache of its encodings that
// the HTTP layer fills once per output format. A watch cache (storage/cacher) hands out its own; any other backend
// wraps its results (Interface::get_shared, list_shared, WatchStream::next_shared), so callers need not know which.
#include "storage/interface.h"

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kapi::storage {

// The encodings of one object as presented in one event, keyed by a format name the encoder chooses (e.g.
// "json", "protobuf", "json;as=Table"). The first reader that needs a format encodes it; later readers, on any
// thread, get the same bytes. Encoding runs outside any lock, so two readers racing on a new format may both
// encode; the first result stored wins and both get it.
//
// Every cached object and every event of a watch cache's history carries one, and most never hold an encoding
// (nobody read that version), so an empty one is a single atomic pointer: the encodings are a list, newest first,
// that only grows, each entry pushed with a compare-and-swap.
class EncodingCache {
 public:
  using Encoder = std::function<std::string()>;

  std::shared_ptr<const std::string> find(std::string_view format) const {
    return find_in(head_.load(std::memory_order_acquire), format);
  }

  std::shared_ptr<const std::string> get_or_encode(std::string_view format, const Encoder& encode) const {
    auto head = head_.load(std::memory_order_acquire);
    if (auto cached = find_in(head, format)) return cached;
    auto entry = std::make_shared<Entry>(std::string(format), encode());
    do {
      if (auto cached = find_in(head, format)) return cached;
      entry->next = head;
    } while (!head_.compare_exchange_weak(head, entry, std::memory_order_acq_rel, std::memory_order_acquire));
    return {entry, &entry->bytes};
  }

 private:
  struct Entry {
    Entry(std::string format, std::string bytes) : format(std::move(format)), bytes(std::move(bytes)) {}
    const std::string format;
    const std::string bytes;
    std::shared_ptr<const Entry> next;  // set before the entry is published, never after
  };

  // `head` keeps the whole list alive while it is walked.
  static std::shared_ptr<const std::string> find_in(const std::shared_ptr<const Entry>& head,
                                                    std::string_view format) {
    for (const Entry* entry = head.get(); entry != nullptr; entry = entry->next.get()) {
      if (entry->format == format) return {head, &entry->bytes};
    }
    return nullptr;
  }

  mutable std::atomic<std::shared_ptr<const Entry>> head_;
};

// An object version as readers share it (a watch cache's object): the backend's key, value and revisions, never
// modified once shared, with the encodings readers made of it as served at its own revision (GET and LIST; kube
// re-encodes these per request), so each format of an object version is encoded once however many clients read it.
// Formats are encoded only when first asked for.
//
// A watch cache holds one per object version it keeps, so share() makes each one a single allocation: the shared
// pointer's counts, these fields, then the key's and the value's bytes, which the views point at. The allocator's
// size class for the value alone usually has room for the rest.
struct CachedObject : ObjectView {
  CachedObject() = default;
  CachedObject(const CachedObject&) = delete;  // its views point into its own allocation
  CachedObject& operator=(const CachedObject&) = delete;

  EncodingCache encodings;
};
using ObjectRef = std::shared_ptr<const CachedObject>;

// A shared copy of `object`'s bytes and revisions.
ObjectRef share(const ObjectView& object);

// A list result whose items are shared objects (no bytes copied).
struct SharedListResult {
  std::vector<ObjectRef> items;
  Revision revision = 0;
  std::string continue_token;
  std::optional<std::int64_t> remaining_item_count;
};

// One event as a watch delivers it with nothing copied: from a watch cache, `object` and `encodings` are shared
// with every other watcher that receives the same change.
struct SharedWatchEvent {
  WatchEventType type = WatchEventType::Added;
  ObjectRef object;       // null for Bookmark and Error
  ObjectRef prev_object;  // Modified: the previous state
  // The event's revision. Present `object` with this resourceVersion: it differs from object->mod_revision only
  // for a Deleted sent because a Modified left the watch's predicate.
  Revision revision = 0;
  bool initial_events_end = false;  // Bookmark: closes the initial events of a send_initial_events watch
  std::optional<StorageError> error;  // Error
  // Encodings of `object` as presented in this event, shared by all watchers; null for initial-state events,
  // bookmarks and errors (encode those directly).
  std::shared_ptr<const EncodingCache> encodings;
};

// The storage::WatchEvent equivalent (copies the bytes; for callers that need the generic type).
inline WatchEvent to_watch_event(const SharedWatchEvent& shared) {
  WatchEvent event;
  event.type = shared.type;
  event.revision = shared.revision;
  event.initial_events_end = shared.initial_events_end;
  event.error = shared.error;
  if (shared.object) {
    event.object = shared.object->to_key_value();
    event.object.mod_revision = shared.revision;
  }
  if (shared.prev_object) event.prev_object = shared.prev_object->to_key_value();
  return event;
}

// A backend's event as a shared one: its object shared (not its previous state), with no encodings to share yet.
SharedWatchEvent to_shared_event(WatchEvent event);

}  // namespace kapi::storage
