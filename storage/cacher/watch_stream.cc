#include "storage/cacher/watch_stream.h"

#include "storage/cacher/cache_state.h"
#include "storage/cacher/cache_watcher.h"

#include <asio/experimental/as_tuple.hpp>
#include <asio/use_awaitable.hpp>

namespace kapi::storage::cacher {

CacheWatchStream::CacheWatchStream(std::shared_ptr<CacheState> state, std::shared_ptr<CacheWatcher> watcher)
    : state_(std::move(state)), watcher_(std::move(watcher)) {}

CacheWatchStream::~CacheWatchStream() { watcher_->stop(); }

void CacheWatchStream::stop() { watcher_->stop(); }

asio::awaitable<std::optional<SharedWatchEvent>> CacheWatchStream::next_shared() {
  for (;;) {
    CacheWatcher::Item item = watcher_->poll();
    switch (item.kind) {
      case CacheWatcher::Item::Kind::End:
        co_return std::nullopt;
      case CacheWatcher::Item::Kind::CatchUp:
        state_->catch_up(*watcher_);
        break;
      case CacheWatcher::Item::Kind::Wait:
        // A ring between poll() and here is kept by the doorbell, so nothing is missed.
        co_await watcher_->doorbell().async_receive(asio::experimental::as_tuple(asio::use_awaitable));
        break;
      case CacheWatcher::Item::Kind::Event:
        if (auto event = present(item, watcher_->settings().predicate)) co_return event;
        break;
    }
  }
}

asio::awaitable<std::optional<WatchEvent>> CacheWatchStream::next() {
  std::optional<SharedWatchEvent> shared = co_await next_shared();
  if (!shared) co_return std::nullopt;
  co_return to_watch_event(*shared);
}

}  // namespace kapi::storage::cacher
