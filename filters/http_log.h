#pragma once
// WithHTTPLogging: one line per request at verbosity 3, like kube-apiserver's httplog, with the protocol (Go's
// Request.Proto) added, which kube's line does not name.
#include "base/log.h"
#include "filters/filter.h"

namespace kapi::filters {

class HttpLogFilter final : public Filter {
 public:
  explicit HttpLogFilter(base::Logger& logger) : logger_(logger) {}
  std::string_view name() const override { return "http-log"; }

  asio::awaitable<void> handle(Exchange& exchange, Next next) override {
    if (!logger_.enabled(3)) return next(exchange);
    return logged(exchange, next);
  }

 private:
  asio::awaitable<void> logged(Exchange& exchange, Next next) {
    struct Line {
      Exchange& exchange;
      base::Logger& logger;
      ~Line() {
        const auto& r = exchange.request;
        auto latency = std::chrono::steady_clock::now() - exchange.context.received_steady;
        std::string line = "\"HTTP\" verb=\"" + r.method + "\" URI=\"" + r.target + "\" latency=\"" +
                           std::to_string(std::chrono::duration<double, std::milli>(latency).count()) +
                           "ms\" userAgent=\"" + std::string(r.headers.get("User-Agent").value_or("")) +
                           "\" audit-ID=\"" + exchange.context.audit_id + "\" srcIP=\"" + r.remote_address +
                           "\" protocol=\"" + (r.http2 ? "HTTP/2.0" : r.version_minor == 0 ? "HTTP/1.0" : "HTTP/1.1") +
                           "\" resp=" + std::to_string(exchange.response->status());
        logger.info(line);
      }
    } line{exchange, logger_};
    co_await next(exchange);
    if (exchange.handed_off.valid()) {  // a watch's line is written when it ends
      auto rest = request::take_handed_off(exchange);
      co_await std::move(rest);
    }
  }

  base::Logger& logger_;
};

}  // namespace kapi::filters
