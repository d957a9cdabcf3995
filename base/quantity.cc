#include "base/quantity.h"

#include <cstdio>
#include <string>

namespace kapi {

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

// One reader for the server and CEL alike, so both accept, cap and print exactly what kube's ParseQuantity does.
std::optional<Quantity> parse_resource_quantity(std::string_view text) {
  auto parsed = parse_go_quantity(text);
  if (const auto* quantity = std::get_if<Quantity>(&parsed)) return *quantity;
  return std::nullopt;
}

std::optional<QuantityNanos> parse_quantity(std::string_view text) {
  if (const std::optional<Quantity> quantity = parse_resource_quantity(text)) return quantity->nanos;
  return std::nullopt;
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
