#pragma once
// Awaiting a result that another thread produces: the coroutine hands a Completion to `start` and suspends;
// whoever calls the Completion (once, from any thread) resumes the coroutine on its own executor. The store uses
// it where offload() does not fit: a write waits for the group commit that carries it, a watch waits for events.
#include "storage/interface.h"

#include <asio/associated_executor.hpp>
#include <asio/async_result.hpp>
#include <asio/execution/outstanding_work.hpp>
#include <asio/post.hpp>
#include <asio/prefer.hpp>
#include <asio/use_awaitable.hpp>

#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

namespace kapi::storage::embedded {

// Call at most once. A Completion dropped without being called resumes its coroutine with StorageError
// (Unreachable), so a shutting-down store never strands a caller.
template <typename Result>
using Completion = std::function<void(std::exception_ptr, Result)>;

namespace detail {

template <typename Handler, typename Result>
class PendingHandler {
 public:
  explicit PendingHandler(Handler handler)
      : work_(asio::prefer(asio::get_associated_executor(handler), asio::execution::outstanding_work.tracked)),
        handler_(std::move(handler)) {}
  PendingHandler(const PendingHandler&) = delete;
  PendingHandler& operator=(const PendingHandler&) = delete;
  ~PendingHandler() {
    complete(std::make_exception_ptr(StorageError(ErrorCode::Unreachable, "", "storage is shutting down")), Result{});
  }

  void complete(std::exception_ptr error, Result result) {
    std::optional<Handler> handler;
    {
      std::lock_guard lock(mutex_);
      if (!handler_) return;
      handler.emplace(std::move(*handler_));  // Asio's handlers are move-constructible, not assignable
      handler_.reset();
    }
    asio::post(work_, [handler = std::move(*handler), error, result = std::move(result)]() mutable {
      std::move(handler)(error, std::move(result));
    });
  }

 private:
  using Work = std::decay_t<decltype(asio::prefer(std::declval<asio::associated_executor_t<Handler>>(),
                                                  asio::execution::outstanding_work.tracked))>;
  std::mutex mutex_;
  Work work_;
  std::optional<Handler> handler_;
};

}  // namespace detail

template <typename Result, typename Start>
asio::awaitable<Result> async_completion(Start start) {
  co_return co_await asio::async_initiate<const asio::use_awaitable_t<>&, void(std::exception_ptr, Result)>(
      [&start](auto handler) {
        using Handler = decltype(handler);
        auto pending = std::make_shared<detail::PendingHandler<Handler, Result>>(std::move(handler));
        start(Completion<Result>([pending](std::exception_ptr error, Result result) {
          pending->complete(error, std::move(result));
        }));
      },
      asio::use_awaitable);
}

}  // namespace kapi::storage::embedded
