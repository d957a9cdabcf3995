#include "server/audit/go_json.h"

#include "base/go_json_string.h"

#include <boost/json/parse.hpp>


namespace kapi::audit {
namespace {

namespace json = boost::json;

void drop_managed_fields(json::value& object) {
  if (!object.is_object()) return;
  if (auto* metadata = object.get_object().if_contains("metadata"); metadata && metadata->is_object())
    metadata->get_object().erase("managedFields");
}

}  // namespace


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
