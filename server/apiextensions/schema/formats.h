#pragma once
// The string formats a CRD schema may name, as kube-apiserver 1.32 treats them: a format it does not support is
// dropped (StripUnsupportedFormatsPostProcess), and a supported one is checked by kube-openapi's strfmt registry.
#include <string>
#include <string_view>

namespace kapi::apiextensions::schema {

// The format kube's validator keeps for a schema of this type ("" when it drops it): string formats from kube's
// list (date-time, uuid, byte, ...), int32/int64 for integers, float/double for numbers.
std::string effective_format(std::string_view type, std::string_view format, bool int_or_string);

// Whether strfmt's default registry knows the format (names compared without dashes, "date-time" = "datetime").
bool is_registered_string_format(std::string_view format);

// Whether `text` is valid for the registered format. Formats kapi does not check yet (uri, email, isbn*,
// creditcard, ssn, rgbcolor, duration, quantity) accept every string.
bool matches_string_format(std::string_view format, std::string_view text);

}  // namespace kapi::apiextensions::schema
