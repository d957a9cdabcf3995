#include "base/go_json_string.h"

#include "base/utf8.h"

#include <boost/json/value.hpp>

#include <charconv>
#include <cmath>

namespace kapi::base {
namespace {

namespace json = boost::json;


}  // namespace

void append_go_json_float(std::string& out, double value) {
  if (!std::isfinite(value)) {
    out += "null";  // Go refuses to encode these; kube objects never hold them
    return;
  }
  char buffer[64];
  const double magnitude = std::fabs(value);
  const bool exponent = magnitude != 0 && (magnitude < 1e-6 || magnitude >= 1e21);
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value,
                              exponent ? std::chars_format::scientific : std::chars_format::fixed);
  std::string text(buffer, result.ptr);
  if (exponent) {
    // Go writes e-7 where C++ writes e-07.
    auto e = text.find('e');
    if (e != std::string::npos && e + 2 < text.size() && text[e + 2] == '0' && e + 3 < text.size()) text.erase(e + 2, 1);
  }
  out += text;
}

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

void append_go_json(std::string& out, const json::value& value) {
  switch (value.kind()) {
    case json::kind::null: out += "null"; break;
    case json::kind::bool_: out += value.get_bool() ? "true" : "false"; break;
    case json::kind::int64: out += std::to_string(value.get_int64()); break;
    case json::kind::uint64: out += std::to_string(value.get_uint64()); break;
    case json::kind::double_: append_go_json_float(out, value.get_double()); break;
    case json::kind::string: append_go_json_string(out, value.get_string()); break;
    case json::kind::array: {
      out.push_back('[');
      bool first = true;
      for (const auto& item : value.get_array()) {
        if (!first) out.push_back(',');
        first = false;
        append_go_json(out, item);
      }
      out.push_back(']');
      break;
    }
    case json::kind::object: {
      out.push_back('{');
      bool first = true;
      for (const auto& [key, item] : value.get_object()) {
        if (!first) out.push_back(',');
        first = false;
        append_go_json_string(out, key);
        out.push_back(':');
        append_go_json(out, item);
      }
      out.push_back('}');
      break;
    }
  }
}

}  // namespace kapi::base
