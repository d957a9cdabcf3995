#pragma once
// WithPanicRecovery: an exception escaping a handler becomes a 500 Status and a log line; the connection and
// the process carry on. An ApiError is not a panic: it is answered with its own Status.
#include "base/log.h"
#include "filters/filter.h"
#include "server/http/status_response.h"
#include "server/metrics/registry.h"

namespace kapi::filters {

class PanicRecoveryFilter final : public Filter {
 public:
  PanicRecoveryFilter(base::Logger& logger, metrics::Registry& metrics) : logger_(logger), metrics_(metrics) {}
  std::string_view name() const override { return "panic-recovery"; }

  asio::awaitable<void> handle(Exchange& exchange, Next next) override {
    std::optional<apierrors::Status> answer;
    std::exception_ptr unanswerable;
    try {
      co_await next(exchange);
    } catch (const apierrors::ApiError& error) {
      answer = error.status();
    } catch (const std::system_error&) {
      throw;  // the connection failed (the client went away): nothing to answer, nothing to log
    } catch (const std::exception& error) {
      logger_.error("apiserver panic'd on " + exchange.request.method + " " + exchange.request.target + ": " +
                    error.what());
      answer = apierrors::Status{500, "InternalError",
                                 "This request caused apiserver to panic. Look in the logs for details.",
                                 std::nullopt};
      const auto& info = exchange.context.request_info;
      if (info)
        metrics_.panics.inc({info->api_group, info->resource, std::string(info->scope()), info->subresource,
                             info->verb, info->api_version});
    }
    if (!answer) co_return;
    if (exchange.response->committed()) {
      // Half a response is on the wire: the only honest end is to drop the connection.
      throw std::runtime_error("handler failed after its response started");
    }
    co_await http::write_status(*exchange.response, *answer);
  }

 private:
  base::Logger& logger_;
  metrics::Registry& metrics_;
};

}  // namespace kapi::filters
