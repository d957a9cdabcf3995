#pragma once
// Wakes one coroutine waiting on a strand, from that strand: what a connection's writer waits on until there is
// something to send, or a handler until its response was taken. A notify before the wait is kept, so none is lost.
// Not thread-safe: the waiter and whoever notifies share one strand.
#include <asio/any_io_executor.hpp>
#include <asio/awaitable.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>

#include <chrono>
#include <utility>

namespace kapi::base {

class WakeSignal {
 public:
  using Clock = std::chrono::steady_clock;

  explicit WakeSignal(const asio::any_io_executor& executor) : timer_(executor, Clock::time_point::max()) {}

  asio::awaitable<void> wait() {
    auto waiting = wait_until(Clock::time_point::max());
    co_await std::move(waiting);
  }
  // Whether a notify came before the deadline.
  asio::awaitable<bool> wait_until(Clock::time_point deadline) {
    if (!notified_) {
      timer_.expires_at(deadline);
      waiting_ = true;
      co_await timer_.async_wait(asio::experimental::as_tuple(asio::use_awaitable));
      waiting_ = false;
    }
    co_return std::exchange(notified_, false);
  }
  // Cancelling a timer takes the reactor's lock, which every connection shares: only when someone waits.
  void notify() {
    notified_ = true;
    if (waiting_) timer_.cancel();
  }

 private:
  asio::steady_timer timer_;
  bool notified_ = false;
  bool waiting_ = false;
};

}  // namespace kapi::base
