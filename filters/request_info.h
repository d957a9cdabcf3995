#pragma once
// WithRequestInfo: what the request is about in Kubernetes terms, and whether it is long-running.
#include "filters/filter.h"
#include "filters/long_running.h"
#include "server/http/status_response.h"

namespace kapi::filters {

class RequestInfoFilter final : public Filter {
 public:
  explicit RequestInfoFilter(LongRunningCheck long_running) : long_running_(std::move(long_running)) {}
  std::string_view name() const override { return "request-info"; }

  asio::awaitable<void> handle(Exchange& exchange, Next next) override {
    auto result = resolver_.resolve(exchange.request.method, exchange.request.path, exchange.request.query);
    if (result.error) {
      return http::write_status(*exchange.response,
                                apierrors::internal_error("failed to create RequestInfo: " + *result.error));
    }
    exchange.context.long_running = long_running_(result.info);
    exchange.context.request_info = std::move(result.info);
    return next(exchange);
  }

 private:
  request::RequestInfoResolver resolver_;
  LongRunningCheck long_running_;
};

}  // namespace kapi::filters
