#include "storage/cacher/cache_state.h"

#include <algorithm>
#include <mutex>

namespace kapi::storage::cacher {

CacheState::CacheState(const CacherOptions& options)
    : blocked_budget_(options.blocked_watcher_budget), cache_(options.indexers, options.history) {}

void CacheState::replace(std::vector<KeyValue> items, Revision revision) {
  std::unique_lock lock(mutex_);
  end_all_watchers_locked();
  cache_.replace(std::move(items), revision);
  ready_ = !closed_;
  after_progress_locked(Clock::now());
}

void CacheState::apply(WatchEvent change) {
  const Clock::time_point now = Clock::now();
  std::unique_lock lock(mutex_);
  if (EventRef event = cache_.apply(std::move(change), now)) {
    bool finished_seen = false;
    for (const auto& watcher : watchers_) {
      if (!watcher->offer(event, now, blocked_budget_)) finished_seen = true;
    }
    if (finished_seen) std::erase_if(watchers_, [](const auto& watcher) { return watcher->finished(); });
  }
  after_progress_locked(now);
}

void CacheState::progress(Revision revision) {
  std::unique_lock lock(mutex_);
  cache_.advance(revision);
  after_progress_locked(Clock::now());
}

void CacheState::after_progress_locked(Clock::time_point now) {
  const Revision revision = cache_.revision();
  if (ready_) {
    std::erase_if(waiters_, [revision](const auto& waiter) {
      if (waiter.first > revision) return false;
      waiter.second->try_send(std::error_code{}, true);
      return true;
    });
  }
  if (bookmarks_requested_at_ > 0 && revision >= bookmarks_requested_at_ && ready_) {
    bookmarks_requested_at_ = 0;
    for (const auto& watcher : watchers_) watcher->offer_bookmark(revision, now, true);
  }
}

void CacheState::set_unready() {
  std::unique_lock lock(mutex_);
  ready_ = false;
}

void CacheState::tick() {
  const Clock::time_point now = Clock::now();
  std::unique_lock lock(mutex_);
  for (const auto& watcher : watchers_) {
    watcher->enforce_budget(now, blocked_budget_);
    if (ready_) watcher->offer_bookmark(cache_.revision(), now, false);
  }
  std::erase_if(watchers_, [](const auto& watcher) { return watcher->finished(); });
}

void CacheState::close() {
  std::unique_lock lock(mutex_);
  closed_ = true;
  ready_ = false;
  end_all_watchers_locked();
  // Waiters wake and find the cache not fresh.
  for (const auto& waiter : waiters_) waiter.second->try_send(std::error_code{}, true);
  waiters_.clear();
}

void CacheState::end_all_watchers_locked() {
  for (const auto& watcher : watchers_) watcher->terminate();
  watchers_.clear();
}

void CacheState::request_bookmarks(Revision revision) {
  std::unique_lock lock(mutex_);
  bookmarks_requested_at_ = std::max(bookmarks_requested_at_, std::max<Revision>(revision, 1));
  after_progress_locked(Clock::now());
}

void CacheState::compact(Revision revision) {
  std::unique_lock lock(mutex_);
  cache_.compact(revision);
}

bool CacheState::ready() const {
  std::shared_lock lock(mutex_);
  return ready_;
}

Revision CacheState::revision() const {
  std::shared_lock lock(mutex_);
  return cache_.revision();
}

bool CacheState::fresh(Revision revision) const {
  std::shared_lock lock(mutex_);
  return ready_ && cache_.revision() >= revision;
}

bool CacheState::await_revision(Revision revision, std::shared_ptr<Doorbell> bell) {
  std::unique_lock lock(mutex_);
  if (ready_ && cache_.revision() >= revision) return false;
  if (closed_) return false;
  waiters_.emplace_back(revision, std::move(bell));
  return true;
}

void CacheState::forget_waiter(const std::shared_ptr<Doorbell>& bell) {
  std::unique_lock lock(mutex_);
  std::erase_if(waiters_, [&bell](const auto& waiter) { return waiter.second == bell; });
}

std::optional<CacheState::Snapshot> CacheState::read(const KeyScope& scope,
                                                     const std::optional<IndexQuery>& index) const {
  std::shared_lock lock(mutex_);
  if (!ready_) return std::nullopt;
  Snapshot snapshot;
  snapshot.revision = cache_.revision();
  if (!scope.recursive) {
    if (ObjectRef object = cache_.get(scope.key)) snapshot.items.push_back(std::move(object));
    return snapshot;
  }
  if (index) {
    if (auto indexed = cache_.list_indexed(index->index, index->value, scope.key)) {
      snapshot.items = std::move(*indexed);
      return snapshot;
    }
  }
  snapshot.items = cache_.list(scope.key);
  return snapshot;
}

std::shared_ptr<CacheWatcher> CacheState::add_watcher(asio::any_io_executor executor, CacheWatcher::Settings settings,
                                                      Start start, Revision after) {
  auto watcher = std::make_shared<CacheWatcher>(std::move(executor), std::move(settings));
  const KeyScope& scope = watcher->settings().scope;
  std::unique_lock lock(mutex_);
  if (!ready_) {
    // It went back to initialising since the caller waited for it: end at once; the client re-watches.
    watcher->terminate();
    return watcher;
  }
  if (start == Start::After) {
    const Revision floor = cache_.history().floor();
    if (after < floor) {
      watcher->start_with_error(StorageError(ErrorCode::Expired, scope.key,
                                             "too old resource version: " + std::to_string(after) + " (" +
                                                 std::to_string(floor) + ")",
                                             floor));
      return watcher;
    }
    watcher->start_after(after);
    watcher->catch_up(cache_.history(), Clock::now());
  } else {
    std::vector<ObjectRef> state;
    if (scope.recursive) {
      state = cache_.list(scope.key);
    } else if (ObjectRef object = cache_.get(scope.key)) {
      state.push_back(std::move(object));
    }
    watcher->start_with_state(std::move(state), cache_.revision(), start == Start::WithStateThenBookmark);
  }
  watchers_.push_back(watcher);
  return watcher;
}

void CacheState::catch_up(CacheWatcher& watcher) const {
  std::shared_lock lock(mutex_);
  watcher.catch_up(cache_.history(), Clock::now());
}

CacheState::Stats CacheState::stats() const {
  std::shared_lock lock(mutex_);
  Stats stats;
  stats.objects = cache_.size();
  stats.history_size = cache_.history().size();
  stats.history_capacity = cache_.history().capacity();
  stats.watchers = watchers_.size();
  stats.revision = cache_.revision();
  return stats;
}

}  // namespace kapi::storage::cacher
