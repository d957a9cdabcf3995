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

#include <stop_token>
#include <system_error>

namespace kapi::base {

class StopSignal {
 public:
  StopSignal() = default;
  // One signal per owner: a copied std::stop_source would share the state.
  StopSignal(const StopSignal&) = delete;
  StopSignal& operator=(const StopSignal&) = delete;

  bool requested() const noexcept { return source_.stop_requested(); }

  // Wakes every waiter and runs every callback of token(); later waits return at once.
  void request() { source_.request_stop(); }

  // For a std::stop_callback, which runs on the requesting thread: cheaper than a wait() raced against each step
  // where a loop waits on something that can be ended from any thread (a watch stream's stop()).
  std::stop_token token() const noexcept { return source_.get_token(); }

  // Returns once stop is requested, or when the caller's operation is cancelled (a race it lost).
  asio::awaitable<void> wait() const {
    // A channel is safe to send to from another thread than the one receiving; the callback is gone (and done)
    // before the channel is.
    Waiter waiter(co_await asio::this_coro::executor, 1);
    std::stop_callback waking(source_.get_token(), [&waiter] { waiter.try_send(std::error_code{}, true); });
    if (requested()) co_return;
    auto woken = waiter.async_receive(asio::experimental::as_tuple(asio::use_awaitable));
    co_await std::move(woken);
  }

 private:
  using Waiter = asio::experimental::concurrent_channel<void(std::error_code, bool)>;

  std::stop_source source_;
};

}  // namespace kapi::base
