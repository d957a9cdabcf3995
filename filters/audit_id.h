#pragma once
// WithAuditInit: every request gets an Audit-ID — the client's, or a new UUID — echoed in the response.
#include "base/uuid.h"
#include "filters/filter.h"

#include <string>

namespace kapi::filters {

class AuditIdFilter final : public Filter {
 public:
  std::string_view name() const override { return "audit-id"; }
  asio::awaitable<void> handle(Exchange& exchange, Next next) override {
    auto given = exchange.request.headers.get("Audit-ID");
    exchange.context.audit_id = given && !given->empty() ? std::string(*given) : base::new_uuid();
    exchange.response->headers().set("Audit-ID", exchange.context.audit_id);
    return next(exchange);
  }
};

}  // namespace kapi::filters
