#pragma once
// Go's strconv.FormatFloat with the shortest digits that round-trip, as Go programs print float64s: fmt's %v and
// %g, Prometheus' text format, error messages about decoded JSON numbers.
#include <string>

namespace kapi::base {

// strconv.FormatFloat(value, 'g', -1, 64): the exponent form when the decimal exponent is below -4 or at least 6
// (1e+06, 1.234567e+06, 0.0001, 1e-05), NaN, +Inf and -Inf as Go spells them.
std::string go_format_float(double value);

// strconv.FormatFloat(value, 'f', -1, 64): never the exponent form (1000000, 0.00001).
std::string go_format_float_fixed(double value);

}  // namespace kapi::base
