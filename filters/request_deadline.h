#pragma once
// WithRequestDeadline: a non-long-running request must finish within ?timeout= (a Go duration), capped by
// --request-timeout, which is also the default.
#include "base/duration.h"
#include "filters/filter.h"
#include "server/http/status_response.h"

namespace kapi::filters {

class RequestDeadlineFilter final : public Filter {
 public:
  explicit RequestDeadlineFilter(std::chrono::nanoseconds request_timeout) : request_timeout_(request_timeout) {}
  std::string_view name() const override { return "request-deadline"; }

  asio::awaitable<void> handle(Exchange& exchange, Next next) override {
    if (exchange.context.long_running) return next(exchange);
    std::chrono::nanoseconds timeout = request_timeout_;
    if (auto given = exchange.request.query.get("timeout"); given && !given->empty()) {
      auto parsed = base::parse_go_duration(*given);
      if (!parsed) {
        return http::write_status(*exchange.response,
                                  apierrors::bad_request("invalid timeout specified in the request URL"));
      }
      if (*parsed > std::chrono::nanoseconds::zero() && *parsed < request_timeout_) timeout = *parsed;
    }
    auto start = exchange.context.received_steady.time_since_epoch().count() ? exchange.context.received_steady
                                                                              : std::chrono::steady_clock::now();
    exchange.context.deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(timeout);
    return next(exchange);
  }

 private:
  std::chrono::nanoseconds request_timeout_;
};

}  // namespace kapi::filters
