#include "base/duration.h"

#include <cstdint>

namespace kapi::base {
namespace {

// Go's unitMap, in nanoseconds.
std::optional<std::uint64_t> duration_unit(std::string_view unit) {
  if (unit == "ns") return 1;
  if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") return 1'000;
  if (unit == "ms") return 1'000'000;
  if (unit == "s") return 1'000'000'000;
  if (unit == "m") return 60'000'000'000;
  if (unit == "h") return 3'600'000'000'000;
  return std::nullopt;
}

// fmtFrac: the fraction v/10^precision as ".123" without trailing zeros (nothing when it is zero), prepended to out.
std::uint64_t prepend_fraction(std::string& out, std::uint64_t value, int precision) {
  bool print = false;
  std::string fraction;
  for (int i = 0; i < precision; ++i) {
    const auto digit = static_cast<char>('0' + value % 10);
    print = print || digit != '0';
    if (print) fraction.insert(fraction.begin(), digit);
    value /= 10;
  }
  if (print) out.insert(0, "." + fraction);
  return value;
}

}  // namespace

std::optional<std::chrono::nanoseconds> parse_go_duration(std::string_view text) {
  constexpr std::uint64_t kLimit = std::uint64_t{1} << 63;
  bool negative = false;
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  if (text == "0") return std::chrono::nanoseconds(0);
  if (text.empty()) return std::nullopt;
  std::uint64_t total = 0;
  const auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  while (!text.empty()) {
    if (text.front() != '.' && !is_digit(text.front())) return std::nullopt;
    std::uint64_t whole = 0;
    std::size_t i = 0;
    for (; i < text.size() && is_digit(text[i]); ++i) {
      if (whole > (kLimit - 1) / 10) return std::nullopt;
      whole = whole * 10 + static_cast<std::uint64_t>(text[i] - '0');
      if (whole > kLimit) return std::nullopt;
    }
    const bool before_point = i > 0;
    std::uint64_t fraction = 0;
    double scale = 1;
    bool after_point = false;
    if (i < text.size() && text[i] == '.') {
      bool overflow = false;
      for (++i; i < text.size() && is_digit(text[i]); ++i) {
        after_point = true;
        if (overflow || fraction > (kLimit - 1) / 10) {
          overflow = true;
          continue;
        }
        fraction = fraction * 10 + static_cast<std::uint64_t>(text[i] - '0');
        scale *= 10;
      }
    }
    if (!before_point && !after_point) return std::nullopt;
    std::size_t unit_end = i;
    while (unit_end < text.size() && text[unit_end] != '.' && !is_digit(text[unit_end])) ++unit_end;
    auto unit = duration_unit(text.substr(i, unit_end - i));
    if (!unit) return std::nullopt;
    if (whole > kLimit / *unit) return std::nullopt;
    whole *= *unit;
    if (fraction > 0) {
      whole += static_cast<std::uint64_t>(static_cast<double>(fraction) * (static_cast<double>(*unit) / scale));
      if (whole > kLimit) return std::nullopt;
    }
    total += whole;
    if (total > kLimit) return std::nullopt;
    text.remove_prefix(unit_end);
  }
  if (negative) return std::chrono::nanoseconds(static_cast<std::int64_t>(0 - total));
  if (total > kLimit - 1) return std::nullopt;
  return std::chrono::nanoseconds(static_cast<std::int64_t>(total));
}

std::string format_go_duration(std::chrono::nanoseconds duration) {
  const std::int64_t nanoseconds = duration.count();
  const bool negative = nanoseconds < 0;
  std::uint64_t value = negative ? 0 - static_cast<std::uint64_t>(nanoseconds) : static_cast<std::uint64_t>(nanoseconds);
  std::string out;
  if (value < 1'000'000'000) {
    if (value == 0) return "0s";
    const char* unit = value < 1'000 ? "ns" : value < 1'000'000 ? "\xC2\xB5s" : "ms";
    const int precision = value < 1'000 ? 0 : value < 1'000'000 ? 3 : 6;
    out = unit;
    value = prepend_fraction(out, value, precision);
    out.insert(0, std::to_string(value));
  } else {
    out = "s";
    value = prepend_fraction(out, value, 9);
    out.insert(0, std::to_string(value % 60));
    value /= 60;
    if (value > 0) {
      out.insert(0, std::to_string(value % 60) + "m");
      value /= 60;
      if (value > 0) out.insert(0, std::to_string(value) + "h");
    }
  }
  if (negative) out.insert(0, "-");
  return out;
}

}  // namespace kapi::base
