#include "base/go_quote.h"

#include "base/utf8.h"

#include <array>
#include <cstdint>

namespace kapi::base {
namespace {

// Go's unicode.IsPrint without its tables: a valid non-ASCII rune prints as itself unless it is a control, a format
// character, a space other than U+0020, or private use. Unassigned code points print as themselves here (Go escapes
// them); nothing kube quotes in practice is affected.
bool is_print(char32_t r) {
  if (r < 0x80) return r >= 0x20 && r < 0x7F;
  if (r <= 0xA0 || r == 0xAD || r == 0x1680) return false;
  struct Range {
    char32_t lo, hi;
  };
  static constexpr std::array kNotPrintable{
      Range{0x0600, 0x0605}, Range{0x061C, 0x061C}, Range{0x06DD, 0x06DD}, Range{0x070F, 0x070F},
      Range{0x180E, 0x180E}, Range{0x2000, 0x200F}, Range{0x2028, 0x202F}, Range{0x205F, 0x206F},
      Range{0x3000, 0x3000}, Range{0xE000, 0xF8FF}, Range{0xFEFF, 0xFEFF}, Range{0xFFF9, 0xFFFB},
      Range{0xE0000, 0xE007F}, Range{0xF0000, 0x10FFFF}};
  for (const auto& range : kNotPrintable) {
    if (r >= range.lo && r <= range.hi) return false;
  }
  return true;
}

void append_hex(std::string& out, std::uint32_t value, int digits) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4) out += kHex[(value >> shift) & 0xF];
}

// strconv's appendEscapedRune: one valid rune between `quote` marks.
void append_escaped_rune(std::string& out, char32_t rune, char quote) {
  if (rune == static_cast<char32_t>(quote) || rune == '\\') {
    out += '\\';
    out += static_cast<char>(rune);
    return;
  }
  if (is_print(rune)) {
    append_utf8(out, rune);
    return;
  }
  switch (rune) {
    case '\a': out += "\\a"; break;
    case '\b': out += "\\b"; break;
    case '\f': out += "\\f"; break;
    case '\n': out += "\\n"; break;
    case '\r': out += "\\r"; break;
    case '\t': out += "\\t"; break;
    case '\v': out += "\\v"; break;
    default:
      if (rune < 0x20 || rune == 0x7F) {
        out += "\\x";
        append_hex(out, rune, 2);
      } else if (rune < 0x10000) {
        out += "\\u";
        append_hex(out, rune, 4);
      } else {
        out += "\\U";
        append_hex(out, rune, 8);
      }
  }
}

}  // namespace

bool go_is_print(char32_t rune) { return is_print(rune); }

std::string go_quote(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '"';
  while (!text.empty()) {
    const Rune rune = decode_rune(text);
    if (rune.valid) {
      append_escaped_rune(out, rune.value, '"');
    } else {
      out += "\\x";
      append_hex(out, static_cast<unsigned char>(text[0]), 2);
    }
    text.remove_prefix(rune.width);
  }
  out += '"';
  return out;
}

std::string go_quote_list(const std::vector<std::string>& items) {
  std::string text = "[";
  for (std::size_t i = 0; i < items.size(); ++i) text += (i ? " " : "") + go_quote(items[i]);
  return text + "]";
}

std::string go_string_slice(const std::vector<std::string>& items) {
  std::string text = "[]string{";
  for (std::size_t i = 0; i < items.size(); ++i) text += (i ? ", " : "") + go_quote(items[i]);
  return text + "}";
}

std::string go_quote_rune(char32_t rune) {
  if (rune > 0x10FFFF || (rune >= 0xD800 && rune <= 0xDFFF)) rune = kRuneError;
  std::string out = "'";
  append_escaped_rune(out, rune, '\'');
  return out + "'";
}

}  // namespace kapi::base
