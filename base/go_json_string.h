#pragma once
// A JSON string literal exactly as Go's encoding/json writes it: HTML-safe escaping (<, >, & as \u003c...),
// U+2028 and U+2029 escaped, and each invalid UTF-8 byte as \ufffd. Audit events and continue tokens are such text.
#include <string>
#include <string_view>

namespace kapi::base {

void append_go_json_string(std::string& out, std::string_view text);

}  // namespace kapi::base
