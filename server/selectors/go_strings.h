#pragma once
// The few pieces of Go's string semantics that show in kube's selector behaviour and error messages: decoding a
// string rune by rune as `for range` does (a bad byte is U+FFFD, one byte wide) and %q quoting (strconv.Quote).
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::selectors::go {

inline constexpr char32_t kRuneError = 0xFFFD;

struct Rune {
  char32_t value;
  std::size_t width;  // bytes consumed; 1 for an invalid byte
  bool valid;         // false when value is kRuneError standing in for a malformed byte
};

// Decodes the first rune of a non-empty text.
Rune decode_rune(std::string_view text);
void append_utf8(std::string& out, char32_t rune);
// strconv.Quote, as fmt's %q prints a string.
std::string quote(std::string_view text);
// fmt's %q of a []string: ["a" "b"], each item as quote() writes it.
std::string quote_list(const std::vector<std::string>& items);

}  // namespace kapi::selectors::go
