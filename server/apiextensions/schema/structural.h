#pragma once
// A CustomResourceDefinition version's `schema.openAPIV3Schema` as kube-apiserver holds it once decoded
// (apiextensions.JSONSchemaProps, and the Structural view of it in apiserver/schema/structural.go): one Schema per
// node, with its value validations and the x-kubernetes-* extensions. The junctors (allOf, anyOf, oneOf, not) hold
// Schemas too; the structural checks make sure they only restrict values and never declare types, as kube requires.
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace re2 {
class RE2;
}

namespace kapi::apiextensions::schema {

struct Schema;
struct Property;

// `additionalProperties`: false, true, or a schema (which allows any key).
struct AdditionalProperties {
  bool allows = true;
  std::shared_ptr<const Schema> schema;  // null for the boolean forms
};

struct Schema {
  // Generic.
  std::string type;  // "" when unset
  std::string format;
  std::string title;
  std::string description;
  std::optional<boost::json::value> default_value;
  bool nullable = false;
  bool has_external_docs = false;

  // Value validations.
  std::optional<double> maximum;
  bool exclusive_maximum = false;
  std::optional<double> minimum;
  bool exclusive_minimum = false;
  std::optional<double> multiple_of;
  std::optional<std::int64_t> max_length, min_length;
  std::optional<std::string> pattern;
  // `pattern` compiled once, as Go's regexp (kube-openapi keeps compiled patterns too): value validation runs it
  // on every write of the resource. Not ok() when Go would refuse the pattern.
  std::shared_ptr<const re2::RE2> compiled_pattern;
  std::optional<std::int64_t> max_items, min_items;
  bool unique_items = false;
  std::optional<std::int64_t> max_properties, min_properties;
  std::vector<std::string> required;
  std::optional<boost::json::array> enum_values;
  std::vector<Schema> all_of, any_of, one_of;
  std::shared_ptr<const Schema> not_schema;

  // Structure.
  std::vector<Property> properties;  // in the order the CRD lists them
  std::shared_ptr<const Schema> items;
  std::optional<AdditionalProperties> additional_properties;

  // Kubernetes extensions.
  std::optional<bool> x_preserve_unknown_fields;
  bool x_int_or_string = false;
  bool x_embedded_resource = false;
  std::optional<std::string> x_list_type;
  std::vector<std::string> x_list_map_keys;
  std::optional<std::string> x_map_type;
  // CEL rules as written; server/apiextensions/cel compiles and evaluates them.
  std::optional<boost::json::array> x_validations;

  // JSON-Schema keywords kube-apiserver refuses in CRDs ("id", "$ref", "patternProperties", "definitions",
  // "dependencies", "additionalItems", and "items" given as an array), so the checks can name them.
  std::vector<std::string> unsupported_keywords;

  const Schema* property(std::string_view name) const;
  bool preserves_unknown_fields() const { return x_preserve_unknown_fields.value_or(false); }
  const Schema* additional_properties_schema() const {
    return additional_properties ? additional_properties->schema.get() : nullptr;
  }
};

struct Property {
  std::string name;
  Schema schema;
};

// Reads an openAPIV3Schema object. Keywords of the wrong JSON type are ignored (the CRD's own decoding reports
// them before a schema gets here).
Schema parse_schema(const boost::json::object& json);

// True when some node of the schema (junctors included) has x-kubernetes-validations.
bool has_cel_rules(const Schema& schema);

}  // namespace kapi::apiextensions::schema
