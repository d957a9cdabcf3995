// The Cacher's background work on its strand: the reflector (kube's Reflector.ListAndWatch feeding the
// watchCache, with the dispatcher folded in: CacheState::apply fans each change out as it records it), the
// periodic duties (bookmarks, blocked watchers), and starting and stopping both.
#include "base/log.h"
#include "storage/cacher/cacher.h"

#include <asio/experimental/as_tuple.hpp>
#include <asio/co_spawn.hpp>
#include <asio/post.hpp>
#include <asio/use_awaitable.hpp>

#include <algorithm>

namespace kapi::storage::cacher {
namespace {

std::string with_trailing_slash(std::string prefix) {
  if (!prefix.ends_with('/')) prefix += '/';
  return prefix;
}

}  // namespace

Cacher::Cacher(Interface& backend, asio::any_io_executor executor, CacherOptions options)
    : backend_(backend),
      options_(std::move(options)),
      prefix_(with_trailing_slash(options_.resource_prefix)),
      state_(std::make_shared<CacheState>(options_)),
      strand_(asio::make_strand(std::move(executor))),
      retry_timer_(strand_),
      tick_timer_(strand_) {
  start(reflect());
  start(run_periodic_duties());
}

Cacher::~Cacher() {
  {
    // After shutdown() nothing runs any more, and the executor may be gone with its reactor stopped.
    std::lock_guard lock(tasks_mutex_);
    if (shut_down_ && tasks_running_ == 0) return;
  }
  request_stop();
  std::unique_lock lock(tasks_mutex_);
  tasks_done_.wait(lock, [this] { return tasks_running_ == 0; });
}

void Cacher::start(asio::awaitable<void> task) {
  {
    std::lock_guard lock(tasks_mutex_);
    ++tasks_running_;
  }
  asio::co_spawn(strand_, std::move(task), [this](std::exception_ptr) { finish_task(); });
}

void Cacher::finish_task() {
  std::vector<std::shared_ptr<Doorbell>> waiters;
  {
    std::lock_guard lock(tasks_mutex_);
    if (--tasks_running_ > 0) return;
    waiters = std::move(shutdown_waiters_);
    // Notified under the lock: the destructor may return, and destroy the condition variable, the moment it
    // sees zero. Nothing below touches `this`.
    tasks_done_.notify_all();
  }
  for (const auto& waiter : waiters) waiter->try_send(std::error_code{}, true);
}

void Cacher::request_stop() {
  state_->close();
  {
    std::lock_guard lock(tasks_mutex_);
    ++tasks_running_;  // the stop itself, so the destructor waits for it to have run
  }
  asio::post(strand_, [this] {
    stopping_ = true;
    retry_timer_.cancel();
    tick_timer_.cancel();
    if (backend_watch_) backend_watch_->stop();
    finish_task();
  });
}

asio::awaitable<void> Cacher::shutdown() {
  const asio::any_io_executor executor = co_await asio::this_coro::executor;
  auto done = std::make_shared<Doorbell>(executor, 1);
  {
    std::lock_guard lock(tasks_mutex_);
    if (tasks_running_ > 0) shutdown_waiters_.push_back(done);
    else done->try_send(std::error_code{}, true);
  }
  request_stop();
  co_await done->async_receive(asio::experimental::as_tuple(asio::use_awaitable));
  std::lock_guard lock(tasks_mutex_);
  shut_down_ = true;
}

asio::awaitable<void> Cacher::relist() {
  state_->set_unready();
  ListOptions options;
  options.limit = options_.list_page_size;
  ListResult page = co_await backend_.list(prefix_, options);
  const Revision revision = page.revision;
  std::vector<KeyValue> items = std::move(page.items);
  while (!page.continue_token.empty() && !stopping_) {
    // The token carries the first page's revision, so the pages form one consistent snapshot.
    options.continue_token = std::move(page.continue_token);
    page = co_await backend_.list(prefix_, options);
    std::move(page.items.begin(), page.items.end(), std::back_inserter(items));
  }
  if (stopping_) co_return;
  state_->replace(std::move(items), revision);
  if (options_.logger) {
    options_.logger->v(1, "cacher (" + prefix_ + "): initialized at revision " + std::to_string(revision));
  }
}

asio::awaitable<void> Cacher::reflect() {
  bool relist_needed = true;
  int failures = 0;
  while (!stopping_) {
    bool progressed = false;
    try {
      if (relist_needed) {
        co_await relist();
        relist_needed = false;
      }
      if (stopping_) break;
      WatchOptions options;
      options.resource_version = std::to_string(state_->revision());
      options.progress_notify = true;
      backend_watch_ = co_await backend_.watch(prefix_, options);
      while (!stopping_) {
        std::optional<WatchEvent> event = co_await backend_watch_->next();
        if (!event) break;  // the backend ended it: resume from where the cache is
        progressed = true;
        if (event->type == WatchEventType::Error) {
          if (event->error && event->error->code() == ErrorCode::Expired) {
            // The history after our revision is gone: start over from a list (every watcher waits meanwhile).
            if (options_.logger) {
              options_.logger->warning("cacher (" + prefix_ + "): the watch from revision " +
                                       std::to_string(state_->revision()) + " expired (" + event->error->what() +
                                       "); relisting");
            }
            relist_needed = true;
            break;
          }
          throw event->error ? *event->error : StorageError(ErrorCode::Internal, prefix_, "watch error");
        }
        if (event->type == WatchEventType::Bookmark) {
          state_->progress(event->revision);
        } else {
          state_->apply(std::move(*event));
        }
      }
    } catch (const ChangeBehindProgress& e) {
      // A backend's progress notification ran ahead of its events (the etcd-io/etcd#15220 class of bug). What was
      // served since may lack this change: start over from a list, ending every watcher so that its client
      // resumes against the new history or gets 410 Gone and relists, as after an expired watch.
      if (options_.logger) options_.logger->error("cacher (" + prefix_ + "): " + e.what() + "; relisting");
      relist_needed = true;
      progressed = true;  // relist at once
    } catch (const std::exception& e) {
      if (options_.logger && !stopping_) {
        options_.logger->warning("cacher (" + prefix_ + "): list/watch failed: " + e.what() + "; retrying");
      }
      progressed = false;
    }
    backend_watch_.reset();
    if (stopping_) break;
    failures = progressed ? 0 : failures + 1;
    if (failures > 0) {
      // Back off so a backend that keeps failing (or keeps closing the watch at once) is not hammered.
      auto delay = options_.retry_initial * (1 << std::min(failures - 1, 16));
      retry_timer_.expires_after(std::min<std::chrono::milliseconds>(delay, options_.retry_max));
      co_await retry_timer_.async_wait(asio::experimental::as_tuple(asio::use_awaitable));
    }
  }
  backend_watch_.reset();
}

asio::awaitable<void> Cacher::run_periodic_duties() {
  // Often enough for the shortest of the intervals it serves, at most once a second (kube's bookmark timer).
  const auto period = std::clamp<std::chrono::milliseconds>(
      std::min(options_.bookmark_interval, options_.blocked_watcher_budget) / 2, std::chrono::milliseconds(10),
      std::chrono::seconds(1));
  while (!stopping_) {
    tick_timer_.expires_after(period);
    co_await tick_timer_.async_wait(asio::experimental::as_tuple(asio::use_awaitable));
    if (stopping_) break;
    state_->tick();
  }
}

}  // namespace kapi::storage::cacher
