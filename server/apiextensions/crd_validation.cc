#include "server/apiextensions/crd_validation.h"

#include "base/name_validation.h"
#include "server/apiextensions/cel/crd_checks.h"
#include "server/apiextensions/schema/schema_checks.h"
#include "server/apiextensions/schema/structural.h"
#include "server/registry/json_fields.h"

#include <boost/json.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::apiextensions {
namespace {

namespace json = boost::json;
using validation::ErrorList;
using validation::FieldError;
using validation::Path;
using namespace registry::fields;

void append(ErrorList& errors, ErrorList more) {
  errors.insert(errors.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
}

// --- reading the v1 object -----------------------------------------------------------------------------------

const json::object& empty_object() {
  static const json::object kEmpty;
  return kEmpty;
}

const json::value* member(const json::object& object, std::string_view key) {
  auto it = object.find(key);
  if (it == object.end() || it->value().is_null()) return nullptr;
  return &it->value();
}

std::vector<std::string> strings_member(const json::object& object, std::string_view key) {
  std::vector<std::string> out;
  if (const json::array* values = array_at(object, key))
    for (const auto& value : *values) out.push_back(value.is_string() ? std::string(value.as_string()) : std::string());
  return out;
}

std::string to_lower(std::string_view value) {
  std::string out(value);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string join(const std::vector<std::string>& values, std::string_view separator) {
  std::string out;
  for (std::size_t i = 0; i < values.size(); ++i) out += (i ? std::string(separator) : std::string()) + values[i];
  return out;
}

// Go's %#v of a []string.
std::string go_string_slice(const json::object& object, std::string_view key) {
  const json::array* values = array_at(object, key);
  return values ? registry::fields::go_string_slice(values) : "[]string(nil)";
}

// --- the internal view: per-version fields that are identical everywhere move to the spec -----------------------

// apiequality.Semantic.DeepEqual of two optional JSON values: absent and null are nil; an empty list is nil too.
bool semantic_equal(const json::value* a, const json::value* b, bool empty_array_is_nil) {
  auto normalize = [&](const json::value* v) -> const json::value* {
    if (v && empty_array_is_nil && v->is_array() && v->as_array().empty()) return nullptr;
    return v;
  };
  a = normalize(a);
  b = normalize(b);
  if (!a || !b) return a == b;
  return *a == *b;
}

struct Version {
  const json::object* object = nullptr;
  std::string name;
  bool served = false;
  bool storage = false;
  bool deprecated = false;
  const json::value* deprecation_warning = nullptr;
  const json::value* schema = nullptr;        // CustomResourceValidation, null once moved to the spec
  const json::value* subresources = nullptr;  // null once moved to the spec
  const json::value* columns = nullptr;       // null once moved to the spec
};

struct Spec {
  const json::object* object = &empty_object();
  std::string group;
  std::string scope;
  const json::object* names = &empty_object();
  std::vector<Version> versions;
  bool versions_present = false;
  const json::value* validation = nullptr;
  const json::value* subresources = nullptr;
  const json::value* columns = nullptr;
  bool preserve_unknown_fields = false;
  const json::object* conversion = nullptr;
};

Spec internal_spec(const json::object& crd) {
  Spec spec;
  spec.object = &object_or_empty(crd, "spec");
  const json::object& s = *spec.object;
  spec.group = string_at(s, "group");
  spec.scope = string_at(s, "scope");
  spec.names = &object_or_empty(s, "names");
  spec.preserve_unknown_fields = bool_at(s, "preserveUnknownFields");
  spec.conversion = object_at(s, "conversion");
  if (const json::array* versions = array_at(s, "versions")) {
    spec.versions_present = true;
    for (const auto& value : *versions) {
      const json::object& v = value.is_object() ? value.as_object() : empty_object();
      Version version;
      version.object = &v;
      version.name = string_at(v, "name");
      version.served = bool_at(v, "served");
      version.storage = bool_at(v, "storage");
      version.deprecated = bool_at(v, "deprecated");
      version.deprecation_warning = member(v, "deprecationWarning");
      version.schema = member(v, "schema");
      version.subresources = member(v, "subresources");
      version.columns = member(v, "additionalPrinterColumns");
      spec.versions.push_back(version);
    }
  }
  if (spec.versions.empty()) return spec;
  // Convert_v1_CustomResourceDefinitionSpec_To_apiextensions_CustomResourceDefinitionSpec.
  bool same_schema = true, same_subresources = true, same_columns = true;
  const Version& first = spec.versions.front();
  for (const Version& v : spec.versions) {
    same_schema = same_schema && semantic_equal(v.schema, first.schema, false);
    same_subresources = same_subresources && semantic_equal(v.subresources, first.subresources, false);
    same_columns = same_columns && semantic_equal(v.columns, first.columns, true);
  }
  if (same_schema) spec.validation = first.schema;
  if (same_subresources) spec.subresources = first.subresources;
  if (same_columns) spec.columns = first.columns;
  for (Version& v : spec.versions) {
    if (same_schema) v.schema = nullptr;
    if (same_subresources) v.subresources = nullptr;
    if (same_columns) v.columns = nullptr;
  }
  return spec;
}

const json::object* open_api_schema(const json::value* validation) {
  if (!validation || !validation->is_object()) return nullptr;
  return object_at(validation->as_object(), "openAPIV3Schema");
}

bool has_status(const json::value* subresources) {
  return subresources && subresources->is_object() && member(subresources->as_object(), "status");
}

// Go's %#v of the internal spec.versions, as kube prints the value of its errors about the list. Pointers that
// are set print as (*T)(0xc000000000): Go prints an address there, which no client can rely on.
std::string go_versions(const Spec& spec) {
  if (!spec.versions_present) return "[]apiextensions.CustomResourceDefinitionVersion(nil)";
  auto pointer = [](std::string_view type, const json::value* value) {
    return "(*" + std::string(type) + ")(" + (value ? "0xc000000000" : "nil") + ")";
  };
  std::string out = "[]apiextensions.CustomResourceDefinitionVersion{";
  for (std::size_t i = 0; i < spec.versions.size(); ++i) {
    const Version& v = spec.versions[i];
    out += i ? ", " : "";
    out += "apiextensions.CustomResourceDefinitionVersion{Name:" + validation::quoted(v.name) +
           ", Served:" + (v.served ? "true" : "false") + ", Storage:" + (v.storage ? "true" : "false") +
           ", Deprecated:" + (v.deprecated ? "true" : "false") +
           ", DeprecationWarning:" + pointer("string", v.deprecation_warning) +
           ", Schema:" + pointer("apiextensions.CustomResourceValidation", v.schema) +
           ", Subresources:" + pointer("apiextensions.CustomResourceSubresources", v.subresources) +
           ", AdditionalPrinterColumns:[]apiextensions.CustomResourceColumnDefinition";
    if (!v.columns || !v.columns->is_array()) {
      out += "(nil)";
    } else {
      out += "{";
      bool first = true;
      for (const auto& c : v.columns->as_array()) {
        const json::object& col = c.is_object() ? c.as_object() : empty_object();
        const json::value* priority = member(col, "priority");
        out += std::string(first ? "" : ", ") + "apiextensions.CustomResourceColumnDefinition{Name:" +
               validation::quoted(string_at(col, "name")) + ", Type:" + validation::quoted(string_at(col, "type")) +
               ", Format:" + validation::quoted(string_at(col, "format")) +
               ", Description:" + validation::quoted(string_at(col, "description")) +
               ", Priority:" + (priority && priority->is_int64() ? std::to_string(priority->as_int64()) : "0") +
               ", JSONPath:" + validation::quoted(string_at(col, "jsonPath")) + "}";
        first = false;
      }
      out += "}";
    }
    out += ", SelectableFields:[]apiextensions.SelectableField";
    const json::array* selectable = array_at(*v.object, "selectableFields");
    if (!selectable) {
      out += "(nil)";
    } else {
      out += "{";
      bool first = true;
      for (const auto& f : *selectable) {
        const json::object& field = f.is_object() ? f.as_object() : empty_object();
        out += std::string(first ? "" : ", ") + "apiextensions.SelectableField{JSONPath:" +
               validation::quoted(string_at(field, "jsonPath")) + "}";
        first = false;
      }
      out += "}";
    }
    out += "}";
  }
  return out + "}";
}

// --- the checks ------------------------------------------------------------------------------------------------

// ValidateCustomResourceDefinitionNames.
ErrorList validate_names(const json::object& names, const Path& path) {
  ErrorList errors;
  std::string plural(string_at(names, "plural")), singular(string_at(names, "singular"));
  std::string kind(string_at(names, "kind")), list_kind(string_at(names, "listKind"));
  if (auto e = validation::is_dns1035_label(plural); !plural.empty() && !e.empty())
    errors.push_back(validation::invalid(path.child("plural"), plural, join(e, ",")));
  if (auto e = validation::is_dns1035_label(singular); !singular.empty() && !e.empty())
    errors.push_back(validation::invalid(path.child("singular"), singular, join(e, ",")));
  if (auto e = validation::is_dns1035_label(to_lower(kind)); !kind.empty() && !e.empty())
    errors.push_back(validation::invalid(path.child("kind"), kind, "may have mixed case, but should otherwise match: " + join(e, ",")));
  if (auto e = validation::is_dns1035_label(to_lower(list_kind)); !list_kind.empty() && !e.empty())
    errors.push_back(
        validation::invalid(path.child("listKind"), list_kind, "may have mixed case, but should otherwise match: " + join(e, ",")));
  auto short_names = strings_member(names, "shortNames");
  for (std::size_t i = 0; i < short_names.size(); ++i)
    if (auto e = validation::is_dns1035_label(short_names[i]); !e.empty())
      errors.push_back(validation::invalid(path.child("shortNames").index(i), short_names[i], join(e, ",")));
  if (!kind.empty() && kind == list_kind)
    errors.push_back(validation::invalid(path.child("listKind"), list_kind, "kind and listKind may not be the same"));
  auto categories = strings_member(names, "categories");
  for (std::size_t i = 0; i < categories.size(); ++i)
    if (auto e = validation::is_dns1035_label(categories[i]); !e.empty())
      errors.push_back(validation::invalid(path.child("categories").index(i), categories[i], join(e, ",")));
  return errors;
}

// validateSimpleJSONPath.
ErrorList validate_simple_json_path(const std::string& s, const Path& path) {
  if (s.empty()) return {validation::invalid(path, s, "must not be empty")};
  if (s[0] != '.') return {validation::invalid(path, s, "must be a simple json path starting with .")};
  return {};
}

// ValidateCustomResourceDefinitionSubresources.
ErrorList validate_subresources(const json::value* subresources, const Path& path) {
  ErrorList errors;
  if (!subresources || !subresources->is_object()) return errors;
  const json::object* scale = object_at(subresources->as_object(), "scale");
  if (!scale) return errors;
  std::string spec_path(string_at(*scale, "specReplicasPath"));
  Path spec_field = path.child("scale.specReplicasPath");
  if (spec_path.empty()) {
    errors.push_back(validation::required(spec_field));
  } else if (auto e = validate_simple_json_path(spec_path, spec_field); !e.empty()) {
    append(errors, std::move(e));
  } else if (!spec_path.starts_with(".spec.")) {
    errors.push_back(validation::invalid(spec_field, spec_path, "should be a json path under .spec"));
  }
  std::string status_path(string_at(*scale, "statusReplicasPath"));
  Path status_field = path.child("scale.statusReplicasPath");
  if (status_path.empty()) {
    errors.push_back(validation::required(status_field));
  } else if (auto e = validate_simple_json_path(status_path, status_field); !e.empty()) {
    append(errors, std::move(e));
  } else if (!status_path.starts_with(".status.")) {
    errors.push_back(validation::invalid(status_field, status_path, "should be a json path under .status"));
  }
  std::string selector_path(string_at(*scale, "labelSelectorPath"));
  Path selector_field = path.child("scale.labelSelectorPath");
  if (!selector_path.empty()) {
    if (auto e = validate_simple_json_path(selector_path, selector_field); !e.empty()) {
      append(errors, std::move(e));
    } else if (!selector_path.starts_with(".spec.") && !selector_path.starts_with(".status.")) {
      errors.push_back(validation::invalid(selector_field, selector_path, "should be a json path under either .spec or .status"));
    }
  }
  return errors;
}

// ValidateCustomResourceColumnDefinition.
ErrorList validate_column(const json::value& value, const Path& path) {
  static const std::set<std::string, std::less<>> kTypes = {"boolean", "date", "integer", "number", "string"};
  static const std::set<std::string, std::less<>> kFormats = {"byte", "date", "date-time", "double",
                                                              "float", "int32", "int64", "password"};
  const std::string types_detail = "must be one of boolean,date,integer,number,string";
  ErrorList errors;
  const json::object& col = value.is_object() ? value.as_object() : empty_object();
  std::string name(string_at(col, "name")), type(string_at(col, "type"));
  std::string format(string_at(col, "format")), json_path(string_at(col, "jsonPath"));
  if (name.empty()) errors.push_back(validation::required(path.child("name")));
  if (type.empty()) errors.push_back(validation::required(path.child("type"), types_detail));
  else if (!kTypes.contains(type)) errors.push_back(validation::invalid(path.child("type"), type, types_detail));
  if (!format.empty() && !kFormats.contains(format))
    errors.push_back(validation::invalid(path.child("format"), format,
                                         "must be one of byte,date,date-time,double,float,int32,int64,password"));
  // kube names the field by its Go name here.
  if (json_path.empty()) errors.push_back(validation::required(path.child("JSONPath")));
  else append(errors, validate_simple_json_path(json_path, path.child("JSONPath")));
  return errors;
}

ErrorList validate_columns(const json::value* columns, const Path& path) {
  ErrorList errors;
  if (!columns || !columns->is_array()) return errors;
  for (std::size_t i = 0; i < columns->as_array().size(); ++i)
    append(errors, validate_column(columns->as_array()[i], path.index(i)));
  return errors;
}

// The root schema's members in JSONSchemaProps' field order, and whether kube allows each at the root of a schema
// whose CRD enables the status subresource.
struct RootField {
  std::string_view json_name;
  bool allowed;
};
constexpr std::array<RootField, 44> kRootFields = {{
    {"id", false}, {"$schema", false}, {"$ref", false}, {"description", true}, {"type", true}, {"nullable", false},
    {"format", true}, {"title", true}, {"default", false}, {"maximum", true}, {"exclusiveMaximum", true},
    {"minimum", true}, {"exclusiveMinimum", true}, {"maxLength", true}, {"minLength", true}, {"pattern", true},
    {"maxItems", true}, {"minItems", true}, {"uniqueItems", true}, {"multipleOf", true}, {"enum", false},
    {"maxProperties", false}, {"minProperties", false}, {"required", true}, {"items", true}, {"allOf", false},
    {"oneOf", false}, {"anyOf", false}, {"not", false}, {"properties", true}, {"additionalProperties", false},
    {"patternProperties", false}, {"dependencies", false}, {"additionalItems", false}, {"definitions", false},
    {"externalDocs", true}, {"example", true}, {"x-kubernetes-preserve-unknown-fields", true},
    {"x-kubernetes-embedded-resource", false}, {"x-kubernetes-int-or-string", false},
    {"x-kubernetes-list-map-keys", false}, {"x-kubernetes-list-type", false}, {"x-kubernetes-map-type", false},
    {"x-kubernetes-validations", true},
}};

bool is_go_zero(std::string_view name, const json::value& value) {
  static const std::set<std::string_view> kPlainBools = {"nullable", "exclusiveMaximum", "exclusiveMinimum", "uniqueItems",
                                                         "x-kubernetes-embedded-resource", "x-kubernetes-int-or-string"};
  static const std::set<std::string_view> kPlainStrings = {"id", "$schema", "description", "type", "format", "title", "pattern"};
  if (value.is_null()) return true;
  if (kPlainBools.contains(name)) return value.is_bool() && !value.as_bool();
  if (kPlainStrings.contains(name)) return value.is_string() && value.as_string().empty();
  return false;
}

// validateCustomResourceDefinitionValidation: the status-subresource rule on the root, then the schema checks,
// then the x-kubernetes-validations rules (compiled only when the schema is otherwise valid, as kube does).
ErrorList validate_validation(const json::value* validation_value, bool status_enabled, const Path& path,
                              bool unchanged_schema, const cel::PreexistingExpressions& preexisting) {
  ErrorList errors;
  const json::object* root = open_api_schema(validation_value);
  if (!root) return errors;
  Path schema_path = path.child("openAPIV3Schema");
  if (status_enabled) {
    for (const RootField& field : kRootFields) {
      const json::value* value = member(*root, field.json_name);
      if (!value || is_go_zero(field.json_name, *value)) continue;
      if (field.json_name == "type") {
        if (value->is_string() && value->as_string() == "object") continue;
        errors.push_back(validation::invalid(path.child("openAPIV3Schema.type"),
                                             value->is_string() ? std::string_view(value->as_string()) : "",
                                             R"(only "object" is allowed as the type at the root of the schema if the status subresource is enabled)"));
        break;
      }
      if (!field.allowed) {
        errors.push_back(validation::invalid_value(
            schema_path, "apiextensions.JSONSchemaProps{...}",
            "only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength "
            "Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example "
            "XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource "
            "is enabled"));
        break;
      }
    }
  }
  schema::Schema parsed = schema::parse_schema(*root);
  ErrorList schema_errors = schema::validate_crd_schema(parsed, schema_path);
  cel::CrdRuleCheckOptions rule_options{.compile = schema_errors.empty(),
                                        .suppress_per_expression_cost = unchanged_schema,
                                        .preexisting = &preexisting};
  append(errors, std::move(schema_errors));
  append(errors, cel::validate_crd_rules(parsed, schema_path, rule_options));
  return errors;
}

bool schema_has_defaults(const schema::Schema& s) {
  if (s.default_value) return true;
  for (const auto& p : s.properties)
    if (schema_has_defaults(p.schema)) return true;
  if (s.items && schema_has_defaults(*s.items)) return true;
  if (const schema::Schema* additional = s.additional_properties_schema(); additional && schema_has_defaults(*additional))
    return true;
  for (const auto* junctor : {&s.all_of, &s.any_of, &s.one_of})
    for (const auto& j : *junctor)
      if (schema_has_defaults(j)) return true;
  return s.not_schema && schema_has_defaults(*s.not_schema);
}

bool spec_has_defaults(const Spec& spec) {
  auto has = [](const json::value* validation_value) {
    const json::object* root = open_api_schema(validation_value);
    return root && schema_has_defaults(schema::parse_schema(*root));
  };
  if (has(spec.validation)) return true;
  return std::any_of(spec.versions.begin(), spec.versions.end(), [&](const Version& v) { return has(v.schema); });
}

// allVersionsSpecifyOpenAPISchema.
bool all_versions_specify_schema(const Spec& spec) {
  if (open_api_schema(spec.validation)) return true;
  return std::all_of(spec.versions.begin(), spec.versions.end(), [](const Version& v) { return open_api_schema(v.schema); });
}

// validateDeprecationWarning.
std::vector<std::string> deprecation_warning_errors(bool deprecated, const json::value* warning) {
  if (!deprecated && warning) return {"can only be set for deprecated versions"};
  if (!warning) return {};
  std::string text = warning->is_string() ? std::string(warning->as_string()) : std::string();
  std::vector<std::string> errors;
  if (text.size() > 256) errors.push_back("must be <= 256 characters long");
  if (text.empty()) errors.push_back("must not be an empty string");
  for (std::size_t i = 0; i < text.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f) {
      errors.push_back("must only contain printable UTF-8 characters; non-printable character found at index " + std::to_string(i));
      break;
    }
  }
  return errors;
}

struct Options {
  bool require_open_api_schema = true;
  bool require_immutable_names = false;
  // Versions whose schema an update leaves as it was: their rules' per-expression cost is not held against them.
  std::set<std::string> unchanged_schema_versions;
  // The x-kubernetes-validations expressions of the CRD as stored (findPreexistingExpressions).
  cel::PreexistingExpressions preexisting_expressions;
};

bool is_established(const json::object& crd) {
  const json::array* conditions = array_at(object_or_empty(crd, "status"), "conditions");
  if (!conditions) return false;
  for (const auto& c : *conditions) {
    if (!c.is_object()) continue;
    if (string_at(c.as_object(), "type") == "Established") return string_at(c.as_object(), "status") == "True";
  }
  return false;
}

// validateCustomResourceConversion, with kapi's refusal of webhook conversion.
ErrorList validate_conversion(const Spec& spec, const Path& path) {
  ErrorList errors;
  if (!spec.conversion) return errors;
  std::string strategy(string_at(*spec.conversion, "strategy"));
  if (strategy != "None" && spec.preserve_unknown_fields)
    errors.push_back(validation::invalid(path.child("strategy"), strategy, "must be None if spec.preserveUnknownFields is true"));
  if (strategy.empty()) {
    errors.push_back(validation::required(path.child("strategy")));
  } else if (strategy == "Webhook") {
    // kapi deviation: kube accepts Webhook and calls the webhook to convert; kapi has no webhook client.
    errors.push_back(validation::forbidden(
        path.child("strategy"), "webhook conversion is not supported by this server (kapi); use strategy None"));
    return errors;
  } else if (strategy != "None") {
    errors.push_back(validation::not_supported(path.child("strategy"), strategy, {"None", "Webhook"}));
  }
  const json::object& webhook = object_or_empty(*spec.conversion, "webhook");
  if (member(webhook, "clientConfig"))
    errors.push_back(validation::forbidden(path.child("webhookClientConfig"), "should not be set when strategy is not set to Webhook"));
  if (const json::array* review = array_at(webhook, "conversionReviewVersions"); review && !review->empty())
    errors.push_back(validation::forbidden(path.child("conversionReviewVersions"), "should not be set when strategy is not set to Webhook"));
  return errors;
}

// validateCustomResourceDefinitionSpec.
ErrorList validate_spec(const Spec& spec, const Options& opts, const Path& path) {
  ErrorList errors;
  if (spec.group.empty()) {
    errors.push_back(validation::required(path.child("group")));
  } else if (auto e = validation::is_dns1123_subdomain(spec.group); !e.empty()) {
    errors.push_back(validation::invalid(path.child("group"), spec.group, join(e, ",")));
  } else if (spec.group.find('.') == std::string::npos) {
    errors.push_back(validation::invalid(path.child("group"), spec.group, "should be a domain with at least one dot"));
  }

  if (spec.scope.empty()) errors.push_back(validation::required(path.child("scope")));
  else if (spec.scope != "Cluster" && spec.scope != "Namespaced")
    errors.push_back(validation::not_supported(path.child("scope"), spec.scope, {"Cluster", "Namespaced"}));

  if (opts.require_open_api_schema) {
    if (!open_api_schema(spec.validation))
      for (std::size_t i = 0; i < spec.versions.size(); ++i)
        if (!open_api_schema(spec.versions[i].schema))
          errors.push_back(validation::required(path.child("versions").index(i).child("schema").child("openAPIV3Schema"),
                                                "schemas are required"));
  } else if (!spec.preserve_unknown_fields) {
    if (!open_api_schema(spec.validation))
      for (std::size_t i = 0; i < spec.versions.size(); ++i)
        if (spec.versions[i].served && !open_api_schema(spec.versions[i].schema))
          errors.push_back(validation::required(path.child("versions").index(i).child("schema").child("openAPIV3Schema"),
                                                "because otherwise all fields are pruned"));
  }
  if (spec.preserve_unknown_fields && spec_has_defaults(spec))
    errors.push_back(validation::invalid_value(path.child("preserveUnknownFields"), "true",
                                               "must be false in order to use defaults in the schema"));

  int storage_count = 0;
  std::set<std::string> seen;
  bool unique = true;
  bool any_status = has_status(spec.subresources);
  for (const Version& v : spec.versions) any_status = any_status || has_status(v.subresources);
  bool per_version_subresources =
      std::any_of(spec.versions.begin(), spec.versions.end(), [](const Version& v) { return v.subresources != nullptr; });
  for (std::size_t i = 0; i < spec.versions.size(); ++i) {
    const Version& v = spec.versions[i];
    Path version_path = path.child("versions").index(i);
    if (v.storage) ++storage_count;
    if (!seen.insert(v.name).second) unique = false;
    if (auto e = validation::is_dns1035_label(v.name); !e.empty())
      errors.push_back(validation::invalid(version_path.child("name"), v.name, join(e, ",")));
    // validateCustomResourceDefinitionVersion.
    std::string warning = v.deprecation_warning && v.deprecation_warning->is_string()
                              ? std::string(v.deprecation_warning->as_string())
                              : std::string();
    for (auto& message : deprecation_warning_errors(v.deprecated, v.deprecation_warning))
      errors.push_back(validation::invalid(version_path.child("deprecationWarning"), warning, message));
    const json::value* subresources = per_version_subresources ? v.subresources : spec.subresources;
    append(errors, validate_validation(v.schema, has_status(subresources), version_path.child("schema"),
                                       opts.unchanged_schema_versions.contains(v.name), opts.preexisting_expressions));
    append(errors, validate_subresources(v.subresources, version_path.child("subresources")));
    append(errors, validate_columns(v.columns, version_path.child("additionalPrinterColumns")));
  }
  if (!unique) errors.push_back(validation::invalid_value(path.child("versions"), go_versions(spec), "must contain unique version names"));
  if (storage_count != 1)
    errors.push_back(validation::invalid_value(path.child("versions"), go_versions(spec),
                                               "must have exactly one version marked as storage version"));
  // The internal spec.version is versions[0].name.
  if (!spec.versions.empty() && !spec.versions[0].name.empty())
    if (auto e = validation::is_dns1035_label(spec.versions[0].name); !e.empty())
      errors.push_back(validation::invalid(path.child("version"), spec.versions[0].name, join(e, ",")));

  Path names_path = path.child("names");
  for (std::string_view name : {"plural", "singular", "kind", "listKind"})
    if (string_at(*spec.names, name).empty()) errors.push_back(validation::required(names_path.child(name)));
  append(errors, validate_names(*spec.names, names_path));
  bool unchanged = !spec.versions.empty() && opts.unchanged_schema_versions.contains(spec.versions[0].name);
  append(errors, validate_validation(spec.validation, any_status, path.child("validation"), unchanged,
                                     opts.preexisting_expressions));
  append(errors, validate_subresources(spec.subresources, path.child("subresources")));
  append(errors, validate_columns(spec.columns, path.child("additionalPrinterColumns")));
  append(errors, validate_conversion(spec, path.child("conversion")));
  return errors;
}

// ValidateCustomResourceDefinitionStoredVersions.
ErrorList validate_stored_versions(const json::object& crd, const Spec& spec) {
  Path path = Path("status").child("storedVersions");
  const json::object& status = object_or_empty(crd, "status");
  std::vector<std::string> stored = strings_member(status, "storedVersions");
  if (stored.empty()) return {validation::invalid_value(path, go_string_slice(status, "storedVersions"), "must have at least one stored version")};
  ErrorList errors;
  std::set<std::string> in_spec;
  for (const Version& v : spec.versions) {
    bool stored_here = std::find(stored.begin(), stored.end(), v.name) != stored.end();
    if (v.storage && !stored_here)
      errors.push_back(validation::invalid_value(path, go_string_slice(status, "storedVersions"), "must have the storage version " + v.name));
    in_spec.insert(v.name);
  }
  // Go maps each name to its last index and reports the names missing from spec.versions in random order; kapi
  // reports them in list order, each once, at its last index.
  for (std::size_t i = 0; i < stored.size(); ++i) {
    const std::string& v = stored[i];
    if (in_spec.contains(v) || std::find(stored.begin() + static_cast<std::ptrdiff_t>(i) + 1, stored.end(), v) != stored.end())
      continue;
    errors.push_back(validation::invalid(
        path.index(i), v,
        "missing from spec.versions; " + v + " was previously a storage version, and must remain in spec.versions until a "
        "storage migration ensures no data remains persisted in " + v + " and removes " + v + " from status.storedVersions"));
  }
  return errors;
}

ErrorList validate_status(const json::object& crd) {
  const json::object& status = object_or_empty(crd, "status");
  return validate_names(object_or_empty(status, "acceptedNames"), Path("status").child("acceptedNames"));
}

// apihelpers.IsProtectedCommunityGroup.
bool is_protected_group(std::string_view group) {
  return group == "k8s.io" || group.ends_with(".k8s.io") || group == "kubernetes.io" || group.ends_with(".kubernetes.io");
}

constexpr std::string_view kApprovalAnnotation = "api-approved.kubernetes.io";

enum class Approval { Missing, Invalid, Bypassed, Approved };

// url.ParseRequestURI's acceptance, nearly: an absolute URI (scheme:rest) or an absolute path.
bool parses_as_request_uri(std::string_view value) {
  if (value.starts_with("/")) return true;
  auto colon = value.find(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  if (!std::isalpha(static_cast<unsigned char>(value[0]))) return false;
  for (char c : value.substr(0, colon))
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.') return false;
  return value.find(' ') == std::string_view::npos;
}

std::pair<Approval, std::string> approval_state(const json::object& crd) {
  std::string annotation(string_at(object_or_empty(object_or_empty(crd, "metadata"), "annotations"), kApprovalAnnotation));
  if (annotation.empty())
    return {Approval::Missing, "protected groups must have approval annotation \"api-approved.kubernetes.io\", see "
                               "https://github.com/kubernetes/enhancements/pull/1111"};
  if (annotation.starts_with("unapproved")) return {Approval::Bypassed, ""};
  if (!parses_as_request_uri(annotation))
    return {Approval::Invalid, "protected groups must have approval annotation \"api-approved.kubernetes.io\" with either a "
                               "URL or a reason starting with \"unapproved\", see https://github.com/kubernetes/enhancements/pull/1111"};
  return {Approval::Approved, ""};
}

// validateAPIApproval.
ErrorList validate_api_approval(const json::object& crd, const json::object* old) {
  if (!is_protected_group(string_at(object_or_empty(crd, "spec"), "group"))) return {};
  auto [state, reason] = approval_state(crd);
  if (old && approval_state(*old).first == state) return {};
  Path path = Path("metadata").child("annotations").key(kApprovalAnnotation);
  std::string value(string_at(object_or_empty(object_or_empty(crd, "metadata"), "annotations"), kApprovalAnnotation));
  switch (state) {
    case Approval::Missing: return {validation::required(path, reason)};
    case Approval::Invalid: return {validation::invalid(path, value, reason)};
    case Approval::Bypassed:
    case Approval::Approved: return {};
  }
  return {};
}

// validatePreserveUnknownFields.
ErrorList validate_preserve_unknown_fields(const json::object& crd, const json::object* old) {
  if (old && bool_at(object_or_empty(*old, "spec"), "preserveUnknownFields")) return {};
  if (!bool_at(object_or_empty(crd, "spec"), "preserveUnknownFields")) return {};
  return {validation::invalid_value(Path("spec").child("preserveUnknownFields"), "true",
                                    "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in "
                                    "spec.versions[*].schema instead")};
}

void immutable(ErrorList& errors, std::string_view value, std::string_view old_value, const Path& path) {
  if (value != old_value) errors.push_back(validation::invalid(path, value, "field is immutable"));
}

}  // namespace

void default_crd(json::object& crd) {
  json::value* spec_value = crd.if_contains("spec");
  if (!spec_value || !spec_value->is_object()) return;
  json::object& spec = spec_value->as_object();
  if (json::value* names_value = spec.if_contains("names"); names_value && names_value->is_object()) {
    json::object& names = names_value->as_object();
    std::string kind(string_at(names, "kind"));
    if (string_at(names, "singular").empty() && !kind.empty()) names["singular"] = to_lower(kind);
    if (string_at(names, "listKind").empty() && !kind.empty()) names["listKind"] = kind + "List";
  }
  if (!object_at(spec, "conversion")) spec["conversion"] = json::object{{"strategy", "None"}};
  json::object& conversion = spec["conversion"].as_object();
  if (json::object* webhook = conversion.if_contains("webhook") ? conversion["webhook"].if_object() : nullptr)
    if (json::object* config = webhook->if_contains("clientConfig") ? (*webhook)["clientConfig"].if_object() : nullptr)
      if (json::object* service = config->if_contains("service") ? (*config)["service"].if_object() : nullptr)
        if (!member(*service, "port")) (*service)["port"] = 443;

  // SetDefaults_CustomResourceDefinition: the storage version is stored when no version is recorded.
  const json::object* status = object_at(crd, "status");
  if (status && !strings_member(*status, "storedVersions").empty()) return;
  if (const json::array* versions = array_at(spec, "versions")) {
    for (const auto& v : *versions) {
      if (!v.is_object() || !bool_at(v.as_object(), "storage")) continue;
      json::value& status_value = crd["status"];
      if (!status_value.is_object()) status_value = json::object();
      status_value.as_object()["storedVersions"] = json::array{json::string(string_at(v.as_object(), "name"))};
      break;
    }
  }
}

ErrorList validate_crd(const json::object& crd) {
  ErrorList errors;
  Spec spec = internal_spec(crd);
  // ValidateObjectMeta's name function: the syntax is the store's check, the name's relation to the spec is this.
  const json::object& meta = object_or_empty(crd, "metadata");
  std::string required_name = std::string(string_at(*spec.names, "plural")) + "." + spec.group;
  const std::string plural_detail = R"(must be spec.names.plural+"."+spec.group)";
  if (std::string generate_name(string_at(meta, "generateName")); !generate_name.empty() && generate_name != required_name)
    errors.push_back(validation::invalid(Path("metadata").child("generateName"), generate_name, plural_detail));
  if (std::string name(string_at(meta, "name")); !name.empty() && name != required_name)
    errors.push_back(validation::invalid(Path("metadata").child("name"), name, plural_detail));
  append(errors, validate_spec(spec, Options{}, Path("spec")));
  append(errors, validate_status(crd));
  append(errors, validate_stored_versions(crd, spec));
  append(errors, validate_api_approval(crd, nullptr));
  append(errors, validate_preserve_unknown_fields(crd, nullptr));
  return errors;
}

ErrorList validate_crd_update(const json::object& crd, const json::object& old) {
  Spec spec = internal_spec(crd);
  Spec old_spec = internal_spec(old);
  Options opts;
  opts.require_open_api_schema = all_versions_specify_schema(old_spec);
  opts.require_immutable_names = is_established(old);
  // findVersionsWithUnchangedSchemas, on the v1 form: a version's schema as written before and now.
  if (const json::array* versions = array_at(object_or_empty(crd, "spec"), "versions"))
    if (const json::array* old_versions = array_at(object_or_empty(old, "spec"), "versions"))
      for (const auto& version : *versions)
        for (const auto& old_version : *old_versions)
          if (version.is_object() && old_version.is_object() &&
              string_at(version.as_object(), "name") == string_at(old_version.as_object(), "name") &&
              semantic_equal(member(version.as_object(), "schema"), member(old_version.as_object(), "schema"), false))
            opts.unchanged_schema_versions.insert(std::string(string_at(version.as_object(), "name")));
  std::vector<const json::value*> old_schemas = {old_spec.validation};
  for (const Version& version : old_spec.versions) old_schemas.push_back(version.schema);
  for (const json::value* validation : old_schemas)
    if (const json::object* root = open_api_schema(validation))
      cel::collect_expressions(schema::parse_schema(*root), opts.preexisting_expressions);
  Path path("spec");
  ErrorList errors = validate_spec(spec, opts, path);
  if (opts.require_immutable_names) {
    immutable(errors, spec.scope, old_spec.scope, path.child("scope"));
    immutable(errors, string_at(*spec.names, "kind"), string_at(*old_spec.names, "kind"), path.child("names").child("kind"));
  }
  immutable(errors, spec.group, old_spec.group, path.child("group"));
  immutable(errors, string_at(*spec.names, "plural"), string_at(*old_spec.names, "plural"), path.child("names").child("plural"));
  append(errors, validate_status(crd));
  append(errors, validate_stored_versions(crd, spec));
  append(errors, validate_api_approval(crd, &old));
  append(errors, validate_preserve_unknown_fields(crd, &old));
  return errors;
}

ErrorList validate_crd_status(const json::object& crd) { return validate_status(crd); }

}  // namespace kapi::apiextensions
