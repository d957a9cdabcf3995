// Go's number formatting as cel-go inherits it (fmt %g / %v, strconv.FormatFloat 'f' -1): shortest round-trip
// digits, exponent form when the decimal exponent is below -4 or at least 6 (Go's rule for shortest %g).
#include "cel/stdlib/format.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace kapi::cel {

std::string go_format_g(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buf[64];
  auto sci = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  std::string scientific(buf, sci.ptr);
  int exponent = std::atoi(scientific.c_str() + scientific.find('e') + 1);
  if (exponent < -4 || exponent >= 6) return scientific;
  return go_format_f_shortest(value);
}

std::string go_format_f_shortest(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buf[400];
  auto fixed = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::fixed);
  return std::string(buf, fixed.ptr);
}

std::string go_format_value(const Value& value) {
  if (const auto* s = value.get_if<std::string>()) return *s;
  if (const auto* i = value.get_if<std::int64_t>()) return std::to_string(*i);
  if (const auto* u = value.get_if<std::uint64_t>()) return std::to_string(*u);
  if (const auto* d = value.get_if<double>()) return go_format_g(*d);
  if (const auto* b = value.get_if<bool>()) return *b ? "true" : "false";
  if (value.is_null()) return "NULL_VALUE";
  if (const auto* bytes = value.get_if<Bytes>()) {
    std::string out = "[";
    for (std::size_t i = 0; i < bytes->data.size(); ++i) {
      if (i > 0) out += ' ';
      out += std::to_string(static_cast<unsigned char>(bytes->data[i]));
    }
    return out + "]";
  }
  if (const auto* e = value.get_if<Error>()) return e->message;
  return debug_string(value);
}

}  // namespace kapi::cel
