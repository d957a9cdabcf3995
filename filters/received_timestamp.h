#pragma once
// WithRequestReceivedTimestamp: when the request entered the server, for latency and deadlines.
#include "filters/filter.h"

namespace kapi::filters {

class ReceivedTimestampFilter final : public Filter {
 public:
  std::string_view name() const override { return "received-timestamp"; }
  asio::awaitable<void> handle(Exchange& exchange, Next next) override {
    exchange.context.received_at = std::chrono::system_clock::now();
    exchange.context.received_steady = std::chrono::steady_clock::now();
    return next(exchange);
  }
};

}  // namespace kapi::filters
