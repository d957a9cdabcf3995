#pragma once
// Literal values from token text, as cel-go's parser reads them: strconv.ParseInt / ParseUint / ParseFloat for
// numbers and parser/unescape.go for quoted strings and bytes.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kapi::cel::parser {

// The text between the quotes with escapes resolved: code points are UTF-8 encoded in strings, while octal and
// \x escapes are raw bytes in bytes literals. `quoted` is the token text without a bytes prefix: r"...", '''...'''.
// On failure, the message cel-go reports.
struct Unescaped {
  std::optional<std::string> value;
  std::string error;
};
Unescaped unescape_literal(std::string_view quoted, bool is_bytes);

std::optional<std::int64_t> parse_int_literal(std::string_view sign, std::string_view digits);
std::optional<std::uint64_t> parse_uint_literal(std::string_view digits);  // without the u suffix
std::optional<double> parse_double_literal(std::string_view sign, std::string_view digits);

}  // namespace kapi::cel::parser
