#pragma once
// A stop request that coroutines can wait for (what a Go context's Done channel is to a controller): the
// controller manager ends one term of leadership with it, and a controller idling in a watch must wake up then, not
// at its next event. Safe to request and wait from any reactor thread.
#include <asio/any_io_executor.hpp>
#include <asio/awaitable.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/experimental/concurrent_channel.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <stop_token>
#include <system_error>
#include <vector>

namespace kapi::base {

class StopSignal {
 public:
  bool requested() const noexcept { return requested_.load(); }

  // Wakes every waiter and runs every callback of token(); later waits return at once.
  void request() {
    std::vector<std::shared_ptr<Waiter>> waiters;
    {
      std::lock_guard lock(mutex_);
      if (requested_.exchange(true)) return;
      waiters.swap(waiters_);
    }
    for (const auto& waiter : waiters) waiter->try_send(std::error_code{}, true);
    source_.request_stop();
  }

  // For a std::stop_callback, which runs on the requesting thread: cheaper than a wait() raced against each step
  // where a loop waits on something that can be ended from any thread (a watch stream's stop()).
  std::stop_token token() const noexcept { return source_.get_token(); }

  // Returns once stop is requested, or when the caller's operation is cancelled (a race it lost).
  asio::awaitable<void> wait() const {
    auto waiter = std::make_shared<Waiter>(co_await asio::this_coro::executor, 1);
    {
      std::lock_guard lock(mutex_);
      if (requested_.load()) co_return;
      waiters_.push_back(waiter);
    }
    auto woken = waiter->async_receive(asio::experimental::as_tuple(asio::use_awaitable));
    co_await std::move(woken);
    std::lock_guard lock(mutex_);
    std::erase(waiters_, waiter);
  }

 private:
  // One per wait: a channel is safe to send to from another thread than the one receiving.
  using Waiter = asio::experimental::concurrent_channel<void(std::error_code, bool)>;

  mutable std::mutex mutex_;
  std::atomic<bool> requested_{false};
  mutable std::vector<std::shared_ptr<Waiter>> waiters_;
  std::stop_source source_;
};

}  // namespace kapi::base
