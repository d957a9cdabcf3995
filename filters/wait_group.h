#pragma once
// WithWaitGroup: counts the non-long-running requests in flight so shutdown can wait for them, and refuses
// new ones once the server stops accepting requests (503 "apiserver is shutting down", Retry-After).
#include "filters/filter.h"
#include "server/http/status_response.h"
#include "server/lifecycle.h"

namespace kapi::filters {

class WaitGroupFilter final : public Filter {
 public:
  explicit WaitGroupFilter(server::Lifecycle& lifecycle) : lifecycle_(lifecycle) {}
  std::string_view name() const override { return "wait-group"; }

  asio::awaitable<void> handle(Exchange& exchange, Next next) override {
    if (exchange.context.long_running) co_return co_await next(exchange);
    if (!lifecycle_.try_begin_request()) {
      exchange.response->headers().set("Retry-After", "1");
      co_await http::write_status(*exchange.response, apierrors::service_unavailable("apiserver is shutting down"));
      co_return;
    }
    struct Done {
      server::Lifecycle& lifecycle;
      ~Done() { lifecycle.end_request(); }
    } done{lifecycle_};
    co_await next(exchange);
  }

 private:
  server::Lifecycle& lifecycle_;
};

}  // namespace kapi::filters
