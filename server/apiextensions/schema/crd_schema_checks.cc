#include "base/go_quote.h"
#include "server/apiextensions/schema/go_values.h"
#include "server/apiextensions/schema/schema_checks.h"

#include <algorithm>
#include <set>

namespace kapi::apiextensions::schema {
namespace {

using validation::ErrorList;
using validation::Path;

// specStandardValidatorV3's state: whether defaults are allowed here (and why not), and whether this schema
// describes apiVersion, kind or metadata of a resource.
struct Context {
  bool allow_defaults = true;
  std::string disallow_defaults_reason;
  bool inside_resource_meta = false;

  Context with_forbidden_defaults(std::string reason) const {
    Context clone = *this;
    clone.allow_defaults = false;
    clone.disallow_defaults_reason = std::move(reason);
    return clone;
  }
  Context with_inside_resource_meta() const {
    Context clone = *this;
    clone.inside_resource_meta = true;
    return clone;
  }
};

void append(ErrorList& errors, ErrorList more) {
  errors.insert(errors.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
}

// specStandardValidatorV3.validate.
void check_supported(const Schema& s, const Path& path, const Context& context, ErrorList& errors) {
  static const std::vector<std::string> kTypes = {"array", "boolean", "integer", "number", "object", "string"};
  if (!s.type.empty() && std::find(kTypes.begin(), kTypes.end(), s.type) == kTypes.end())
    errors.push_back(validation::not_supported(path.child("type"), s.type, kTypes));
  if (s.default_value && !context.allow_defaults) {
    std::string detail = "must not be set";
    if (!context.disallow_defaults_reason.empty()) detail += " " + context.disallow_defaults_reason;
    errors.push_back(validation::forbidden(path.child("default"), detail));
  }
  auto has = [&](std::string_view keyword) {
    return std::find(s.unsupported_keywords.begin(), s.unsupported_keywords.end(), keyword) != s.unsupported_keywords.end();
  };
  if (has("id")) errors.push_back(validation::forbidden(path.child("id"), "id is not supported"));
  if (has("additionalItems")) errors.push_back(validation::forbidden(path.child("additionalItems"), "additionalItems is not supported"));
  if (has("patternProperties"))
    errors.push_back(validation::forbidden(path.child("patternProperties"), "patternProperties is not supported"));
  if (has("definitions")) errors.push_back(validation::forbidden(path.child("definitions"), "definitions is not supported"));
  if (has("dependencies")) errors.push_back(validation::forbidden(path.child("dependencies"), "dependencies is not supported"));
  if (has("$ref")) errors.push_back(validation::forbidden(path.child("$ref"), "$ref is not supported"));
  if (s.type == "null")
    errors.push_back(validation::forbidden(path.child("type"), "type cannot be set to null, use nullable as an alternative"));
  if (has("items")) errors.push_back(validation::forbidden(path.child("items"), "items must be a schema object and not an array"));
  if (context.inside_resource_meta && s.x_embedded_resource)
    errors.push_back(validation::forbidden(path.child("x-kubernetes-embedded-resource"), "must not be used inside of resource meta"));
}

void check_list_and_map_types(const Schema& s, const Path& path, ErrorList& errors) {
  if (s.x_map_type && s.type != "object") {
    if (s.type.empty()) errors.push_back(validation::required(path.child("type"), "must be object if x-kubernetes-map-type is specified"));
    else errors.push_back(validation::invalid(path.child("type"), s.type, "must be object if x-kubernetes-map-type is specified"));
  }
  if (s.x_map_type && *s.x_map_type != "atomic" && *s.x_map_type != "granular")
    errors.push_back(validation::not_supported(path.child("x-kubernetes-map-type"), *s.x_map_type, {"atomic", "granular"}));

  if (s.x_list_type && s.type != "array") {
    if (s.type.empty()) errors.push_back(validation::required(path.child("type"), "must be array if x-kubernetes-list-type is specified"));
    else errors.push_back(validation::invalid(path.child("type"), s.type, "must be array if x-kubernetes-list-type is specified"));
  } else if (s.x_list_type && *s.x_list_type == "set" && s.items) {
    const Schema& items = *s.items;
    const std::string detail = "must be atomic as item of a list with x-kubernetes-list-type=set";
    if (items.type == "array" && items.x_list_type && *items.x_list_type != "atomic")
      errors.push_back(validation::invalid(path.child("items").child("x-kubernetes-list-type"), *items.x_list_type, detail));
    if (items.type == "object" && (!items.x_map_type || *items.x_map_type != "atomic"))
      // kube shows the items' list type here (usually unset, printed as "null").
      errors.push_back(validation::invalid(path.child("items").child("x-kubernetes-map-type"),
                                           items.x_list_type.value_or("null"), detail));
  }
  if (s.x_list_type && *s.x_list_type != "atomic" && *s.x_list_type != "set" && *s.x_list_type != "map")
    errors.push_back(validation::not_supported(path.child("x-kubernetes-list-type"), *s.x_list_type, {"atomic", "set", "map"}));

  if (!s.x_list_map_keys.empty()) {
    if (!s.x_list_type)
      errors.push_back(validation::required(path.child("x-kubernetes-list-type"), "must be map if x-kubernetes-list-map-keys is non-empty"));
    else if (*s.x_list_type != "map")
      errors.push_back(validation::invalid(path.child("x-kubernetes-list-type"), *s.x_list_type,
                                           "must be map if x-kubernetes-list-map-keys is non-empty"));
  }
  if (s.x_list_type && *s.x_list_type == "map") {
    if (s.x_list_map_keys.empty())
      errors.push_back(validation::required(path.child("x-kubernetes-list-map-keys"), "must not be empty if x-kubernetes-list-type is map"));
    if (!s.items) errors.push_back(validation::required(path.child("items"), "must have a schema if x-kubernetes-list-type is map"));
    if (s.items && s.items->type != "object")
      errors.push_back(validation::invalid(path.child("items").child("type"), s.items->type,
                                           "must be object if parent array's x-kubernetes-list-type is map"));
    if (s.items && s.items->type == "object") {
      std::set<std::string> seen;
      for (const auto& key : s.x_list_map_keys) {
        if (const Schema* property = s.items->property(key)) {
          if (property->type == "array" || property->type == "object")
            errors.push_back(validation::invalid(path.child("items").child("properties").key(key).child("type"), s.items->type,
                                                 "must be a scalar type if parent array's x-kubernetes-list-type is map"));
        } else {
          errors.push_back(validation::invalid_value(path.child("x-kubernetes-list-map-keys"), base::go_string_slice(s.x_list_map_keys),
                                                     "entries must all be names of item properties"));
        }
        if (!seen.insert(key).second)
          errors.push_back(validation::invalid_value(path.child("x-kubernetes-list-map-keys"), base::go_string_slice(s.x_list_map_keys),
                                                     "must not contain duplicate entries"));
      }
    }
  }
}

// validateMapListKeysMapSet: set and map items may not be null, map keys must be required or defaulted.
void check_map_list_keys(const Schema& s, const Path& path, ErrorList& errors) {
  if (!s.items || !s.x_list_type || (*s.x_list_type != "set" && *s.x_list_type != "map")) return;
  if (s.items->nullable)
    errors.push_back(validation::forbidden(path.child("items").child("nullable"), "cannot be nullable when x-kubernetes-list-type is " + *s.x_list_type));
  if (*s.x_list_type != "map") return;
  for (const auto& key : s.x_list_map_keys) {
    const Schema* property = s.items->property(key);
    if (!property) continue;
    bool required = std::find(s.items->required.begin(), s.items->required.end(), key) != s.items->required.end();
    Path key_path = path.child("items").child("properties").key(key);
    if (!required && !property->default_value)
      errors.push_back(validation::required(key_path.child("default"),
                                            "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property"));
    if (property->nullable)
      errors.push_back(validation::forbidden(key_path.child("nullable"), "this property is in x-kubernetes-list-map-keys, so it cannot be nullable"));
  }
}

ErrorList check(const Schema& s, const Path& path, const Context& context, bool is_root) {
  ErrorList errors;
  check_supported(s, path, context, errors);
  if (s.unique_items)
    errors.push_back(validation::forbidden(path.child("uniqueItems"), "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"));
  // properties are for structs, additionalProperties for maps: both together would contradict the convention
  // that unknown fields are dropped.
  if (s.additional_properties) {
    if (!s.properties.empty() && (!s.additional_properties->allows || s.additional_properties->schema))
      errors.push_back(validation::forbidden(path.child("additionalProperties"), "additionalProperties and properties are mutual exclusive"));
    Context sub = context.inside_resource_meta ? context.with_forbidden_defaults("inside additionalProperties applying to object metadata") : context;
    if (const Schema* additional = s.additional_properties_schema()) append(errors, check(*additional, path.child("additionalProperties"), sub, false));
  }
  for (const auto& property : s.properties) {
    Context sub = context;
    bool meta = property.name == "metadata" || property.name == "kind" || property.name == "apiVersion";
    if ((is_root || s.x_embedded_resource) && meta) {
      sub = sub.with_inside_resource_meta();
      if (is_root) sub = sub.with_forbidden_defaults("in top-level " + property.name);
    }
    append(errors, check(property.schema, path.child("properties").key(property.name), sub, false));
  }
  if (s.not_schema) append(errors, check(*s.not_schema, path.child("not"), context, false));
  for (std::size_t i = 0; i < s.all_of.size(); ++i) append(errors, check(s.all_of[i], path.child("allOf").index(i), context, false));
  for (std::size_t i = 0; i < s.one_of.size(); ++i) append(errors, check(s.one_of[i], path.child("oneOf").index(i), context, false));
  for (std::size_t i = 0; i < s.any_of.size(); ++i) append(errors, check(s.any_of[i], path.child("anyOf").index(i), context, false));
  if (s.items) append(errors, check(*s.items, path.child("items"), context, false));
  if (s.x_preserve_unknown_fields && !*s.x_preserve_unknown_fields)
    errors.push_back(validation::invalid_value(path.child("x-kubernetes-preserve-unknown-fields"), "false", "must be true or undefined"));
  check_list_and_map_types(s, path, errors);
  check_map_list_keys(s, path, errors);
  return errors;
}

}  // namespace

ErrorList validate_api_rules(const Schema& schema, const Path& path) {
  ErrorList errors;
  if (schema.nullable) errors.push_back(validation::forbidden(path.child("nullable"), "nullable cannot be true at the root"));
  append(errors, check(schema, path, Context{}, true));
  return errors;
}

ErrorList validate_crd_schema(const Schema& schema, const Path& path) {
  ErrorList errors = validate_api_rules(schema, path);
  ErrorList structural = validate_structural(schema, path);
  if (!structural.empty()) {
    append(errors, std::move(structural));
    return errors;
  }
  append(errors, validate_defaults(schema, path));
  return errors;
}

}  // namespace kapi::apiextensions::schema
