#include "server/selectors/go_strings.h"

#include <array>
#include <cstdint>

namespace kapi::selectors::go {
namespace {

// Go's unicode.IsPrint without its tables: a valid non-ASCII rune prints as itself unless it is a control, a format
// character, a space other than U+0020, or private use. Unassigned code points print as themselves here (Go escapes
// them); nothing a valid label key or value can contain is affected.
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

}  // namespace

Rune decode_rune(std::string_view text) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const Rune invalid{kRuneError, 1, false};
  const unsigned char lead = byte(0);
  if (lead < 0x80) return {lead, 1, true};
  std::size_t width;
  char32_t value;
  char32_t min;
  if (lead >= 0xC2 && lead <= 0xDF) {
    width = 2, value = lead & 0x1F, min = 0x80;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    width = 3, value = lead & 0x0F, min = 0x800;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    width = 4, value = lead & 0x07, min = 0x10000;
  } else {
    return invalid;
  }
  if (text.size() < width) return invalid;
  for (std::size_t i = 1; i < width; ++i) {
    if ((byte(i) & 0xC0) != 0x80) return invalid;
    value = (value << 6) | (byte(i) & 0x3F);
  }
  if (value < min || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) return invalid;
  return {value, width, true};
}

void append_utf8(std::string& out, char32_t r) {
  if (r < 0x80) {
    out += static_cast<char>(r);
  } else if (r < 0x800) {
    out += static_cast<char>(0xC0 | (r >> 6));
    out += static_cast<char>(0x80 | (r & 0x3F));
  } else if (r < 0x10000) {
    out += static_cast<char>(0xE0 | (r >> 12));
    out += static_cast<char>(0x80 | ((r >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (r & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (r >> 18));
    out += static_cast<char>(0x80 | ((r >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((r >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (r & 0x3F));
  }
}

std::string quote(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '"';
  while (!text.empty()) {
    const Rune rune = decode_rune(text);
    if (!rune.valid) {
      out += "\\x";
      append_hex(out, static_cast<unsigned char>(text[0]), 2);
    } else if (rune.value == '"' || rune.value == '\\') {
      out += '\\';
      out += static_cast<char>(rune.value);
    } else if (is_print(rune.value)) {
      out.append(text.substr(0, rune.width));
    } else {
      switch (rune.value) {
        case '\a': out += "\\a"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\v': out += "\\v"; break;
        default:
          if (rune.value < 0x20 || rune.value == 0x7F) {
            out += "\\x";
            append_hex(out, rune.value, 2);
          } else if (rune.value < 0x10000) {
            out += "\\u";
            append_hex(out, rune.value, 4);
          } else {
            out += "\\U";
            append_hex(out, rune.value, 8);
          }
      }
    }
    text.remove_prefix(rune.width);
  }
  out += '"';
  return out;
}

std::string quote_list(const std::vector<std::string>& items) {
  std::string text = "[";
  for (std::size_t i = 0; i < items.size(); ++i) text += (i ? " " : "") + quote(items[i]);
  return text + "]";
}

}  // namespace kapi::selectors::go
