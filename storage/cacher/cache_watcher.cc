#include "storage/cacher/cache_watcher.h"

#include <algorithm>

namespace kapi::storage::cacher {

CacheWatcher::CacheWatcher(asio::any_io_executor executor, Settings settings)
    : settings_(std::move(settings)), doorbell_(std::move(executor), 1) {
  const Clock::time_point now = Clock::now();
  last_taken_ = now;
  next_bookmark_ = now + settings_.bookmark_interval;
}

void CacheWatcher::start_with_state(std::vector<ObjectRef> objects, Revision revision, bool end_bookmark) {
  std::lock_guard lock(mutex_);
  initial_ = std::move(objects);
  initial_revision_ = revision;
  end_bookmark_pending_ = end_bookmark;
  delivered_through_ = revision;
}

void CacheWatcher::start_after(Revision revision) {
  std::lock_guard lock(mutex_);
  delivered_through_ = revision;
  behind_ = true;
  behind_since_ = Clock::now();
}

void CacheWatcher::start_with_error(StorageError error) {
  std::lock_guard lock(mutex_);
  error_ = std::move(error);
}

bool CacheWatcher::offer(const EventRef& event, Clock::time_point now, Clock::duration blocked_budget) {
  // The scope never changes: most watchers are rejected here without touching their lock.
  if (!settings_.scope.contains(event->object->key)) return true;
  {
    std::lock_guard lock(mutex_);
    if (ended_ || stopped_) return false;
    if (event->revision() <= delivered_through_) return true;
    if (behind_) {
      // catch_up will take it from the history; meanwhile the consumer must show signs of life.
      if (now - std::max(behind_since_, last_taken_) > blocked_budget) terminate_locked();
      return !ended_;
    }
    if (buffer_.size() >= settings_.buffer_capacity) {
      behind_ = true;
      behind_since_ = now;
      return true;
    }
    buffer_.push_back({event, 0});
    delivered_through_ = event->revision();
  }
  ring();
  return true;
}

void CacheWatcher::offer_bookmark(Revision revision, Clock::time_point now, bool forced) {
  if (!settings_.bookmarks) return;
  {
    std::lock_guard lock(mutex_);
    if (ended_ || stopped_ || behind_ || revision < delivered_through_ || revision <= 0) return;
    if (!forced && now < next_bookmark_) return;
    if (buffer_.size() >= settings_.buffer_capacity) return;  // best effort, like kube's nonblockingAdd
    buffer_.push_back({nullptr, revision});
    delivered_through_ = revision;
    next_bookmark_ = now + settings_.bookmark_interval;
  }
  ring();
}

void CacheWatcher::catch_up(const EventHistory& history, Clock::time_point now) {
  {
    std::lock_guard lock(mutex_);
    if (!behind_ || ended_ || stopped_) return;
    if (delivered_through_ < history.floor()) {
      // What it missed is gone from the history: like kube, close it; a re-watch from its last revision gets
      // 410 Gone and the client relists.
      terminate_locked();
    } else {
      bool caught_up = true;
      for (std::size_t at = history.first_after(delivered_through_); at < history.size(); ++at) {
        const EventRef& event = history.at(at);
        if (settings_.scope.contains(event->object->key)) {
          if (buffer_.size() >= settings_.buffer_capacity) {
            caught_up = false;
            behind_since_ = now;  // it took something since it fell behind: a fresh budget
            break;
          }
          buffer_.push_back({event, 0});
        }
        delivered_through_ = event->revision();
      }
      if (caught_up) {
        behind_ = false;
        delivered_through_ = std::max(delivered_through_, history.last_revision());
      }
    }
  }
  ring();
}

void CacheWatcher::enforce_budget(Clock::time_point now, Clock::duration blocked_budget) {
  std::lock_guard lock(mutex_);
  if (behind_ && !ended_ && now - std::max(behind_since_, last_taken_) > blocked_budget) terminate_locked();
}

void CacheWatcher::terminate() {
  std::lock_guard lock(mutex_);
  terminate_locked();
}

void CacheWatcher::terminate_locked() {
  ended_ = true;
  behind_ = false;
  buffer_.clear();
  initial_.clear();
  initial_next_ = 0;
  end_bookmark_pending_ = false;
  ring();  // safe under the lock: the doorbell posts its completion, it never runs the consumer inline
}

bool CacheWatcher::finished() const {
  std::lock_guard lock(mutex_);
  return ended_ || stopped_;
}

CacheWatcher::Item CacheWatcher::poll() {
  Item item;
  std::lock_guard lock(mutex_);
  if (stopped_) {
    item.kind = Item::Kind::End;
    return item;
  }
  if (error_) {
    item.kind = Item::Kind::Event;
    item.error = std::move(error_);
    error_.reset();
    ended_ = true;
    return item;
  }
  if (ended_) {
    item.kind = Item::Kind::End;
    return item;
  }
  item.kind = Item::Kind::Event;
  if (initial_next_ < initial_.size()) {
    item.initial = std::move(initial_[initial_next_++]);
    if (initial_next_ == initial_.size()) {
      initial_.clear();
      initial_next_ = 0;
    }
  } else if (end_bookmark_pending_) {
    end_bookmark_pending_ = false;
    item.bookmark = initial_revision_;
    item.initial_events_end = true;
  } else if (!buffer_.empty()) {
    item.change = std::move(buffer_.front().change);
    item.bookmark = buffer_.front().bookmark;
    buffer_.pop_front();
  } else {
    item.kind = behind_ ? Item::Kind::CatchUp : Item::Kind::Wait;
    return item;
  }
  last_taken_ = Clock::now();
  return item;
}

void CacheWatcher::stop() {
  {
    std::lock_guard lock(mutex_);
    stopped_ = true;
    buffer_.clear();
    initial_.clear();
  }
  ring();
}

void CacheWatcher::ring() { doorbell_.try_send(std::error_code{}, true); }

std::optional<SharedWatchEvent> present(const CacheWatcher::Item& item, const Predicate& predicate) {
  auto passes = [&predicate](const ObjectRef& object) { return object && (!predicate || predicate(*object)); };
  SharedWatchEvent out;
  if (item.error) {
    out.type = WatchEventType::Error;
    out.error = item.error;
    return out;
  }
  if (item.initial) {
    if (!passes(item.initial)) return std::nullopt;
    out.type = WatchEventType::Added;
    out.revision = item.initial->mod_revision;
    out.object = item.initial;
    return out;
  }
  if (!item.change) {
    out.type = WatchEventType::Bookmark;
    out.revision = item.bookmark;
    out.initial_events_end = item.initial_events_end;
    return out;
  }

  const CachedEvent& change = *item.change;
  const bool passes_now = change.type != WatchEventType::Deleted && passes(change.object);
  const bool passed_before = passes(change.prev);
  if (!passes_now && !passed_before) return std::nullopt;
  out.revision = change.revision();
  out.prev_object = change.prev;
  if (passes_now) {
    out.type = passed_before ? WatchEventType::Modified : WatchEventType::Added;
    out.object = change.object;
    out.encodings = std::shared_ptr<const EncodingCache>(item.change, &change.object_encodings);
  } else if (change.type == WatchEventType::Deleted) {
    out.type = WatchEventType::Deleted;
    out.object = change.object;
    out.encodings = std::shared_ptr<const EncodingCache>(item.change, &change.object_encodings);
  } else {
    out.type = WatchEventType::Deleted;
    out.object = change.prev;
    out.encodings = std::shared_ptr<const EncodingCache>(item.change, &change.prev_encodings);
  }
  if (out.type == WatchEventType::Added) out.prev_object = nullptr;
  return out;
}

}  // namespace kapi::storage::cacher
