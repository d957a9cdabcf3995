#pragma once
// The WatchStream of a watch served from the cache. Besides the generic next() (which copies each event's bytes
// into a storage::WatchEvent), next_shared() hands out the cache's own shared event: the HTTP layer encodes
// through event.encodings, so that each event is serialized once per format for all watchers.
//
// next() / next_shared() are called by one consumer at a time; stop() from any thread.
#include "storage/cacher/cached_event.h"
#include "storage/interface.h"

#include <memory>
#include <optional>

namespace kapi::storage::cacher {

class CacheState;
class CacheWatcher;

class CacheWatchStream final : public WatchStream {
 public:
  CacheWatchStream(std::shared_ptr<CacheState> state, std::shared_ptr<CacheWatcher> watcher);
  ~CacheWatchStream() override;

  asio::awaitable<std::optional<WatchEvent>> next() override;
  asio::awaitable<std::optional<SharedWatchEvent>> next_shared() override;
  void stop() override;

 private:
  std::shared_ptr<CacheState> state_;
  std::shared_ptr<CacheWatcher> watcher_;
};

}  // namespace kapi::storage::cacher
