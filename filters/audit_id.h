#pragma once
// WithAuditInit: every request gets an Audit-ID — the client's, or a new UUID — echoed in the response.
#include "filters/filter.h"

#include <openssl/rand.h>

#include <array>
#include <string>
#include <string_view>

namespace kapi::filters {

inline std::string new_uuid() {
  std::array<unsigned char, 16> bytes{};
  RAND_bytes(bytes.data(), static_cast<int>(bytes.size()));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;  // version 4
  bytes[8] = (bytes[8] & 0x3f) | 0x80;  // RFC 4122 variant
  // Written by hand rather than with snprintf: this runs for every request, and printf's parsing showed up.
  constexpr std::string_view kHex = "0123456789abcdef";
  std::string text;
  text.reserve(36);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text += '-';
    text += kHex[bytes[i] >> 4];
    text += kHex[bytes[i] & 0x0f];
  }
  return text;
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
