#include "server/audit/go_json.h"

#include "base/go_json_string.h"

#include <boost/json/parse.hpp>

#include <charconv>
#include <cmath>

namespace kapi::audit {
namespace {

namespace json = boost::json;

void append_go_float(std::string& out, double value) {
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

void drop_managed_fields(json::value& object) {
  if (!object.is_object()) return;
  if (auto* metadata = object.get_object().if_contains("metadata"); metadata && metadata->is_object())
    metadata->get_object().erase("managedFields");
}

}  // namespace


void append_go_json(std::string& out, const json::value& value) {
  switch (value.kind()) {
    case json::kind::null: out += "null"; break;
    case json::kind::bool_: out += value.get_bool() ? "true" : "false"; break;
    case json::kind::int64: out += std::to_string(value.get_int64()); break;
    case json::kind::uint64: out += std::to_string(value.get_uint64()); break;
    case json::kind::double_: append_go_float(out, value.get_double()); break;
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

std::optional<std::string> compact_go_json(std::string_view text, bool omit_managed_fields) {
  json::error_code error;
  json::value document = json::parse(text, error);
  if (error) return std::nullopt;
  if (omit_managed_fields && document.is_object()) {
    drop_managed_fields(document);
    auto& object = document.get_object();
    if (auto* items = object.if_contains("items"); items && items->is_array())
      for (auto& item : items->get_array()) drop_managed_fields(item);
    if (auto* rows = object.if_contains("rows"); rows && rows->is_array())
      for (auto& row : rows->get_array())
        if (row.is_object())
          if (auto* row_object = row.get_object().if_contains("object")) drop_managed_fields(*row_object);
  }
  std::string out;
  out.reserve(text.size());
  append_go_json(out, document);
  return out;
}

}  // namespace kapi::audit
