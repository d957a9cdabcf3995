#pragma once
// WithImpersonation — until the security issue brings the `impersonate` authorization checks, a request that
// asks to impersonate is refused rather than silently served as the caller.
#include "filters/filter.h"
#include "server/http/status_response.h"

namespace kapi::filters {

class ImpersonationFilter final : public Filter {
 public:
  std::string_view name() const override { return "impersonation"; }
  asio::awaitable<void> handle(Exchange& exchange, Next next) override {
    bool impersonating = false;
    for (const auto& field : exchange.request.headers)
      impersonating = impersonating || (field.name.size() >= 12 && http::iequals(std::string_view(field.name).substr(0, 12), "Impersonate-"));
    if (impersonating) {
      co_await http::write_status(*exchange.response,
                                  apierrors::Status{403, "Forbidden", "impersonation is not supported by this server yet",
                                                    std::nullopt});
      co_return;
    }
    co_await next(exchange);
  }
};

}  // namespace kapi::filters
