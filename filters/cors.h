#pragma once
// WithCORS: for origins matching --cors-allowed-origins (regular expressions), the CORS response headers, and
// preflight OPTIONS requests answered here with 204. Other origins are served without CORS headers.
#include "filters/filter.h"

#include <regex>

namespace kapi::filters {

class CorsFilter final : public Filter {
 public:
  explicit CorsFilter(const std::vector<std::string>& allowed_origins) {
    for (const auto& pattern : allowed_origins) allowed_.emplace_back(pattern, std::regex::ECMAScript);
  }
  std::string_view name() const override { return "cors"; }

  asio::awaitable<void> handle(Exchange& exchange, Next next) override {
    auto origin = exchange.request.headers.get("Origin");
    if (origin && !origin->empty() && allowed(*origin)) {
      auto& headers = exchange.response->headers();
      headers.set("Access-Control-Allow-Origin", std::string(*origin));
      headers.set("Access-Control-Allow-Methods", "POST, GET, OPTIONS, PUT, DELETE, PATCH");
      headers.set("Access-Control-Allow-Headers",
                  "Content-Type, Content-Length, Accept-Encoding, X-CSRF-Token, Authorization, X-Requested-With, "
                  "If-Modified-Since");
      headers.set("Access-Control-Expose-Headers", "Date");
      headers.set("Access-Control-Allow-Credentials", "true");
      if (exchange.request.method == "OPTIONS") {
        co_await exchange.response->write(204, {});
        co_return;
      }
    }
    co_await next(exchange);
  }

 private:
  bool allowed(std::string_view origin) const {
    for (const auto& pattern : allowed_)
      if (std::regex_search(origin.begin(), origin.end(), pattern)) return true;
    return false;
  }
  std::vector<std::regex> allowed_;
};

}  // namespace kapi::filters
