#include "base/go_json_string.h"

#include "base/utf8.h"

namespace kapi::base {

void append_go_json_string(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  for (std::size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        default:
          if (c < 0x20 || c == '<' || c == '>' || c == '&') {
            out += "\\u00";
            out.push_back(kHex[c >> 4]);
            out.push_back(kHex[c & 0xF]);
          } else {
            out.push_back(static_cast<char>(c));
          }
      }
      ++i;
      continue;
    }
    const Rune rune = decode_rune(text.substr(i));
    if (!rune.valid) {
      out += "\\ufffd";
      ++i;
      continue;
    }
    std::string_view sequence = text.substr(i, rune.width);
    if (sequence == "\xE2\x80\xA8") out += "\\u2028";
    else if (sequence == "\xE2\x80\xA9") out += "\\u2029";
    else out += sequence;
    i += rune.width;
  }
  out.push_back('"');
}

}  // namespace kapi::base
