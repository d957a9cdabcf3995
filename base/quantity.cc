#include "base/quantity.h"

#include <cctype>
#include <cstdio>
#include <string>
#include <utility>

namespace kapi {

namespace {

// Far beyond any real quantity (kube's own bound is 2^63-1 units); keeps every product below overflow.
constexpr QuantityNanos kLimit = static_cast<QuantityNanos>(1) << 120;

// The suffix's power of ten and power of two: "Ki" → (0, 10), "m" → (-3, 0), "e3" → (3, 0).
std::optional<std::pair<int, int>> suffix_exponents(std::string_view suffix) {
  if (suffix.empty()) return std::pair{0, 0};
  static const std::pair<std::string_view, std::pair<int, int>> kSuffixes[] = {
      {"Ki", {0, 10}}, {"Mi", {0, 20}}, {"Gi", {0, 30}}, {"Ti", {0, 40}}, {"Pi", {0, 50}}, {"Ei", {0, 60}},
      {"n", {-9, 0}},  {"u", {-6, 0}},  {"m", {-3, 0}},  {"k", {3, 0}},   {"M", {6, 0}},   {"G", {9, 0}},
      {"T", {12, 0}},  {"P", {15, 0}},  {"E", {18, 0}}};
  for (const auto& [name, exponents] : kSuffixes)
    if (suffix == name) return exponents;
  if (suffix[0] != 'e' && suffix[0] != 'E') return std::nullopt;
  std::string_view digits = suffix.substr(1);
  bool negative = false;
  if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
    negative = digits[0] == '-';
    digits.remove_prefix(1);
  }
  if (digits.empty() || digits.size() > 3) return std::nullopt;
  int exponent = 0;
  for (char c : digits) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    exponent = exponent * 10 + (c - '0');
  }
  return std::pair{negative ? -exponent : exponent, 0};
}

}  // namespace

std::optional<QuantityNanos> parse_quantity(std::string_view text) {
  bool negative = false;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  std::size_t end = 0;
  std::string digits;
  int fraction_digits = 0;
  bool seen_point = false;
  for (; end < text.size(); ++end) {
    const char c = text[end];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      digits += c;
      if (seen_point) ++fraction_digits;
    } else if (c == '.' && !seen_point) {
      seen_point = true;
    } else {
      break;
    }
  }
  if (digits.empty()) return std::nullopt;
  auto exponents = suffix_exponents(text.substr(end));
  if (!exponents) return std::nullopt;
  const int power_of_ten = exponents->first - fraction_digits + 9;
  const int power_of_two = exponents->second;

  // Leading zeros carry nothing; a long mantissa would overflow before the exponents shrink it.
  const auto first = digits.find_first_not_of('0');
  if (first == std::string::npos) return QuantityNanos{0};
  digits.erase(0, first);
  if (digits.size() > 30) return std::nullopt;
  QuantityNanos value = 0;
  for (char c : digits) value = value * 10 + (c - '0');
  for (int i = 0; i < power_of_two; ++i) {
    value *= 2;
    if (value > kLimit) return std::nullopt;
  }
  if (power_of_ten >= 0) {
    for (int i = 0; i < power_of_ten; ++i) {
      value *= 10;
      if (value > kLimit) return std::nullopt;
    }
  } else {
    QuantityNanos divisor = 1;
    for (int i = 0; i < -power_of_ten && divisor <= kLimit; ++i) divisor *= 10;
    value = (value + divisor - 1) / divisor;
  }
  return negative ? -value : value;
}

namespace {

// Divides by `divisor` rounding a remainder away from zero (kube's negativeScaleInt64).
std::int64_t scaled(QuantityNanos nanos, QuantityNanos divisor) {
  QuantityNanos quotient = nanos / divisor;
  if (nanos % divisor != 0) quotient += nanos > 0 ? 1 : -1;
  if (quotient > INT64_MAX) return INT64_MAX;
  if (quotient < INT64_MIN) return INT64_MIN;
  return static_cast<std::int64_t>(quotient);
}

std::string int128_to_string(QuantityNanos value) {
  if (value == 0) return "0";
  const bool negative = value < 0;
  unsigned __int128 magnitude = negative ? -static_cast<unsigned __int128>(value) : static_cast<unsigned __int128>(value);
  std::string digits;
  while (magnitude > 0) {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(magnitude % 10)));
    magnitude /= 10;
  }
  return negative ? "-" + digits : digits;
}

std::string decimal_suffix(int exponent, QuantityFormat format) {
  if (exponent == 0) return "";
  if (format == QuantityFormat::DecimalSI) {
    switch (exponent) {
      case -9: return "n";
      case -6: return "u";
      case -3: return "m";
      case 3: return "k";
      case 6: return "M";
      case 9: return "G";
      case 12: return "T";
      case 15: return "P";
      case 18: return "E";
      default: break;
    }
  }
  return "e" + std::to_string(exponent);
}

// AsCanonicalBytes: the mantissa without trailing zeros, the exponent moved to a multiple of three.
std::string canonical_decimal(QuantityNanos nanos, QuantityFormat format) {
  QuantityNanos mantissa = nanos;
  int exponent = -9;
  while (mantissa % 10 == 0) {
    mantissa /= 10;
    ++exponent;
  }
  switch (exponent % 3) {
    case 1: case -2: mantissa *= 10; exponent -= 1; break;
    case 2: case -1: mantissa *= 100; exponent -= 2; break;
    default: break;
  }
  return int128_to_string(mantissa) + decimal_suffix(exponent, format);
}

}  // namespace

std::int64_t Quantity::value() const { return scaled(nanos, kNanosPerUnit); }
std::int64_t Quantity::milli_value() const { return scaled(nanos, 1'000'000); }

std::string Quantity::to_string() const {
  if (nanos == 0) return "0";
  if (format == QuantityFormat::BinarySI) {
    // Small or fractional binary quantities are written in decimal, as kube does to avoid rounding them.
    const bool small = nanos > -1024 * kNanosPerUnit && nanos < 1024 * kNanosPerUnit;
    if (small || nanos % kNanosPerUnit != 0) return canonical_decimal(nanos, QuantityFormat::DecimalSI);
    QuantityNanos units = nanos / kNanosPerUnit;
    int power = 0;
    while (power < 6 && units % 1024 == 0) {
      units /= 1024;
      ++power;
    }
    static constexpr const char* kBinarySuffixes[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    return int128_to_string(units) + kBinarySuffixes[power];
  }
  return canonical_decimal(nanos, format);
}

std::optional<Quantity> parse_resource_quantity(std::string_view text) {
  const std::optional<QuantityNanos> nanos = parse_quantity(text);
  if (!nanos) return std::nullopt;
  const std::size_t suffix_start = text.find_first_not_of("+-0123456789.");
  const std::string_view suffix = suffix_start == std::string_view::npos ? "" : text.substr(suffix_start);
  QuantityFormat format = QuantityFormat::DecimalSI;
  if (!suffix.empty() && suffix.back() == 'i') format = QuantityFormat::BinarySI;
  else if (suffix.size() > 1 && (suffix[0] == 'e' || suffix[0] == 'E')) format = QuantityFormat::DecimalExponent;
  return Quantity{*nanos, format};
}

std::optional<Quantity> quantity_of(const boost::json::value& value) {
  if (value.is_string()) return parse_resource_quantity(value.as_string());
  if (value.is_int64()) return parse_resource_quantity(std::to_string(value.as_int64()));
  if (value.is_uint64()) return parse_resource_quantity(std::to_string(value.as_uint64()));
  if (value.is_double()) {
    char text[64];
    std::snprintf(text, sizeof text, "%.9f", value.as_double());
    return parse_resource_quantity(text);
  }
  return std::nullopt;
}

}  // namespace kapi
