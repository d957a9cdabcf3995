#pragma once
// Go's strconv.FormatFloat with the shortest digits that round-trip, as Go programs print float64s: fmt's %v and
// %g, Prometheus' text format, error messages about decoded JSON numbers; and strconv's decimal integer parsing.
#include <cstdint>
#include <string>
#include <string_view>

namespace kapi::base {

// strconv.FormatFloat(value, 'g', -1, 64): the exponent form when the decimal exponent is below -4 or at least 6
// (1e+06, 1.234567e+06, 0.0001, 1e-05), NaN, +Inf and -Inf as Go spells them.
std::string go_format_float(double value);

// strconv.FormatFloat(value, 'f', -1, 64): never the exponent form (1000000, 0.00001).
std::string go_format_float_fixed(double value);

// What strconv.ParseInt / ParseUint give: the value, or the reason strconv's NumError states.
template <typename T>
struct GoParsed {
  T value = 0;
  std::string_view error;  // "invalid syntax" or "value out of range"; empty when `value` holds the number

  explicit operator bool() const { return error.empty(); }
};

// strconv.ParseInt(text, 10, 64), which is also strconv.Atoi on 64-bit Go: one optional sign, then decimal digits.
// Errors come in Go's order: the first bad digit or overflow of the digits, then the sign's range.
GoParsed<std::int64_t> go_parse_int(std::string_view text);
// strconv.ParseUint(text, 10, 64): decimal digits only, no sign.
GoParsed<std::uint64_t> go_parse_uint(std::string_view text);

}  // namespace kapi::base
