#pragma once
// WithAudit — a stage in its place, passing every request on: audit policy and backends are the security
// issue's work (--audit-policy-file, --audit-log-path). No audit events are written yet.
#include "filters/filter.h"

namespace kapi::filters {

class AuditFilter final : public Filter {
 public:
  std::string_view name() const override { return "audit"; }
  asio::awaitable<void> handle(Exchange& exchange, Next next) override { co_await next(exchange); }
};

}  // namespace kapi::filters
