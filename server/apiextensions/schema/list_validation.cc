#include "server/apiextensions/schema/list_validation.h"

#include "base/go_json_string.h"
#include "base/go_strconv.h"
#include "server/apiextensions/schema/go_values.h"

#include <boost/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kapi::apiextensions::schema {
namespace {

namespace json = boost::json;
using validation::ErrorList;
using validation::ErrorType;
using validation::FieldError;
using validation::Path;

// kube decodes a JSON integer that does not fit an int64 as a float64; boost::json holds it as a uint64.
double as_go_float(const json::value& v) {
  return v.is_double() ? v.get_double() : v.is_uint64() ? static_cast<double>(v.get_uint64()) : static_cast<double>(v.get_int64());
}

// The value as kube's decoding holds it, for printing: uint64s become the float64s kube would have.
json::value as_decoded(const json::value& v) {
  if (v.is_uint64()) return as_go_float(v);
  if (v.is_array()) {
    json::array out;
    for (const auto& element : v.get_array()) out.push_back(as_decoded(element));
    return out;
  }
  if (v.is_object()) {
    json::object out;
    for (const auto& member : v.get_object()) out[member.key()] = as_decoded(member.value());
    return out;
  }
  return v;
}

// json.Marshal of a decoded value: object members sorted by key.
void append_marshalled(const json::value& v, std::string& out) {
  switch (v.kind()) {
    case json::kind::null: out += "null"; return;
    case json::kind::bool_: out += v.get_bool() ? "true" : "false"; return;
    case json::kind::int64: out += std::to_string(v.get_int64()); return;
    case json::kind::uint64:
    case json::kind::double_: base::append_go_json_float(out, as_go_float(v)); return;
    case json::kind::string: out += json::serialize(v.get_string()); return;
    case json::kind::array: {
      out += '[';
      bool first = true;
      for (const auto& element : v.get_array()) {
        if (!first) out += ',';
        first = false;
        append_marshalled(element, out);
      }
      out += ']';
      return;
    }
    case json::kind::object: {
      std::vector<const json::key_value_pair*> members;
      for (const auto& member : v.get_object()) members.push_back(&member);
      std::sort(members.begin(), members.end(), [](auto* l, auto* r) { return l->key() < r->key(); });
      out += '{';
      bool first = true;
      for (const auto* member : members) {
        if (!first) out += ',';
        first = false;
        out += json::serialize(member->key());
        out += ':';
        append_marshalled(member->value(), out);
      }
      out += '}';
      return;
    }
  }
}

// A set element or map key as validateListSet tells them apart: scalars by Go's == on interface{} (the dynamic
// type counts: int64 1 is not float64 1; 0.0 == -0.0), compounds by their JSON encoding. nullopt stands for
// validateListMap's unspecifiedKeyValue{}, a type of its own.
std::string identity(const std::optional<json::value>& key) {
  if (!key) return "u";
  const json::value& v = *key;
  switch (v.kind()) {
    case json::kind::null: return "n";
    case json::kind::bool_: return v.get_bool() ? "b1" : "b0";
    case json::kind::int64: return "i" + std::to_string(v.get_int64());
    case json::kind::uint64:
    case json::kind::double_: {
      double d = as_go_float(v);
      return "f" + base::go_format_float(d == 0 ? 0.0 : d);
    }
    case json::kind::string: return "s" + std::string(v.get_string());
    case json::kind::array:
    case json::kind::object: {
      std::string out = "c";
      append_marshalled(v, out);
      return out;
    }
  }
  return "";
}

// validateListSet: the index of each element's second appearance, in order (a third appearance is not reported).
std::vector<std::size_t> second_appearances(const std::vector<std::optional<json::value>>& elements) {
  std::vector<std::size_t> indices;
  if (elements.size() <= 1) return indices;
  std::map<std::string, int> seen;
  for (std::size_t i = 0; i < elements.size(); ++i) {
    if (++seen[identity(elements[i])] == 2) indices.push_back(i);
  }
  return indices;
}

FieldError duplicate(const Path& path, const json::value& value) {
  return {ErrorType::Duplicate, path.str(), field_error_value(as_decoded(value)), ""};
}

void validate_map_list(const Path& path, const Schema& schema, const json::array& list, ErrorList& errors) {
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_null() && !list[i].is_object()) {
      errors.push_back(validation::invalid_value(path.index(i), field_error_value(as_decoded(list[i])),
                                                 "must be an object for an array of list-type map"));
      return;
    }
  }
  if (list.size() <= 1) return;

  std::vector<std::optional<json::value>> keys;
  keys.reserve(list.size());
  if (schema.x_list_map_keys.size() == 1) {
    const std::string& key_field = schema.x_list_map_keys.front();
    for (const auto& element : list) {
      const json::value* key = element.is_object() ? element.get_object().if_contains(key_field) : nullptr;
      keys.push_back(key ? std::optional<json::value>(*key) : std::nullopt);
    }
    for (std::size_t i : second_appearances(keys)) {
      json::object shown;
      if (keys[i]) shown[key_field] = *keys[i];
      errors.push_back(duplicate(path.index(i), shown));
    }
    return;
  }

  for (const auto& element : list) {
    json::object key;
    if (element.is_object()) {
      for (const auto& key_field : schema.x_list_map_keys) {
        if (const json::value* value = element.get_object().if_contains(key_field)) key[key_field] = *value;
      }
    }
    keys.push_back(json::value(std::move(key)));
  }
  for (std::size_t i : second_appearances(keys)) errors.push_back(duplicate(path.index(i), *keys[i]));
}

void validate_node(const Path& path, const Schema& schema, const json::value& value, ErrorList& errors);

void validate_object(const Path& path, const Schema& schema, const json::object& object, ErrorList& errors) {
  if (const Schema* additional = schema.additional_properties_schema()) {
    for (const auto& member : object) validate_node(path.key(member.key()), *additional, member.value(), errors);
  }
  if (!schema.properties.empty()) {
    for (const auto& member : object) {
      if (const Schema* property = schema.property(member.key())) {
        validate_node(path.child(member.key()), *property, member.value(), errors);
      }
    }
  }
}

void validate_array(const Path& path, const Schema& schema, const json::array& list, ErrorList& errors) {
  if (schema.x_list_type == "set") {
    std::vector<std::optional<json::value>> elements(list.begin(), list.end());
    for (std::size_t i : second_appearances(elements)) errors.push_back(duplicate(path.index(i), list[i]));
  } else if (schema.x_list_type == "map") {
    validate_map_list(path, schema, list, errors);
  }
  if (schema.items) {
    for (std::size_t i = 0; i < list.size(); ++i) validate_node(path.index(i), *schema.items, list[i], errors);
  }
}

void validate_node(const Path& path, const Schema& schema, const json::value& value, ErrorList& errors) {
  if (value.is_array()) validate_array(path, schema, value.get_array(), errors);
  else if (value.is_object()) validate_object(path, schema, value.get_object(), errors);
}

}  // namespace

ErrorList validate_lists(const json::value& object, const Schema& schema) {
  ErrorList errors;
  if (object.is_object()) validate_object(Path(""), schema, object.get_object(), errors);
  return errors;
}

}  // namespace kapi::apiextensions::schema
