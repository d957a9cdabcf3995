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
  // Named, not temporaries of the co_await expression: g++ 12 destroys a temporary with a non-trivial destructor
  // in a co_await full-expression twice (a double free as soon as `work` captures a std::string).
  auto run = [work = std::move(work)]() mutable -> asio::awaitable<Result> { co_return work(); };
  auto task = asio::co_spawn(pool, std::move(run), asio::use_awaitable);
  co_return co_await std::move(task);
}

}  // namespace kapi::base
