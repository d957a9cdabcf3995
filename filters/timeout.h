#pragma once
// WithTimeoutForNonLongRunningRequests: when the deadline passes first, the handler is cancelled and the client
// gets 504 Timeout. A handler that already started its response cannot be answered twice: the connection is
// dropped instead, as kube-apiserver does.
#include "base/race.h"
#include "filters/filter.h"
#include "server/http/status_response.h"
#include "server/metrics/registry.h"

#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>

namespace kapi::filters {

class TimeoutFilter final : public Filter {
 public:
  explicit TimeoutFilter(metrics::Registry& metrics) : metrics_(metrics) {}
  std::string_view name() const override { return "timeout"; }

  asio::awaitable<void> handle(Exchange& exchange, Next next) override {
    if (exchange.context.long_running || !exchange.context.deadline) co_return co_await next(exchange);
    asio::steady_timer timer(co_await asio::this_coro::executor);
    timer.expires_at(*exchange.context.deadline);
    if (co_await base::race(next(exchange), timer.async_wait(asio::use_awaitable)) == 0) co_return;
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
  metrics::Registry& metrics_;
};

}  // namespace kapi::filters
