#pragma once
// WithCacheControl: API responses are private and not to be cached unless a handler says otherwise
// (OpenAPI documents under a content hash do).
#include "filters/filter.h"

namespace kapi::filters {

class CacheControlFilter final : public Filter {
 public:
  std::string_view name() const override { return "cache-control"; }
  asio::awaitable<void> handle(Exchange& exchange, Next next) override {
    auto& headers = exchange.response->headers();
    if (!headers.has("Cache-Control")) headers.set("Cache-Control", "no-cache, private");
    return next(exchange);
  }
};

}  // namespace kapi::filters
