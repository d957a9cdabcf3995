#pragma once
// A JSON string literal exactly as Go's encoding/json writes it: HTML-safe escaping (<, >, & as \u003c...),
// U+2028 and U+2029 escaped, and each invalid UTF-8 byte as \ufffd. Audit events and continue tokens are such text.
#include <boost/json/fwd.hpp>

#include <string>
#include <string_view>

namespace kapi::base {

void append_go_json_string(std::string& out, std::string_view text);
// A float64 as encoding/json writes it: 'f' with the shortest digits below 1e21 and from 1e-6, else 'e' with Go's
// "e-7" exponents; NaN and infinities (which Go refuses to encode) as null.
void append_go_json_float(std::string& out, double value);
// A JSON value as Go's encoding/json writes it: compact, members in the value's order, strings as above, floats in
// Go's shortest form ('f' below 1e21 and from 1e-6, else 'e' with "e-7" exponents). Audit events and the
// last-applied annotation kube writes are such text.
void append_go_json(std::string& out, const boost::json::value& value);

}  // namespace kapi::base
