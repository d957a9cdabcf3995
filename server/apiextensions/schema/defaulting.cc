#include "server/apiextensions/schema/defaulting.h"

#include <boost/json.hpp>

#include <string>
#include <vector>

namespace kapi::apiextensions::schema {
namespace {

namespace json = boost::json;

bool is_non_nullable_null(const json::value& x, const Schema* s) { return x.is_null() && s && !s->nullable; }

const Schema* schema_for_field(std::string_view field, const Schema* s) {
  if (!s) return nullptr;
  if (const Schema* property = s->property(field)) return property;
  return s->additional_properties_schema();
}

void prune_nulls(json::value& x, const Schema* s) {
  if (x.is_object()) {
    auto& object = x.get_object();
    std::vector<std::string> dropped;
    for (auto& member : object) {
      const Schema* field = schema_for_field(member.key(), s);
      if (is_non_nullable_null(member.value(), field) && !field->default_value) dropped.emplace_back(member.key());
      else prune_nulls(member.value(), field);
    }
    for (const auto& key : dropped) object.erase(key);
  } else if (x.is_array()) {
    const Schema* items = s ? s->items.get() : nullptr;
    for (auto& element : x.get_array()) prune_nulls(element, items);
  }
}

void default_value(json::value& x, const Schema* s) {
  if (!s) return;
  if (x.is_object()) {
    auto& object = x.get_object();
    for (const auto& property : s->properties) {
      if (!property.schema.default_value) continue;
      json::value* current = object.if_contains(property.name);
      if (!current || is_non_nullable_null(*current, &property.schema)) object[property.name] = *property.schema.default_value;
    }
    for (auto& member : object) {
      if (const Schema* property = s->property(member.key())) {
        default_value(member.value(), property);
      } else if (s->additional_properties) {
        const Schema* additional = s->additional_properties_schema();
        if (is_non_nullable_null(member.value(), additional))
          member.value() = additional->default_value ? *additional->default_value : json::value(nullptr);
        default_value(member.value(), additional);
      }
    }
  } else if (x.is_array()) {
    const Schema* items = s->items.get();
    for (auto& element : x.get_array()) {
      if (is_non_nullable_null(element, items)) element = items->default_value ? *items->default_value : json::value(nullptr);
      default_value(element, items);
    }
  }
}

}  // namespace

void prune_non_nullable_nulls_without_defaults(json::value& object, const Schema& schema) { prune_nulls(object, &schema); }

void apply_defaults(json::value& object, const Schema& schema) { default_value(object, &schema); }

}  // namespace kapi::apiextensions::schema
