#include "storage/embedded/watch_hub.h"

#include <algorithm>

namespace kapi::storage::embedded {

// ---------------------------------------------------------------------------------------------- Watcher

asio::awaitable<std::optional<Watcher::Item>> Watcher::pop() {
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      if (stopped_) co_return std::nullopt;
      if (!inbox_.empty()) {
        Item item = std::move(inbox_.front());
        inbox_.pop_front();
        co_return item;
      }
      if (ended_) co_return std::nullopt;
    }
    auto park = [this](Completion<bool> wake) {
      std::unique_lock lock(mutex_);
      if (stopped_ || ended_ || !inbox_.empty()) {
        lock.unlock();
        wake(nullptr, true);
        return;
      }
      waiter_ = std::move(wake);
    };
    auto woken = async_completion<bool>(std::move(park));
    co_await std::move(woken);
  }
}

void Watcher::stop() {
  Completion<bool> waiter;
  {
    std::lock_guard lock(mutex_);
    stopped_ = true;
    waiter = std::exchange(waiter_, nullptr);
  }
  if (waiter) waiter(nullptr, true);
}

bool Watcher::stopped() {
  std::lock_guard lock(mutex_);
  return stopped_;
}

Completion<bool> Watcher::push(Item item) {
  std::lock_guard lock(mutex_);
  if (ended_ || stopped_) return nullptr;
  if (inbox_.size() >= capacity_) {
    ended_ = true;  // too far behind: close after what it already holds (see the header)
  } else {
    inbox_.push_back(std::move(item));
  }
  return std::exchange(waiter_, nullptr);
}

Completion<bool> Watcher::end() {
  std::lock_guard lock(mutex_);
  ended_ = true;
  return std::exchange(waiter_, nullptr);
}

// ---------------------------------------------------------------------------------------------- WatchHub

Revision WatchHub::add(std::shared_ptr<Watcher> watcher) {
  Completion<bool> waiter;
  Revision revision = 0;
  {
    std::lock_guard lock(mutex_);
    revision = revision_;
    if (closed_) {
      waiter = watcher->end();
    } else {
      watchers_.push_back(std::move(watcher));
    }
  }
  if (waiter) waiter(nullptr, true);
  return revision;
}

void WatchHub::remove(const Watcher* watcher) {
  std::lock_guard lock(mutex_);
  std::erase_if(watchers_, [watcher](const auto& w) { return w.get() == watcher; });
}

void WatchHub::publish(const std::vector<Change>& changes, Revision revision) {
  std::vector<Completion<bool>> waiters;
  {
    std::lock_guard lock(mutex_);
    revision_ = std::max(revision_, revision);
    for (const Change& change : changes) {
      std::shared_ptr<const Change> shared;  // one copy of the change, however many watchers hold it
      for (const auto& watcher : watchers_) {
        if (!watcher->range_.contains(change.kv.key)) continue;
        if (!shared) shared = std::make_shared<const Change>(change);
        if (auto waiter = watcher->push(Watcher::Item{shared, 0})) waiters.push_back(std::move(waiter));
      }
    }
  }
  for (auto& waiter : waiters) waiter(nullptr, true);
}

void WatchHub::progress() {
  std::vector<Completion<bool>> waiters;
  {
    std::lock_guard lock(mutex_);
    for (const auto& watcher : watchers_) {
      if (!watcher->progress_notify_) continue;
      if (auto waiter = watcher->push(Watcher::Item{nullptr, revision_})) waiters.push_back(std::move(waiter));
    }
  }
  for (auto& waiter : waiters) waiter(nullptr, true);
}

Revision WatchHub::revision() const {
  std::lock_guard lock(mutex_);
  return revision_;
}

void WatchHub::close() {
  std::vector<Completion<bool>> waiters;
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
    for (const auto& watcher : watchers_) {
      if (auto waiter = watcher->end()) waiters.push_back(std::move(waiter));
    }
    watchers_.clear();
  }
  for (auto& waiter : waiters) waiter(nullptr, true);
}

// ---------------------------------------------------------------------------------------------- stream

HubWatchStream::HubWatchStream(std::shared_ptr<WatchHub> hub, std::shared_ptr<Watcher> watcher,
                               Predicate predicate, Start start)
    : hub_(std::move(hub)), watcher_(std::move(watcher)), predicate_(std::move(predicate)), start_(std::move(start)) {}

HubWatchStream::~HubWatchStream() {
  watcher_->stop();
  hub_->remove(watcher_.get());
}

void HubWatchStream::stop() { watcher_->stop(); }

asio::awaitable<std::optional<WatchEvent>> HubWatchStream::next() {
  for (;;) {
    if (watcher_->stopped()) co_return std::nullopt;
    if (!start_.initial.empty()) {
      WatchEvent event = std::move(start_.initial.front());
      start_.initial.pop_front();
      co_return event;
    }
    if (start_.end_after_initial) {
      stop();
      co_return std::nullopt;
    }
    while (!start_.replay.empty()) {
      const Change change = std::move(start_.replay.front());
      start_.replay.pop_front();
      if (auto event = to_event(change)) co_return event;
    }
    std::optional<Watcher::Item> item = co_await watcher_->pop();
    if (!item) co_return std::nullopt;
    if (!item->change) {
      // Everything up to the snapshot was delivered from the replay, so progress is at least that far.
      WatchEvent bookmark;
      bookmark.type = WatchEventType::Bookmark;
      bookmark.revision = std::max(item->bookmark, start_.snapshot);
      bookmark.object.mod_revision = bookmark.revision;
      co_return bookmark;
    }
    if (item->change->kv.mod_revision <= start_.skip_through) continue;
    if (auto event = to_event(*item->change)) co_return event;
  }
}

std::optional<WatchEvent> HubWatchStream::to_event(const Change& change) const {
  auto matches = [this](const KeyValue& kv) { return !predicate_ || predicate_(kv); };
  WatchEvent event;
  event.revision = change.kv.mod_revision;
  if (change.deleted) {
    if (!matches(change.kv)) return std::nullopt;
    event.type = WatchEventType::Deleted;
    event.object = change.kv;
    if (change.prev) event.prev_object = *change.prev;
    return event;
  }
  // etcd's notion of a creation: the put that (re)created the key.
  if (change.kv.create_revision == change.kv.mod_revision) {
    if (!matches(change.kv)) return std::nullopt;
    event.type = WatchEventType::Added;
    event.object = change.kv;
    return event;
  }
  if (change.prev) event.prev_object = *change.prev;
  if (!predicate_) {
    event.type = WatchEventType::Modified;
    event.object = change.kv;
    return event;
  }
  const bool now_matches = matches(change.kv);
  const bool matched_before = change.prev && matches(*change.prev);
  if (now_matches) {
    event.type = matched_before ? WatchEventType::Modified : WatchEventType::Added;
    event.object = change.kv;
    return event;
  }
  if (!matched_before) return std::nullopt;
  // Left the selection: a Deleted carrying the old state at this event's revision, as kube's watcher sends.
  event.type = WatchEventType::Deleted;
  event.object = *change.prev;
  event.object.mod_revision = change.kv.mod_revision;
  return event;
}

}  // namespace kapi::storage::embedded
