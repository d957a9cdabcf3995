#pragma once
// Running blocking or CPU-heavy work off the reactor: the caller's coroutine suspends, the work runs on a pool
// thread, and the coroutine resumes on its own executor with the result (or the exception the work threw).
#include <asio/co_spawn.hpp>
#include <asio/thread_pool.hpp>
#include <asio/use_awaitable.hpp>

#include <type_traits>
#include <utility>

namespace kapi::base {

template <typename Work>
auto offload(asio::thread_pool::executor_type pool, Work work)
    -> asio::awaitable<std::invoke_result_t<Work&>> {
  using Result = std::invoke_result_t<Work&>;
  co_return co_await asio::co_spawn(
      pool, [work = std::move(work)]() mutable -> asio::awaitable<Result> { co_return work(); },
      asio::use_awaitable);
}

}  // namespace kapi::base
