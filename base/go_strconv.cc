#include "base/go_strconv.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace kapi::base {

std::string go_format_float(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  // std::to_chars writes the shortest round-trip digits with Go's exponent spelling (e+06).
  char buf[64];
  const auto scientific = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  const std::string text(buf, scientific.ptr);
  const int exponent = std::atoi(text.c_str() + text.find('e') + 1);
  if (exponent < -4 || exponent >= 6) return text;
  return go_format_float_fixed(value);
}

std::string go_format_float_fixed(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buf[400];  // the largest double has 309 digits
  const auto fixed = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::fixed);
  return std::string(buf, fixed.ptr);
}

GoParsed<std::uint64_t> go_parse_uint(std::string_view text) {
  constexpr std::string_view kSyntax = "invalid syntax", kRange = "value out of range";
  if (text.empty()) return {0, kSyntax};
  std::uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return {0, kSyntax};
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (value > (UINT64_MAX - digit) / 10) return {0, kRange};
    value = value * 10 + digit;
  }
  return {value, {}};
}

GoParsed<std::int64_t> go_parse_int(std::string_view text) {
  bool negative = false;
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  const GoParsed<std::uint64_t> magnitude = go_parse_uint(text);
  if (!magnitude) return {0, magnitude.error};
  const std::uint64_t limit = (std::uint64_t{1} << 63) - (negative ? 0 : 1);
  if (magnitude.value > limit) return {0, "value out of range"};
  return {static_cast<std::int64_t>(negative ? 0 - magnitude.value : magnitude.value), {}};
}

}  // namespace kapi::base
