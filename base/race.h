#pragma once
// Racing two coroutines: the first to finish — with a result or an exception — wins, the other is cancelled
// and awaited. (Asio 1.22's `||` waits for the first *success*, so a failing handler would wait out its timer.)
#include <asio/co_spawn.hpp>
#include <asio/experimental/deferred.hpp>
#include <asio/experimental/parallel_group.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>

#include <exception>

namespace kapi::base {

// Returns 0 when `first` finished first, 1 when `second` did; rethrows the winner's exception.
inline asio::awaitable<int> race(asio::awaitable<void> first, asio::awaitable<void> second) {
  auto executor = co_await asio::this_coro::executor;
  auto [order, error0, error1] =
      co_await asio::experimental::make_parallel_group(asio::co_spawn(executor, std::move(first), asio::experimental::deferred),
                                                       asio::co_spawn(executor, std::move(second), asio::experimental::deferred))
          .async_wait(asio::experimental::wait_for_one(), asio::use_awaitable);
  int winner = static_cast<int>(order[0]);
  if (std::exception_ptr error = winner == 0 ? error0 : error1) std::rethrow_exception(error);
  co_return winner;
}

}  // namespace kapi::base
