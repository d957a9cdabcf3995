#pragma once
// Suspends the calling coroutine for a while without holding a reactor thread (retry pauses, test delays).
#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>

#include <algorithm>
#include <chrono>

namespace kapi::base {

inline asio::awaitable<void> sleep_for(std::chrono::steady_clock::duration duration) {
  asio::steady_timer timer(co_await asio::this_coro::executor);
  timer.expires_after(duration);
  co_await timer.async_wait(asio::use_awaitable);
}

// Sleeps `duration` in steps of at most `step`, ending early once `stop()` holds: a loop's pause that still notices
// shutdown promptly. True when the whole duration passed.
template <typename Stop>
asio::awaitable<bool> sleep_unless(std::chrono::steady_clock::duration duration, Stop stop,
                                   std::chrono::steady_clock::duration step = std::chrono::seconds(1)) {
  for (auto left = duration; left.count() > 0; left -= step) {
    if (stop()) co_return false;
    auto sleeping = sleep_for(std::min(left, step));
    co_await std::move(sleeping);
  }
  co_return !stop();
}

}  // namespace kapi::base
