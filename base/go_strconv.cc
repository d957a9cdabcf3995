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

}  // namespace kapi::base
