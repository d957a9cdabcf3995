#pragma once
// Objects and events as readers share them, so that what many clients read is stored and encoded once: an object
// version is immutable serialized bytes behind a shared pointer, with a lazily filled cache of its encodings that
// the HTTP layer fills once per output format. A watch cache (storage/cacher) hands out its own; any other backend
// wraps its results (Interface::get_shared, list_shared, WatchStream::next_shared), so callers need not know which.
#include "storage/interface.h"

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kapi::storage {

// The encodings of one object as presented in one event, keyed by a format name the encoder chooses (e.g.
// "json", "protobuf", "json;as=Table"). The first reader that needs a format encodes it; later readers, on any
// thread, get the same bytes. Encoding runs outside the lock, so two readers racing on a new format may both
// encode; the first result stored wins and both get it.
class EncodingCache {
 public:
  using Encoder = std::function<std::string()>;

  std::shared_ptr<const std::string> find(std::string_view format) const {
    std::lock_guard lock(mutex_);
    for (const auto& [name, bytes] : encodings_) {
      if (name == format) return bytes;
    }
    return nullptr;
  }

  std::shared_ptr<const std::string> get_or_encode(std::string_view format, const Encoder& encode) const {
    if (auto cached = find(format)) return cached;
    auto encoded = std::make_shared<const std::string>(encode());
    std::lock_guard lock(mutex_);
    for (const auto& [name, bytes] : encodings_) {
      if (name == format) return bytes;
    }
    encodings_.emplace_back(std::string(format), encoded);
    return encoded;
  }

 private:
  mutable std::mutex mutex_;
  mutable std::vector<std::pair<std::string, std::shared_ptr<const std::string>>> encodings_;
};

// An object version as readers share it (a watch cache's object): the backend's KeyValue, never modified once
// shared, with the encodings readers made of it as served at its own revision (GET and LIST; kube re-encodes these
// per request), so each format of an object version is encoded once however many clients read it. Formats are
// encoded only when first asked for.
struct CachedObject : KeyValue {
  explicit CachedObject(KeyValue object) : KeyValue(std::move(object)) {}
  EncodingCache encodings;
};
using ObjectRef = std::shared_ptr<const CachedObject>;

inline ObjectRef share(KeyValue object) { return std::make_shared<const CachedObject>(std::move(object)); }

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
    event.object = *shared.object;
    event.object.mod_revision = shared.revision;
  }
  if (shared.prev_object) event.prev_object = *shared.prev_object;
  return event;
}

// A backend's event as a shared one: its object shared (not its previous state), with no encodings to share yet.
SharedWatchEvent to_shared_event(WatchEvent event);

}  // namespace kapi::storage
