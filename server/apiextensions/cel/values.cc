// apiserver/pkg/cel/common/values.go: UnstructuredToVal, unstructuredMap, unstructuredList, unstructuredSetList,
// unstructuredMapList.
#include "server/apiextensions/cel/values.h"

#include "base/base64.h"
#include "base/duration.h"
#include "base/go_time.h"
#include "server/apiextensions/cel/escaping.h"
#include "server/apiextensions/cel/schema_types.h"

#include <boost/json.hpp>

#include <cctype>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

namespace kapi::apiextensions::cel {
namespace {

namespace json = boost::json;
using kapi::cel::ErrorCode;
using kapi::cel::List;
using kapi::cel::Map;
using kapi::cel::Value;
using schema::Schema;

Value error(std::string message) { return Value::error(ErrorCode::kGeneric, std::move(message)); }

// Go's %T of a decoded JSON value.
std::string go_type_of(const json::value& v) {
  switch (v.kind()) {
    case json::kind::string: return "string";
    case json::kind::int64: return "int64";
    case json::kind::uint64:
    case json::kind::double_: return "float64";
    case json::kind::bool_: return "bool";
    case json::kind::object: return "map[string]interface {}";
    case json::kind::array: return "[]interface {}";
    case json::kind::null: return "<nil>";
  }
  return "<nil>";
}

// A key identifying a value for set membership and map-list keys: type and value, so 1 and 1.0 differ as kube's
// Go map keys (int64 vs float64) do.
std::string identity_key(const Value& v) { return v.type_name() + ":" + kapi::cel::debug_string(v); }

// --- strfmt parsing of formatted strings ------------------------------------------------------------------------

// strfmt.ParseDuration: Go's time.ParseDuration, else a sum of "<n> <unit>" terms with strfmt's unit names.
std::optional<std::int64_t> parse_strfmt_duration(std::string_view text) {
  if (auto d = base::parse_go_duration(text)) return d->count();
  static const std::vector<std::pair<std::vector<std::string_view>, std::int64_t>> kUnits = {
      {{"ns", "nano"}, 1},
      {{"us", "µs", "micro"}, 1'000},
      {{"ms", "milli"}, 1'000'000},
      {{"s", "sec"}, 1'000'000'000},
      {{"m", "min"}, 60'000'000'000},
      {{"h", "hr", "hour"}, 3'600'000'000'000},
      {{"d", "day"}, 86'400'000'000'000},
      {{"w", "wk", "week"}, 604'800'000'000'000},
  };
  std::int64_t total = 0;
  bool matched = false;
  std::size_t i = 0;
  while (i < text.size()) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) {
      ++i;
      continue;
    }
    std::size_t digits = i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    std::string_view number = text.substr(digits, i - digits);
    std::size_t after_digits = i;
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    std::size_t unit_start = i;
    while (i < text.size() && (std::isalpha(static_cast<unsigned char>(text[i])) ||
                               static_cast<unsigned char>(text[i]) >= 0x80))
      ++i;
    if (i == unit_start) {
      i = after_digits;
      continue;
    }
    std::string unit(text.substr(unit_start, i - unit_start));
    for (char& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (number.size() > 18) return std::nullopt;
    std::int64_t factor = std::stoll(std::string(number));
    for (const auto& [names, multiplier] : kUnits)
      for (auto name : names)
        if (unit == name) {
          matched = true;
          total += factor * multiplier;
        }
  }
  if (!matched) return std::nullopt;
  return total;
}

Value formatted_string(const std::string& text, std::string_view format) {
  if (format == "duration") {
    auto nanos = parse_strfmt_duration(text);
    if (!nanos) return error("Invalid duration " + text + ": unable to parse " + text + " as duration");
    return Value(kapi::cel::Duration{*nanos});
  }
  if (format == "date") {
    auto t = text.size() == 10 ? base::parse_rfc3339(text + "T00:00:00Z") : std::nullopt;
    if (!t) return error("Invalid date formatted string " + text + ": parsing time \"" + text + "\" as \"2006-01-02\"");
    return Value(kapi::cel::Timestamp{t->seconds, t->nanos});
  }
  if (format == "date-time") {
    auto t = base::parse_rfc3339(text);
    if (!t) t = base::parse_rfc3339(text + "Z");  // strfmt also takes ISO 8601 local times, read as UTC
    if (!t) return error("Invalid date-time formatted string " + text + ": parsing time \"" + text + "\"");
    return Value(kapi::cel::Timestamp{t->seconds, t->nanos});
  }
  if (format == "byte") {
    auto decoded = base::base64_decode_with_error(text);
    if (decoded.corrupt_at) return error("Invalid byte formatted string " + text + ": " + decoded.error());
    return Value(kapi::cel::Bytes{std::move(decoded.bytes)});
  }
  return Value(text);
}

// --- lists --------------------------------------------------------------------------------------------------

enum class ListKind { kAtomic, kSet, kMap };

struct ListSemantics {
  ListKind kind = ListKind::kAtomic;
  std::vector<std::string> map_keys;  // escaped, as kube looks them up
};

class SchemaList final : public List {
 public:
  SchemaList(const json::array& elements, const Schema& items, ListSemantics semantics)
      : json_(&elements), items_(&items), semantics_(std::move(semantics)) {}
  SchemaList(std::vector<Value> elements, ListSemantics semantics)
      : values_(std::move(elements)), semantics_(std::move(semantics)) {}

  std::size_t size() const override { return json_ ? json_->size() : values_.size(); }
  Value at(std::size_t index) const override {
    return json_ ? to_value((*json_)[index], *items_) : values_[index];
  }

  bool equals(const List& other) const override {
    switch (semantics_.kind) {
      case ListKind::kAtomic: return List::equals(other);
      case ListKind::kSet: {
        if (size() != other.size()) return false;
        std::unordered_set<std::string> mine;
        for (std::size_t i = 0; i < size(); ++i) mine.insert(identity_key(at(i)));
        for (std::size_t i = 0; i < other.size(); ++i)
          if (!mine.contains(identity_key(other.at(i)))) return false;
        return true;
      }
      case ListKind::kMap: {
        if (size() != other.size()) return false;
        std::unordered_map<std::string, std::size_t> mine;
        for (std::size_t i = 0; i < size(); ++i) mine.emplace(map_key(at(i)), i);
        for (std::size_t i = 0; i < other.size(); ++i) {
          Value theirs = other.at(i);
          auto it = mine.find(map_key(theirs));
          if (it == mine.end() || !kapi::cel::equals(at(it->second), theirs)) return false;
        }
        return true;
      }
    }
    return false;
  }

  std::shared_ptr<const List> concat(const std::shared_ptr<const List>& self,
                                     const std::shared_ptr<const List>& other) const override {
    if (semantics_.kind == ListKind::kAtomic) {
      std::vector<Value> elements = all();
      for (std::size_t i = 0; i < other->size(); ++i) elements.push_back(other->at(i));
      return std::make_shared<const SchemaList>(std::move(elements), semantics_);
    }
    if (other->size() == 0) return self;
    std::vector<Value> elements = all();
    std::unordered_map<std::string, std::size_t> positions;
    auto key_of = [&](const Value& v) {
      return semantics_.kind == ListKind::kSet ? identity_key(v) : map_key(v);
    };
    for (std::size_t i = 0; i < elements.size(); ++i) positions.emplace(key_of(elements[i]), i);
    for (std::size_t i = 0; i < other->size(); ++i) {
      Value next = other->at(i);
      std::string key = key_of(next);
      if (auto it = positions.find(key); it != positions.end()) {
        // A map list's later entry replaces the one with its key; a set keeps what it has.
        if (semantics_.kind == ListKind::kMap) elements[it->second] = std::move(next);
        continue;
      }
      positions.emplace(std::move(key), elements.size());
      elements.push_back(std::move(next));
    }
    return std::make_shared<const SchemaList>(std::move(elements), semantics_);
  }

 private:
  std::vector<Value> all() const {
    std::vector<Value> out;
    out.reserve(size());
    for (std::size_t i = 0; i < size(); ++i) out.push_back(at(i));
    return out;
  }

  std::string map_key(const Value& element) const {
    const Map* map = element.as_map();
    if (!map) return "!" + element.type_name();
    std::string key;
    for (const auto& name : semantics_.map_keys) {
      auto v = map->find(Value(name));
      key += v ? identity_key(*v) : std::string("<nil>");
      key += '\x1f';
    }
    return key;
  }

  const json::array* json_ = nullptr;
  const Schema* items_ = nullptr;
  std::vector<Value> values_;
  ListSemantics semantics_;
};

// --- objects and maps ---------------------------------------------------------------------------------------

enum class ObjectKind {
  kProperties,  // an object with properties (or a resource): fields by escaped name
  kMap,         // additionalProperties: every key, values of one schema
  kClosed,      // neither: nothing is visible
};

class ObjectView final : public Map {
 public:
  ObjectView(const json::object& object, const Schema& schema, ObjectKind kind, bool resource)
      : object_(&object), schema_(&schema), kind_(kind), resource_(resource) {}

  std::size_t size() const override { return entries().size(); }

  std::optional<Value> find(const Value& key) const override {
    const std::string* name = key.get_if<std::string>();
    if (!name) return Value::no_such_overload("_[_]");
    std::string property = *name;
    if (kind_ == ObjectKind::kProperties) {
      auto unescaped = unescape(*name);
      if (!unescaped) return std::nullopt;
      property = std::move(*unescaped);
    }
    auto it = object_->find(property);
    if (it == object_->end()) return std::nullopt;
    if (kind_ == ObjectKind::kProperties && it->value().is_null()) return std::nullopt;
    const Schema* schema = property_schema(property);
    if (!schema) return std::nullopt;
    return to_value(it->value(), *schema);
  }

  Value key_at(std::size_t index) const override { return Value(entries()[index]); }

 private:
  const Schema* property_schema(std::string_view property) const {
    switch (kind_) {
      case ObjectKind::kProperties: return resource_ ? resource_property(*schema_, property) : schema_->property(property);
      case ObjectKind::kMap: return schema_->additional_properties_schema();
      case ObjectKind::kClosed: return nullptr;
    }
    return nullptr;
  }

  // The keys iteration yields: those with a schema, escaped for objects (computed once, on first use).
  const std::vector<std::string>& entries() const {
    std::call_once(entries_once_, [this] {
      for (const auto& member : *object_) {
        std::string_view key = member.key();
        if (!property_schema(key)) continue;
        if (kind_ == ObjectKind::kProperties) {
          if (member.value().is_null()) continue;
          entries_.push_back(escape(key).value_or(std::string(key)));
        } else {
          entries_.emplace_back(key);
        }
      }
    });
    return entries_;
  }

  const json::object* object_;
  const Schema* schema_;
  ObjectKind kind_;
  bool resource_;
  mutable std::once_flag entries_once_;
  mutable std::vector<std::string> entries_;
};

// --- JSON without a schema ------------------------------------------------------------------------------------

class UntypedList final : public List {
 public:
  explicit UntypedList(const json::array& elements) : elements_(&elements) {}
  std::size_t size() const override { return elements_->size(); }
  Value at(std::size_t index) const override { return untyped_value((*elements_)[index]); }

 private:
  const json::array* elements_;
};

class UntypedMap final : public Map {
 public:
  explicit UntypedMap(const json::object& object) : object_(&object) {}
  std::size_t size() const override { return object_->size(); }
  std::optional<Value> find(const Value& key) const override {
    const std::string* name = key.get_if<std::string>();
    if (!name) return std::nullopt;
    auto it = object_->find(*name);
    if (it == object_->end()) return std::nullopt;
    return untyped_value(it->value());
  }
  Value key_at(std::size_t index) const override {
    return Value(std::string((object_->begin() + static_cast<std::ptrdiff_t>(index))->key()));
  }

 private:
  const json::object* object_;
};

Value object_value(const json::object& object, const Schema& schema, bool resource) {
  ObjectKind kind = ObjectKind::kClosed;
  if (resource || !schema.properties.empty()) kind = ObjectKind::kProperties;
  else if (schema.additional_properties_schema()) kind = ObjectKind::kMap;
  return Value(std::shared_ptr<const Map>(std::make_shared<const ObjectView>(object, schema, kind, resource)));
}

Value array_value(const json::array& array, const Schema& schema) {
  if (!schema.items) return error("invalid array type, expected Items with a non-empty Schema");
  ListSemantics semantics;
  if (schema.x_list_type) {
    const std::string& type = *schema.x_list_type;
    if (type == "set") {
      semantics.kind = ListKind::kSet;
    } else if (type == "map") {
      semantics.kind = ListKind::kMap;
      for (const auto& key : schema.x_list_map_keys) semantics.map_keys.push_back(escape(key).value_or(key));
    } else if (type != "atomic") {
      return error("invalid x-kubernetes-list-type, expected 'map', 'set' or 'atomic' but got " + type);
    }
  }
  return Value(std::shared_ptr<const List>(std::make_shared<const SchemaList>(array, *schema.items, std::move(semantics))));
}

}  // namespace

Value to_value(const json::value& json, const Schema& schema, bool is_resource_root) {
  if (json.is_null()) {
    if (schema.nullable) return Value();
    return error("invalid data, got null for schema with nullable=false");
  }
  if (schema.x_int_or_string) {
    if (json.is_string()) return Value(std::string(json.get_string()));
    if (json.is_int64()) return Value(json.get_int64());
    return error("invalid data, expected XIntOrString value to be either a string or integer");
  }
  const std::string& type = schema.type;
  if (type == "object") {
    if (!json.is_object()) return error("invalid data, expected a map for the provided schema with type=object");
    return object_value(json.get_object(), schema, is_resource_root || schema.x_embedded_resource);
  }
  if (type == "array") {
    if (!json.is_array()) return error("invalid data, expected an array for the provided schema with type=array");
    return array_value(json.get_array(), schema);
  }
  if (type == "string") {
    if (!json.is_string()) return error("invalid data, expected string, got " + go_type_of(json));
    return formatted_string(std::string(json.get_string()), schema.format);
  }
  if (type == "number") {
    if (json.is_int64()) return Value(static_cast<double>(json.get_int64()));
    if (json.is_uint64()) return Value(static_cast<double>(json.get_uint64()));
    if (json.is_double()) return Value(json.get_double());
    return error("invalid data, expected float, got " + go_type_of(json));
  }
  if (type == "integer") {
    if (json.is_int64()) return Value(json.get_int64());
    return error("invalid data, expected int, got " + go_type_of(json));
  }
  if (type == "boolean") {
    if (!json.is_bool()) return error("invalid data, expected bool, got " + go_type_of(json));
    return Value(json.get_bool());
  }
  if (schema.preserves_unknown_fields()) return untyped_value(json);
  return error("invalid type, expected object, array, number, integer, boolean or string, or no type with "
               "x-kubernetes-int-or-string or x-kubernetes-preserve-unknown-fields is true, got " + type);
}

Value untyped_value(const json::value& json) {
  switch (json.kind()) {
    case json::kind::null: return Value();
    case json::kind::bool_: return Value(json.get_bool());
    case json::kind::int64: return Value(json.get_int64());
    case json::kind::uint64: return Value(static_cast<double>(json.get_uint64()));
    case json::kind::double_: return Value(json.get_double());
    case json::kind::string: return Value(std::string(json.get_string()));
    case json::kind::array:
      return Value(std::shared_ptr<const List>(std::make_shared<const UntypedList>(json.get_array())));
    case json::kind::object:
      return Value(std::shared_ptr<const Map>(std::make_shared<const UntypedMap>(json.get_object())));
  }
  return Value();
}

}  // namespace kapi::apiextensions::cel
