#pragma once
// WithHSTS: Strict-Transport-Security from --strict-transport-security-directives (off when empty).
#include "filters/filter.h"

namespace kapi::filters {

class HstsFilter final : public Filter {
 public:
  explicit HstsFilter(std::vector<std::string> directives) {
    for (const auto& directive : directives) value_ += (value_.empty() ? "" : "; ") + directive;
  }
  std::string_view name() const override { return "hsts"; }
  asio::awaitable<void> handle(Exchange& exchange, Next next) override {
    if (!value_.empty()) exchange.response->headers().set("Strict-Transport-Security", value_);
    return next(exchange);
  }

 private:
  std::string value_;
};

}  // namespace kapi::filters
