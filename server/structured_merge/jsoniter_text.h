#pragma once
// The JSON text smd's fieldpath writes, which is json-iterator's (ConfigCompatibleWithStandardLibrary), not
// encoding/json's: FieldsV1 member names and the names inside a "k:" element are written without HTML escaping and
// without UTF-8 repair, while values (the "v:" item, a key field's value) are written with both; map members are
// sorted; \b and \f are \u0008 and \u000c. Only fieldpath's serialization uses this.
#include <boost/json/value.hpp>

#include <string>
#include <string_view>

namespace kapi::structured_merge::detail {

// jsoniter's Stream.WriteString: only '"', '\\' and control bytes escaped; everything else byte for byte.
void append_jsoniter_name(std::string& out, std::string_view text);
// The same without the quotes, for a name written in parts.
void append_jsoniter_escaped(std::string& out, std::string_view text);

// jsoniter's WriteVal of the value json.Unmarshal would hold: strings HTML-escaped (<, >, &, U+2028, U+2029, and
// invalid UTF-8 as \ufffd), objects with members in byte order, floats as Go writes float64.
void append_jsoniter_value(std::string& out, const boost::json::value& value);

}  // namespace kapi::structured_merge::detail
