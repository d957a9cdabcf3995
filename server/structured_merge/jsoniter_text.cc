#include "server/structured_merge/jsoniter_text.h"

#include "base/go_json_string.h"
#include "base/utf8.h"

#include <algorithm>
#include <vector>

namespace kapi::structured_merge::detail {
namespace {

namespace json = boost::json;

constexpr char kHex[] = "0123456789abcdef";

// The escapes both of jsoniter's string writers share for one ASCII byte that is not written as itself.
void append_ascii_escape(std::string& out, unsigned char c) {
  switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\r': out += "\\r"; break;
    case '\t': out += "\\t"; break;
    default:
      out += "\\u00";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
  }
}

// jsoniter's WriteStringWithHTMLEscaped.
void append_html_escaped(std::string& out, std::string_view text) {
  out.push_back('"');
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if (c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&') {
        append_ascii_escape(out, c);
      } else {
        out.push_back(static_cast<char>(c));
      }
      ++i;
      continue;
    }
    const base::Rune rune = base::decode_rune(text.substr(i));
    if (!rune.valid) {
      out += "\\ufffd";
    } else if (rune.value == 0x2028 || rune.value == 0x2029) {
      out += "\\u202";
      out.push_back(kHex[rune.value & 0xF]);
    } else {
      out.append(text.substr(i, rune.width));
    }
    i += rune.width;
  }
  out.push_back('"');
}

}  // namespace

void append_jsoniter_name(std::string& out, std::string_view text) {
  out.push_back('"');
  append_jsoniter_escaped(out, text);
  out.push_back('"');
}

void append_jsoniter_escaped(std::string& out, std::string_view text) {
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(text.substr(start, i - start));
    append_ascii_escape(out, c);
    start = i + 1;
  }
  out.append(text.substr(start));
}

void append_jsoniter_value(std::string& out, const json::value& value) {
  switch (value.kind()) {
    case json::kind::null: out += "null"; break;
    case json::kind::bool_: out += value.get_bool() ? "true" : "false"; break;
    case json::kind::int64: out += std::to_string(value.get_int64()); break;
    case json::kind::uint64: out += std::to_string(value.get_uint64()); break;
    case json::kind::double_: base::append_go_json_float(out, value.get_double()); break;
    case json::kind::string: append_html_escaped(out, value.get_string()); break;
    case json::kind::array: {
      out.push_back('[');
      bool first = true;
      for (const json::value& item : value.get_array()) {
        if (!first) out.push_back(',');
        first = false;
        append_jsoniter_value(out, item);
      }
      out.push_back(']');
      break;
    }
    case json::kind::object: {
      // A map[string]interface{} is written with its keys sorted (SortMapKeys), by their bytes.
      std::vector<const json::key_value_pair*> members;
      members.reserve(value.get_object().size());
      for (const json::key_value_pair& member : value.get_object()) members.push_back(&member);
      std::sort(members.begin(), members.end(),
                [](const auto* a, const auto* b) { return a->key() < b->key(); });
      out.push_back('{');
      bool first = true;
      for (const json::key_value_pair* member : members) {
        if (!first) out.push_back(',');
        first = false;
        append_html_escaped(out, member->key());
        out.push_back(':');
        append_jsoniter_value(out, member->value());
      }
      out.push_back('}');
      break;
    }
  }
}

}  // namespace kapi::structured_merge::detail
