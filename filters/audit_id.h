#pragma once
// WithAuditInit: every request gets an Audit-ID — the client's, or a new UUID — echoed in the response.
#include "filters/filter.h"

#include <openssl/rand.h>

#include <array>
#include <cstdio>

namespace kapi::filters {

inline std::string new_uuid() {
  std::array<unsigned char, 16> bytes{};
  RAND_bytes(bytes.data(), static_cast<int>(bytes.size()));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;  // version 4
  bytes[8] = (bytes[8] & 0x3f) | 0x80;  // RFC 4122 variant
  std::array<char, 37> text{};
  std::snprintf(text.data(), text.size(), "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]);
  return std::string(text.data(), 36);
}

class AuditIdFilter final : public Filter {
 public:
  std::string_view name() const override { return "audit-id"; }
  asio::awaitable<void> handle(Exchange& exchange, Next next) override {
    auto given = exchange.request.headers.get("Audit-ID");
    exchange.context.audit_id = given && !given->empty() ? std::string(*given) : new_uuid();
    exchange.response->headers().set("Audit-ID", exchange.context.audit_id);
    co_await next(exchange);
  }
};

}  // namespace kapi::filters
