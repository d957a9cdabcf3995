#pragma once
// Suspends the calling coroutine for a while without holding a reactor thread (retry pauses, test delays).
#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>

#include <chrono>

namespace kapi::base {

inline asio::awaitable<void> sleep_for(std::chrono::steady_clock::duration duration) {
  asio::steady_timer timer(co_await asio::this_coro::executor);
  timer.expires_after(duration);
  co_await timer.async_wait(asio::use_awaitable);
}

}  // namespace kapi::base
