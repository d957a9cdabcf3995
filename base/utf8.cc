#include "base/utf8.h"

#include <algorithm>

namespace kapi::base {

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
  if (r > 0x10FFFF || (r >= 0xD800 && r <= 0xDFFF)) r = kRuneError;
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

std::string valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    // Objects are mostly ASCII: its runs are copied whole rather than rune by rune.
    const auto ascii =
        std::find_if(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; });
    out.append(text.begin(), ascii);
    text.remove_prefix(static_cast<std::size_t>(ascii - text.begin()));
    if (text.empty()) break;
    const Rune rune = decode_rune(text);
    if (rune.valid) out.append(text.substr(0, rune.width));
    else append_utf8(out, kRuneError);
    text.remove_prefix(rune.width);
  }
  return out;
}

}  // namespace kapi::base
