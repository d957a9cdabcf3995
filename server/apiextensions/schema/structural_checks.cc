#include "server/apiextensions/schema/schema_checks.h"

#include "base/go_regexp.h"

#include <algorithm>

namespace kapi::apiextensions::schema {
namespace {

using validation::ErrorList;
using validation::Path;

enum class Level { kRoot, kItem, kField };

void append(ErrorList& errors, ErrorList more) {
  errors.insert(errors.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
}

// Whether a junctor schema is exactly `{type: <type>}` (kube compares the NestedValueValidation deeply).
bool only_declares_type(const Schema& s, std::string_view type) {
  return s.type == type && s.format.empty() && s.title.empty() && s.description.empty() && !s.default_value &&
         !s.nullable && !s.has_external_docs && !s.maximum && !s.exclusive_maximum && !s.minimum &&
         !s.exclusive_minimum && !s.multiple_of && !s.max_length && !s.min_length && !s.pattern && !s.max_items &&
         !s.min_items && !s.unique_items && !s.max_properties && !s.min_properties && s.required.empty() &&
         !s.enum_values && s.all_of.empty() && s.any_of.empty() && s.one_of.empty() && !s.not_schema &&
         s.properties.empty() && !s.items && !s.additional_properties && !s.x_preserve_unknown_fields &&
         !s.x_int_or_string && !s.x_embedded_resource && !s.x_list_type && s.x_list_map_keys.empty() &&
         !s.x_map_type && !s.x_validations;
}

bool is_int_or_string_any_of(const std::vector<Schema>& any_of) {
  return any_of.size() == 2 && only_declares_type(any_of[0], "integer") && only_declares_type(any_of[1], "string");
}

ErrorList nested_value_validation(const Schema* v, bool skip_any_of, const Path& path);

// validateValueValidation: the junctors of a schema (the int-or-string anyOf patterns excepted) and its pattern.
ErrorList value_validation(const Schema& v, bool skip_any_of, bool skip_first_all_of_any_of, const Path& path) {
  ErrorList errors;
  if (!skip_any_of)
    for (std::size_t i = 0; i < v.any_of.size(); ++i) append(errors, nested_value_validation(&v.any_of[i], false, path.child("anyOf").index(i)));
  for (std::size_t i = 0; i < v.all_of.size(); ++i)
    append(errors, nested_value_validation(&v.all_of[i], skip_first_all_of_any_of && i == 0, path.child("allOf").index(i)));
  for (std::size_t i = 0; i < v.one_of.size(); ++i) append(errors, nested_value_validation(&v.one_of[i], false, path.child("oneOf").index(i)));
  append(errors, nested_value_validation(v.not_schema.get(), false, path.child("not")));
  if (v.pattern) {
    // regexp.Compile, as kube's CRD validation checks the pattern and as value validation runs it.
    const std::shared_ptr<const RE2> compiled =
        v.compiled_pattern ? v.compiled_pattern : std::make_shared<const RE2>(*v.pattern, base::go_regexp_options());
    if (!compiled->ok())
      errors.push_back(validation::invalid(path.child("pattern"), *v.pattern,
                                           "must be a valid regular expression, but isn't: " +
                                               base::go_regexp_error(*compiled)));
  }
  return errors;
}

// validateNestedValueValidation: inside a junctor only value validations may appear.
ErrorList nested_value_validation(const Schema* v, bool skip_any_of, const Path& path) {
  if (!v) return {};
  ErrorList errors = value_validation(*v, skip_any_of, false, path);
  append(errors, nested_value_validation(v->items.get(), false, path.child("items")));
  for (const auto& property : v->properties)
    append(errors, nested_value_validation(&property.schema, false, path.child("properties").key(property.name)));
  auto forbid = [&](std::string_view keyword, std::string detail) { errors.push_back(validation::forbidden(path.child(keyword), std::move(detail))); };
  if (!v->type.empty()) forbid("type", "must be empty to be structural");
  if (v->additional_properties) forbid("additionalProperties", "must be undefined to be structural");
  if (v->default_value) forbid("default", "must be undefined to be structural");
  if (!v->title.empty()) forbid("title", "must be empty to be structural");
  if (!v->description.empty()) forbid("description", "must be empty to be structural");
  if (v->nullable) forbid("nullable", "must be false to be structural");
  if (v->has_external_docs) forbid("externalDocs", "must be undefined to be structural");
  if (v->preserves_unknown_fields()) forbid("x-kubernetes-preserve-unknown-fields", "must be false to be structural");
  if (v->x_embedded_resource) forbid("x-kubernetes-embedded-resource", "must be false to be structural");
  if (v->x_int_or_string) forbid("x-kubernetes-int-or-string", "must be false to be structural");
  if (!v->x_list_map_keys.empty()) forbid("x-kubernetes-list-map-keys", "must be empty to be structural");
  if (v->x_list_type) forbid("x-kubernetes-list-type", "must be undefined to be structural");
  if (v->x_map_type) forbid("x-kubernetes-map-type", "must be undefined to be structural");
  if (v->x_validations && !v->x_validations->empty()) forbid("x-kubernetes-validations", "must be empty to be structural");
  // reasoning about metadata in junctors could restrict it in ways kube does not want
  if (v->property("metadata"))
    errors.push_back(validation::forbidden(path.child("properties").key("metadata"), "must not be specified in a nested context"));
  return errors;
}

// validateStructuralMetadataInvariants: at the root, metadata may only restrict name and generateName.
ErrorList metadata_invariants(const Schema& s, bool check_metadata, Level level, const Path& path) {
  ErrorList errors;
  if (check_metadata && s.type != "object") errors.push_back(validation::invalid(path.child("type"), s.type, "must be object"));
  if (level == Level::kRoot) {
    bool name = s.property("name") != nullptr, generate_name = s.property("generateName") != nullptr;
    bool only_names = (name && generate_name && s.properties.size() == 2) || ((name || generate_name) && s.properties.size() == 1);
    Schema rest = s;
    if (only_names) rest.properties.clear();
    rest.type.clear();
    rest.default_value.reset();
    if (!only_declares_type(rest, ""))
      errors.push_back(validation::forbidden(path, "must not specify anything other than name and generateName, but metadata is implicitly specified"));
  }
  return errors;
}

ErrorList invariants(const Schema* s, Level level, const Path& path) {
  if (!s) return {};
  ErrorList errors;
  if (s->type == "array" && !s->items) errors.push_back(validation::required(path.child("items"), "must be specified"));
  append(errors, invariants(s->items.get(), Level::kItem, path.child("items")));
  for (const auto& property : s->properties)
    append(errors, invariants(&property.schema, Level::kField, path.child("properties").key(property.name)));
  if (s->additional_properties) {
    if (level == Level::kRoot) errors.push_back(validation::forbidden(path.child("additionalProperties"), "must not be used at the root"));
    append(errors, invariants(s->additional_properties_schema(), Level::kField, path.child("additionalProperties")));
  }
  if (s->x_int_or_string && s->preserves_unknown_fields())
    errors.push_back(validation::invalid_value(path.child("x-kubernetes-preserve-unknown-fields"), "true", "must be false if x-kubernetes-int-or-string is true"));
  if (s->x_int_or_string && s->x_embedded_resource)
    errors.push_back(validation::invalid_value(path.child("x-kubernetes-embedded-resource"), "true", "must be false if x-kubernetes-int-or-string is true"));

  bool skip_any_of = is_int_or_string_any_of(s->any_of);
  bool skip_first_all_of_any_of = !s->all_of.empty() && is_int_or_string_any_of(s->all_of[0].any_of);
  append(errors, value_validation(*s, skip_any_of, skip_first_all_of_any_of, path));

  bool check_metadata = level == Level::kRoot || s->x_embedded_resource;
  if (s->x_embedded_resource && s->type != "object") {
    if (s->type.empty()) errors.push_back(validation::required(path.child("type"), "must be object if x-kubernetes-embedded-resource is true"));
    else errors.push_back(validation::invalid(path.child("type"), s->type, "must be object if x-kubernetes-embedded-resource is true"));
  } else if (s->type.empty() && !s->x_int_or_string && !s->preserves_unknown_fields()) {
    const char* detail = level == Level::kRoot   ? "must not be empty at the root"
                         : level == Level::kItem ? "must not be empty for specified array items"
                                                 : "must not be empty for specified object fields";
    errors.push_back(validation::required(path.child("type"), detail));
  }
  if (s->x_embedded_resource && s->additional_properties)
    errors.push_back(validation::forbidden(path.child("additionalProperties"), "must not be used if x-kubernetes-embedded-resource is set"));
  if (level == Level::kRoot && !s->type.empty() && s->type != "object")
    errors.push_back(validation::invalid(path.child("type"), s->type, "must be object at the root"));
  if (const Schema* kind = s->property("kind"); kind && check_metadata && kind->type != "string")
    errors.push_back(validation::invalid(path.child("properties").key("kind").child("type"), kind->type, "must be string"));
  if (const Schema* api_version = s->property("apiVersion"); api_version && check_metadata && api_version->type != "string")
    errors.push_back(validation::invalid(path.child("properties").key("apiVersion").child("type"), api_version->type, "must be string"));
  if (const Schema* metadata = s->property("metadata"))
    append(errors, metadata_invariants(*metadata, check_metadata, level, path.child("properties").key("metadata")));
  if (s->x_embedded_resource && !s->preserves_unknown_fields() && s->properties.empty())
    errors.push_back(validation::required(path.child("properties"),
                                          "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields"));
  return errors;
}

ErrorList nested_completeness(const Schema* v, const Schema* s, const Path& s_path, const Path& v_path);

// validateValueValidationCompleteness: what a junctor mentions must exist outside of it.
ErrorList value_completeness(const Schema& v, const Schema* s, const Path& s_path, const Path& v_path) {
  if (!s) return {validation::required(s_path, "because it is defined in " + v_path.str())};
  ErrorList errors = nested_completeness(v.not_schema.get(), s, s_path, v_path.child("not"));
  for (std::size_t i = 0; i < v.all_of.size(); ++i) append(errors, nested_completeness(&v.all_of[i], s, s_path, v_path.child("allOf").index(i)));
  for (std::size_t i = 0; i < v.any_of.size(); ++i) append(errors, nested_completeness(&v.any_of[i], s, s_path, v_path.child("anyOf").index(i)));
  for (std::size_t i = 0; i < v.one_of.size(); ++i) append(errors, nested_completeness(&v.one_of[i], s, s_path, v_path.child("oneOf").index(i)));
  return errors;
}

ErrorList nested_completeness(const Schema* v, const Schema* s, const Path& s_path, const Path& v_path) {
  if (!v) return {};
  if (!s) return {validation::required(s_path, "because it is defined in " + v_path.str())};
  ErrorList errors = value_completeness(*v, s, s_path, v_path);
  append(errors, nested_completeness(v->items.get(), s->items.get(), s_path.child("items"), v_path.child("items")));
  for (const auto& property : v->properties) {
    Path property_v_path = v_path.child("properties").key(property.name);
    if (const Schema* defined = s->property(property.name))
      append(errors, nested_completeness(&property.schema, defined, s_path.child("properties").key(property.name), property_v_path));
    else
      errors.push_back(validation::required(s_path.child("properties").key(property.name), "because it is defined in " + property_v_path.str()));
  }
  return errors;
}

}  // namespace

ErrorList validate_structural(const Schema& schema, const Path& path) {
  ErrorList errors = invariants(&schema, Level::kRoot, path);
  append(errors, value_completeness(schema, &schema, path, path));
  // Go's maps make the order random, so kube sorts by the error text.
  std::stable_sort(errors.begin(), errors.end(), [](const auto& a, const auto& b) { return a.text() < b.text(); });
  return errors;
}

}  // namespace kapi::apiextensions::schema
