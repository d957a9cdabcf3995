#pragma once
// UTF-8 as Go's unicode/utf8 reads and writes it. Go never refuses a malformed string: each bad byte decodes as
// U+FFFD one byte wide, which is what `for range`, encoding/json and strconv.Quote all build on, so kube's
// messages and objects depend on exactly where a sequence stops being valid.
#include <cstddef>
#include <string>
#include <string_view>

namespace kapi::base {

inline constexpr char32_t kRuneError = 0xFFFD;

struct Rune {
  char32_t value;
  std::size_t width;  // bytes consumed; 1 for an invalid byte
  bool valid;         // false when value is kRuneError standing in for a malformed byte
};

// utf8.DecodeRuneInString on a non-empty text: no overlong forms, no surrogates, nothing above U+10FFFF.
Rune decode_rune(std::string_view text);

// utf8.AppendRune: a rune that is not a Unicode scalar value is written as U+FFFD.
void append_utf8(std::string& out, char32_t rune);

// The text with every invalid byte replaced by U+FFFD, as encoding/json and strings.ToValidUTF8-per-byte do.
std::string valid_utf8(std::string_view text);

}  // namespace kapi::base
