// apiserver/pkg/cel/common/schemas.go (SchemaDeclType and its estimates), apiserver/pkg/cel/types.go (DeclType,
// MaybeAssignTypeName), apiserver/pkg/cel/limits.go (the JSON size constants) and apiextensions-apiserver's
// model.WithTypeAndObjectMeta.
#include "server/apiextensions/cel/schema_types.h"

#include "server/apiextensions/cel/escaping.h"

#include <algorithm>
#include <chrono>
#include <set>

namespace kapi::apiextensions::cel {
namespace {

using kapi::cel::Type;
using schema::Schema;

constexpr std::int64_t kMaxDurationSizeJson = 32;
constexpr std::int64_t kMaxDatetimeSizeJson = 32;
constexpr std::int64_t kMinDurationSizeJson = 3;
constexpr std::int64_t kJsonDateSize = 12;
constexpr std::int64_t kMinDatetimeSizeJson = 21;
constexpr std::int64_t kMinStringSize = 2;
constexpr std::int64_t kMinBoolSize = 4;
constexpr std::int64_t kMinNumberSize = 1;

std::uint64_t zero_if_negative(std::int64_t v) { return v < 0 ? 0 : static_cast<std::uint64_t>(v); }

std::int64_t max_string_length_per_request(const Schema& s) {
  if (s.x_int_or_string) return kMaxRequestSizeBytes - 2;
  if (s.format == "duration") return kMaxDurationSizeJson;
  if (s.format == "date") return kJsonDateSize;
  if (s.format == "date-time") return kMaxDatetimeSizeJson;
  return kMaxRequestSizeBytes - 2;
}

// maxLength counts code points; a code point takes up to 4 bytes.
std::uint64_t max_elements_from_max_length(const Schema& s) { return zero_if_negative(*s.max_length) * 4; }

std::uint64_t max_string_enum_length(const Schema& s) {
  std::uint64_t longest = 0;
  for (const auto& value : *s.enum_values)
    if (value.is_string()) longest = std::max<std::uint64_t>(longest, value.as_string().size());
  return longest;
}

std::uint64_t max_array_items_from_min_size(std::int64_t min_size) {
  return static_cast<std::uint64_t>((kMaxRequestSizeBytes - 2) / (min_size + 1));
}

std::uint64_t max_additional_properties_from_min_size(std::int64_t min_size) {
  return static_cast<std::uint64_t>((kMaxRequestSizeBytes - 2) / (min_size + 6));
}

const Schema& string_schema() {
  static const Schema kString = [] {
    Schema s;
    s.type = "string";
    return s;
  }();
  return kString;
}

const Schema& object_meta_schema() {
  static const Schema kMeta = [] {
    Schema s;
    s.type = "object";
    s.properties.push_back({"name", string_schema()});
    s.properties.push_back({"generateName", string_schema()});
    return s;
  }();
  return kMeta;
}

bool declares_type_and_object_meta(const Schema& s) {
  auto typed = [](const Schema* p, std::string_view type) { return p && p->type == type; };
  const Schema* meta = s.property("metadata");
  return typed(s.property("kind"), "string") && typed(s.property("apiVersion"), "string") &&
         typed(meta, "object") && !meta->properties.empty() && typed(meta->property("name"), "string") &&
         typed(meta->property("generateName"), "string");
}

DeclType simple(Type type, std::int64_t min_size) { return DeclType{std::move(type), min_size}; }

std::optional<DeclType> object_decl_type(const Schema& s, bool is_resource_root, const std::string& name) {
  std::set<std::string> required(s.required.begin(), s.required.end());
  auto object = std::make_shared<kapi::cel::ObjectType>();
  object->name = name;
  std::int64_t min_size = 2;  // {}
  auto add = [&](const std::string& property, const Schema& schema) {
    auto escaped = escape(property);
    auto field = schema_decl_type(schema, schema.x_embedded_resource, name + "." + escaped.value_or(property));
    if (!field) return;
    if (escaped) object->fields.insert_or_assign(*escaped, field->type);
    // Required properties without defaults count towards the smallest serialized form; defaults are filled in
    // by the server.
    if (required.contains(property) && !schema.default_value)
      min_size += static_cast<std::int64_t>(property.size()) + field->min_serialized_size + 4;
  };
  if (is_resource_root) {
    bool own = declares_type_and_object_meta(s);
    for (const auto& property : s.properties)
      if (own || (property.name != "kind" && property.name != "apiVersion" && property.name != "metadata"))
        add(property.name, property.schema);
    if (!own) {
      add("kind", string_schema());
      add("apiVersion", string_schema());
      add("metadata", object_meta_schema());
    }
  } else {
    for (const auto& property : s.properties) add(property.name, property.schema);
  }
  // Objects carry no size of their own (kube's MaxElements 0).
  return DeclType{Type::object(std::move(object)).with_max_elements(0), min_size};
}

}  // namespace

std::optional<DeclType> schema_decl_type(const Schema& s, bool is_resource_root, const std::string& name) {
  if (s.x_int_or_string) {
    std::uint64_t max = s.max_length ? max_elements_from_max_length(s)
                                     : static_cast<std::uint64_t>(max_string_length_per_request(s));
    return simple(Type::dyn().with_max_elements(max), 1);
  }
  if (s.type == "array") {
    if (!s.items) return std::nullopt;
    auto items = schema_decl_type(*s.items, s.items->x_embedded_resource, name + ".@idx");
    if (!items) return std::nullopt;
    std::uint64_t max = s.max_items ? zero_if_negative(*s.max_items)
                                    : max_array_items_from_min_size(items->min_serialized_size);
    return simple(Type::list(items->type).with_max_elements(max), 2);
  }
  if (s.type == "object") {
    if (const Schema* values = s.additional_properties_schema()) {
      auto value = schema_decl_type(*values, values->x_embedded_resource, name + ".@elem");
      if (!value) return std::nullopt;
      std::uint64_t max = s.max_properties ? zero_if_negative(*s.max_properties)
                                           : max_additional_properties_from_min_size(value->min_serialized_size);
      // Keys are kube's plain StringType, whose size hint is 0 (only values carry the schema's bounds).
      return simple(Type::map(Type::string_type().with_max_elements(0), value->type).with_max_elements(max), 2);
    }
    return object_decl_type(s, is_resource_root, name);
  }
  if (s.type == "string") {
    if (s.format == "byte") {
      std::uint64_t max = s.max_length ? zero_if_negative(*s.max_length)
                                       : static_cast<std::uint64_t>(max_string_length_per_request(s));
      return simple(Type::bytes_type().with_max_elements(max), kMinStringSize);
    }
    if (s.format == "duration")
      return simple(Type::duration().with_max_elements(max_string_length_per_request(s)), kMinDurationSizeJson);
    if (s.format == "date")
      return simple(Type::timestamp().with_max_elements(max_string_length_per_request(s)), kJsonDateSize);
    if (s.format == "date-time")
      return simple(Type::timestamp().with_max_elements(max_string_length_per_request(s)), kMinDatetimeSizeJson);
    std::uint64_t max = s.max_length                                 ? max_elements_from_max_length(s)
                        : (s.enum_values && !s.enum_values->empty()) ? max_string_enum_length(s)
                                                                     : static_cast<std::uint64_t>(max_string_length_per_request(s));
    return simple(Type::string_type().with_max_elements(max), kMinStringSize);
  }
  if (s.type == "boolean") return simple(Type::bool_type(), kMinBoolSize);
  if (s.type == "number") return simple(Type::double_type(), kMinNumberSize);
  if (s.type == "integer") return simple(Type::int_type(), kMinNumberSize);
  return std::nullopt;
}

std::string unique_self_type_name() {
  auto since_epoch = std::chrono::system_clock::now().time_since_epoch();
  auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(since_epoch).count() % 1'000'000'000;
  return "selfType" + std::to_string(nanos);
}

const Schema* resource_property(const Schema& s, std::string_view name) {
  if (!declares_type_and_object_meta(s)) {
    if (name == "kind" || name == "apiVersion") return &string_schema();
    if (name == "metadata") return &object_meta_schema();
  }
  return s.property(name);
}

std::uint64_t max_cardinality(std::int64_t min_serialized_size) {
  return static_cast<std::uint64_t>(kMaxRequestSizeBytes / (min_serialized_size + 1));
}

}  // namespace kapi::apiextensions::cel
