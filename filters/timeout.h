#pragma once
// WithTimeoutForNonLongRunningRequests: when the deadline passes first, the handler is cancelled and the client
// gets 504 Timeout. A handler that already started its response cannot be answered twice: the connection is
// dropped instead, as kube-apiserver does.
#include "filters/filter.h"
#include "server/http/status_response.h"
#include "server/metrics/registry.h"

#include <asio/bind_cancellation_slot.hpp>
#include <asio/cancellation_signal.hpp>
#include <asio/co_spawn.hpp>
#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>

#include <exception>
#include <memory>

namespace kapi::filters {

class TimeoutFilter final : public Filter {
 public:
  explicit TimeoutFilter(metrics::Registry& metrics) : metrics_(metrics) {}
  std::string_view name() const override { return "timeout"; }

  asio::awaitable<void> handle(Exchange& exchange, Next next) override {
    if (exchange.context.long_running || !exchange.context.deadline) co_return co_await next(exchange);
    // The rest of the chain runs as a child coroutine that the deadline's timer cancels: one spawn per request,
    // where racing two coroutines would cost two and a parallel group.
    const auto executor = co_await asio::this_coro::executor;
    auto expiry = std::make_shared<Expiry>(executor);  // outlives this frame if the timer's handler is pending
    expiry->timer.expires_at(*exchange.context.deadline);
    expiry->timer.async_wait([expiry](std::error_code error) {
      if (error) return;
      expiry->expired = true;
      expiry->cancel.emit(asio::cancellation_type::terminal);
    });
    std::exception_ptr failure;
    try {
      auto handler = asio::co_spawn(executor, next(exchange),
                                    asio::bind_cancellation_slot(expiry->cancel.slot(), asio::use_awaitable));
      co_await std::move(handler);
    } catch (...) {
      failure = std::current_exception();
    }
    expiry->timer.cancel();
    if (!expiry->expired) {
      if (failure) std::rethrow_exception(failure);
      co_return;
    }
    if (exchange.response->committed()) throw std::runtime_error("request timed out after its response started");
    if (const auto& info = exchange.context.request_info)
      metrics_.request_terminations.inc({"504", "apiserver", info->api_group, info->resource,
                                         std::string(info->scope()), info->subresource, info->verb,
                                         info->api_version});
    co_await http::write_status(
        *exchange.response,
        apierrors::timeout("request did not complete within requested timeout - context deadline exceeded", 0));
  }

 private:
  struct Expiry {
    explicit Expiry(const asio::any_io_executor& executor) : timer(executor) {}
    asio::steady_timer timer;
    asio::cancellation_signal cancel;
    bool expired = false;  // set on the request's executor, read there after the handler ends
  };

  metrics::Registry& metrics_;
};

}  // namespace kapi::filters
