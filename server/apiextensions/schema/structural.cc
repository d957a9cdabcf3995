#include "server/apiextensions/schema/structural.h"

#include "base/go_regexp.h"
#include "server/registry/json_fields.h"

#include <cstdint>
#include <limits>

namespace kapi::apiextensions::schema {
namespace {

namespace json = boost::json;
using registry::fields::bool_at;
using registry::fields::string_at;
using registry::fields::strings_at;

std::optional<double> number_of(const json::object& object, std::string_view key) {
  const json::value* value = object.if_contains(key);
  if (!value) return std::nullopt;
  if (value->is_int64()) return static_cast<double>(value->get_int64());
  if (value->is_uint64()) return static_cast<double>(value->get_uint64());
  if (value->is_double()) return value->get_double();
  return std::nullopt;
}

// An int64 field (maxLength, minItems, ...). Go's decoder refuses a number outside int64 there; one that gets
// here anyway (1e20, 2^64 - 1) saturates rather than wraps, and a fraction is dropped as a conversion drops it.
std::optional<std::int64_t> integer_of(const json::object& object, std::string_view key) {
  constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
  constexpr auto kMin = std::numeric_limits<std::int64_t>::min();
  const json::value* value = object.if_contains(key);
  if (!value) return std::nullopt;
  if (value->is_int64()) return value->get_int64();
  if (value->is_uint64()) return value->get_uint64() > static_cast<std::uint64_t>(kMax)
                                     ? kMax : static_cast<std::int64_t>(value->get_uint64());
  if (!value->is_double()) return std::nullopt;
  const double number = value->get_double();
  if (number >= 9223372036854775808.0) return kMax;  // 2^63: the first double past int64
  if (number < -9223372036854775808.0) return kMin;
  return static_cast<std::int64_t>(number);
}

std::optional<std::string> optional_string_of(const json::object& object, std::string_view key) {
  const json::value* value = object.if_contains(key);
  if (value && value->is_string()) return std::string(value->get_string());
  return std::nullopt;
}

std::vector<Schema> schemas_of(const json::object& object, std::string_view key) {
  std::vector<Schema> out;
  if (const json::value* value = object.if_contains(key); value && value->is_array())
    for (const auto& element : value->get_array())
      if (element.is_object()) out.push_back(parse_schema(element.get_object()));
  return out;
}

}  // namespace

const Schema* Schema::property(std::string_view name) const {
  for (const auto& p : properties)
    if (p.name == name) return &p.schema;
  return nullptr;
}

Schema parse_schema(const json::object& object) {
  Schema s;
  s.type = string_at(object, "type");
  s.format = string_at(object, "format");
  s.title = string_at(object, "title");
  s.description = string_at(object, "description");
  if (const json::value* value = object.if_contains("default")) s.default_value = *value;
  s.nullable = bool_at(object, "nullable");
  s.has_external_docs = object.contains("externalDocs");

  s.maximum = number_of(object, "maximum");
  s.exclusive_maximum = bool_at(object, "exclusiveMaximum");
  s.minimum = number_of(object, "minimum");
  s.exclusive_minimum = bool_at(object, "exclusiveMinimum");
  s.multiple_of = number_of(object, "multipleOf");
  s.max_length = integer_of(object, "maxLength");
  s.min_length = integer_of(object, "minLength");
  s.pattern = optional_string_of(object, "pattern");
  if (s.pattern && s.pattern->empty()) s.pattern.reset();  // Go's "" means no pattern
  if (s.pattern) s.compiled_pattern = std::make_shared<const RE2>(*s.pattern, base::go_regexp_options());
  s.max_items = integer_of(object, "maxItems");
  s.min_items = integer_of(object, "minItems");
  s.unique_items = bool_at(object, "uniqueItems");
  s.max_properties = integer_of(object, "maxProperties");
  s.min_properties = integer_of(object, "minProperties");
  s.required = strings_at(object, "required");
  if (const json::value* value = object.if_contains("enum"); value && value->is_array()) s.enum_values = value->get_array();
  s.all_of = schemas_of(object, "allOf");
  s.any_of = schemas_of(object, "anyOf");
  s.one_of = schemas_of(object, "oneOf");
  if (const json::value* value = object.if_contains("not"); value && value->is_object())
    s.not_schema = std::make_shared<Schema>(parse_schema(value->get_object()));

  if (const json::value* value = object.if_contains("properties"); value && value->is_object())
    for (const auto& member : value->get_object())
      if (member.value().is_object())
        s.properties.push_back({std::string(member.key()), parse_schema(member.value().get_object())});
  if (const json::value* value = object.if_contains("items")) {
    if (value->is_object()) s.items = std::make_shared<Schema>(parse_schema(value->get_object()));
    else if (value->is_array()) s.unsupported_keywords.push_back("items");
  }
  if (const json::value* value = object.if_contains("additionalProperties")) {
    if (value->is_bool()) s.additional_properties = AdditionalProperties{value->get_bool(), nullptr};
    else if (value->is_object())
      s.additional_properties = AdditionalProperties{true, std::make_shared<Schema>(parse_schema(value->get_object()))};
  }

  if (const json::value* value = object.if_contains("x-kubernetes-preserve-unknown-fields"); value && value->is_bool())
    s.x_preserve_unknown_fields = value->get_bool();
  s.x_int_or_string = bool_at(object, "x-kubernetes-int-or-string");
  s.x_embedded_resource = bool_at(object, "x-kubernetes-embedded-resource");
  s.x_list_type = optional_string_of(object, "x-kubernetes-list-type");
  s.x_list_map_keys = strings_at(object, "x-kubernetes-list-map-keys");
  s.x_map_type = optional_string_of(object, "x-kubernetes-map-type");
  if (const json::value* value = object.if_contains("x-kubernetes-validations"); value && value->is_array())
    s.x_validations = value->get_array();

  for (std::string_view keyword : {"id", "$ref", "additionalItems", "patternProperties", "definitions", "dependencies"})
    if (object.contains(keyword)) s.unsupported_keywords.emplace_back(keyword);
  return s;
}

bool has_cel_rules(const Schema& s) {
  if (s.x_validations && !s.x_validations->empty()) return true;
  for (const auto& p : s.properties)
    if (has_cel_rules(p.schema)) return true;
  if (s.items && has_cel_rules(*s.items)) return true;
  if (const Schema* additional = s.additional_properties_schema(); additional && has_cel_rules(*additional)) return true;
  for (const auto* junctor : {&s.all_of, &s.any_of, &s.one_of})
    for (const auto& nested : *junctor)
      if (has_cel_rules(nested)) return true;
  return s.not_schema && has_cel_rules(*s.not_schema);
}

}  // namespace kapi::apiextensions::schema
