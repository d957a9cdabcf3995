#include "server/apiextensions/crd_decoding.h"

#include "base/base64.h"
#include "base/go_json_errors.h"
#include "base/go_time.h"
#include "server/apierrors/errors.h"
#include "server/schema/decoding.h"

#include <boost/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <utility>

namespace kapi::apiextensions {
namespace {

namespace json = boost::json;

// A struct field: its JSON name and its Go type as Go spells it ("*T" is read as T, which is what errors name).
struct Field {
  std::string_view json;
  std::string_view type;
};

// apiextensions/v1's structs, field for field.
const std::map<std::string_view, std::vector<Field>>& structs() {
  static const std::map<std::string_view, std::vector<Field>> kStructs = {
      {"CustomResourceDefinition",
       {{"apiVersion", "string"},  // TypeMeta's, inline
        {"kind", "string"},
        {"metadata", "v1.ObjectMeta"},
        {"spec", "v1.CustomResourceDefinitionSpec"},
        {"status", "v1.CustomResourceDefinitionStatus"}}},
      {"CustomResourceDefinitionSpec",
       {{"group", "string"},
        {"names", "v1.CustomResourceDefinitionNames"},
        {"scope", "v1.ResourceScope"},
        {"versions", "[]v1.CustomResourceDefinitionVersion"},
        {"conversion", "v1.CustomResourceConversion"},
        {"preserveUnknownFields", "bool"}}},
      {"CustomResourceConversion", {{"strategy", "v1.ConversionStrategyType"}, {"webhook", "v1.WebhookConversion"}}},
      {"WebhookConversion", {{"clientConfig", "v1.WebhookClientConfig"}, {"conversionReviewVersions", "[]string"}}},
      {"WebhookClientConfig", {{"url", "string"}, {"service", "v1.ServiceReference"}, {"caBundle", "[]uint8"}}},
      {"ServiceReference", {{"namespace", "string"}, {"name", "string"}, {"path", "string"}, {"port", "int32"}}},
      {"CustomResourceDefinitionVersion",
       {{"name", "string"},
        {"served", "bool"},
        {"storage", "bool"},
        {"deprecated", "bool"},
        {"deprecationWarning", "string"},
        {"schema", "v1.CustomResourceValidation"},
        {"subresources", "v1.CustomResourceSubresources"},
        {"additionalPrinterColumns", "[]v1.CustomResourceColumnDefinition"},
        {"selectableFields", "[]v1.SelectableField"}}},
      {"SelectableField", {{"jsonPath", "string"}}},
      {"CustomResourceColumnDefinition",
       {{"name", "string"},
        {"type", "string"},
        {"format", "string"},
        {"description", "string"},
        {"priority", "int32"},
        {"jsonPath", "string"}}},
      {"CustomResourceDefinitionNames",
       {{"plural", "string"},
        {"singular", "string"},
        {"shortNames", "[]string"},
        {"kind", "string"},
        {"listKind", "string"},
        {"categories", "[]string"}}},
      {"CustomResourceDefinitionCondition",
       {{"type", "v1.CustomResourceDefinitionConditionType"},
        {"status", "v1.ConditionStatus"},
        {"lastTransitionTime", "v1.Time"},
        {"reason", "string"},
        {"message", "string"}}},
      {"CustomResourceDefinitionStatus",
       {{"conditions", "[]v1.CustomResourceDefinitionCondition"},
        {"acceptedNames", "v1.CustomResourceDefinitionNames"},
        {"storedVersions", "[]string"}}},
      {"CustomResourceValidation", {{"openAPIV3Schema", "v1.JSONSchemaProps"}}},
      {"CustomResourceSubresources",
       {{"status", "v1.CustomResourceSubresourceStatus"}, {"scale", "v1.CustomResourceSubresourceScale"}}},
      {"CustomResourceSubresourceStatus", {}},
      {"CustomResourceSubresourceScale",
       {{"specReplicasPath", "string"}, {"statusReplicasPath", "string"}, {"labelSelectorPath", "string"}}},
      {"JSONSchemaProps",
       {{"id", "string"},
        {"$schema", "v1.JSONSchemaURL"},
        {"$ref", "string"},
        {"description", "string"},
        {"type", "string"},
        {"format", "string"},
        {"title", "string"},
        {"default", "v1.JSON"},
        {"maximum", "float64"},
        {"exclusiveMaximum", "bool"},
        {"minimum", "float64"},
        {"exclusiveMinimum", "bool"},
        {"maxLength", "int64"},
        {"minLength", "int64"},
        {"pattern", "string"},
        {"maxItems", "int64"},
        {"minItems", "int64"},
        {"uniqueItems", "bool"},
        {"multipleOf", "float64"},
        {"enum", "[]v1.JSON"},
        {"maxProperties", "int64"},
        {"minProperties", "int64"},
        {"required", "[]string"},
        {"items", "v1.JSONSchemaPropsOrArray"},
        {"allOf", "[]v1.JSONSchemaProps"},
        {"oneOf", "[]v1.JSONSchemaProps"},
        {"anyOf", "[]v1.JSONSchemaProps"},
        {"not", "v1.JSONSchemaProps"},
        {"properties", "map[string]v1.JSONSchemaProps"},
        {"additionalProperties", "v1.JSONSchemaPropsOrBool"},
        {"patternProperties", "map[string]v1.JSONSchemaProps"},
        {"dependencies", "v1.JSONSchemaDependencies"},
        {"additionalItems", "v1.JSONSchemaPropsOrBool"},
        {"definitions", "v1.JSONSchemaDefinitions"},
        {"externalDocs", "v1.ExternalDocumentation"},
        {"example", "v1.JSON"},
        {"nullable", "bool"},
        {"x-kubernetes-preserve-unknown-fields", "bool"},
        {"x-kubernetes-embedded-resource", "bool"},
        {"x-kubernetes-int-or-string", "bool"},
        {"x-kubernetes-list-map-keys", "[]string"},
        {"x-kubernetes-list-type", "string"},
        {"x-kubernetes-map-type", "string"},
        {"x-kubernetes-validations", "v1.ValidationRules"}}},
      {"ValidationRule",
       {{"rule", "string"},
        {"message", "string"},
        {"messageExpression", "string"},
        {"reason", "v1.FieldValueErrorReason"},
        {"fieldPath", "string"},
        {"optionalOldSelf", "bool"}}},
      {"ExternalDocumentation", {{"description", "string"}, {"url", "string"}}},
  };
  return kStructs;
}

// The package's named types that are not structs, by what they are.
std::string_view underlying(std::string_view type) {
  static const std::map<std::string_view, std::string_view> kNamed = {
      {"v1.ResourceScope", "string"},
      {"v1.ConversionStrategyType", "string"},
      {"v1.CustomResourceDefinitionConditionType", "string"},
      {"v1.ConditionStatus", "string"},
      {"v1.JSONSchemaURL", "string"},
      {"v1.FieldValueErrorReason", "string"},
      {"v1.ValidationRules", "[]v1.ValidationRule"},
      {"v1.JSONSchemaDefinitions", "map[string]v1.JSONSchemaProps"},
      {"v1.JSONSchemaDependencies", "map[string]v1.JSONSchemaPropsOrStringArray"},
  };
  auto it = kNamed.find(type);
  return it == kNamed.end() ? type : it->second;
}

// An error encoding/json returns: an UnmarshalTypeError, which it labels with the field being decoded, or any
// other error (an unmarshaler's, base64's), whose text stands as it is.
struct DecodeError {
  std::optional<base::GoUnmarshalTypeError> type_error;
  std::string text;

  std::string message() const { return type_error ? type_error->message() : text; }
};

// encoding/json's decodeState over one json.Unmarshal call.
class Decoder {
 public:
  // Unknown fields are dropped and their paths ("spec.versions[0].foo") appended to `unknown`, except when
  // `lenient`: decoding inside an unmarshaler's own json.Unmarshal, which is not strict and drops them unreported.
  Decoder(const kapi::schema::Catalog& catalog, bool lenient, std::vector<std::string>& unknown)
      : catalog_(catalog), lenient_(lenient), unknown_(unknown) {}

  // json.Unmarshal's result: an unmarshaler's error at once, else the first saved one.
  std::optional<DecodeError> decode(std::string_view type, json::value& value, std::string path) {
    try {
      this->value(type, value, path);
    } catch (DecodeError& immediate) {
      return std::move(immediate);
    }
    return std::move(saved_);
  }

 private:
  // addErrorContext: a type error is named by the field being decoded (overwriting what a nested decoding named).
  DecodeError labelled(DecodeError error) const {
    if (error.type_error && (!owner_.empty() || !fields_.empty())) {
      error.type_error->owner = owner_;
      error.type_error->field.clear();
      for (const std::string& field : fields_)
        error.type_error->field += (error.type_error->field.empty() ? "" : ".") + field;
    }
    return error;
  }
  void save(DecodeError error) {
    if (!saved_) saved_ = labelled(std::move(error));
  }
  [[noreturn]] void fail(DecodeError error) const { throw labelled(std::move(error)); }
  void mismatch(const json::value& value, std::string_view type, std::string what = {}) {
    if (what.empty()) what = base::go_json_kind(value);
    save({.type_error = base::GoUnmarshalTypeError{.value = std::move(what), .type = std::string(type)}});
  }

  // An unmarshaler's json.Unmarshal of its own: whatever fails in it fails the whole decoding, named here.
  void nested(std::string_view type, json::value& value, const std::string& path) {
    Decoder inner(catalog_, true, unknown_);
    if (auto error = inner.decode(type, value, path)) fail(std::move(*error));
  }

  void value(std::string_view type, json::value& value, const std::string& path) {
    if (value.is_null()) return;  // null leaves a Go value as it is, and an unmarshaler ignores it
    const std::string_view shape = underlying(type);
    if (shape.starts_with("[]")) return list(type, shape.substr(2), value, path);
    if (shape.starts_with("map[string]")) {
      if (!value.is_object()) return mismatch(value, type);
      for (auto& member : value.as_object())
        this->value(shape.substr(11), member.value(), path + "[" + std::string(member.key()) + "]");
      return;
    }
    if (shape == "string") {
      if (!value.is_string()) mismatch(value, type);
    } else if (shape == "bool") {
      if (!value.is_bool()) mismatch(value, type);
    } else if (shape == "float64") {
      if (!value.is_number()) mismatch(value, type);
    } else if (shape == "int64" || shape == "int32") {
      integer(type, value);
    } else if (shape == "v1.JSON") {
      // JSON.UnmarshalJSON keeps any value as it is.
    } else if (shape == "v1.Time") {
      if (!value.is_string()) return mismatch(value, type);
      // metav1.Time's unmarshaler: its parse error ends decoding.
      auto parsed = base::parse_go_time(value.get_string(), base::TimeLayout::kRfc3339);
      if (!parsed.time) fail({.text = std::move(parsed.error)});
    } else if (shape == "v1.ObjectMeta") {
      if (!value.is_object()) return mismatch(value, type);
      const auto* meta = catalog_.message("k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta");
      if (auto error = kapi::schema::conform_embedded(catalog_, meta, value.as_object(), path, unknown_))
        save({.text = std::move(*error)});
    } else if (shape == "v1.JSONSchemaPropsOrArray" || shape == "v1.JSONSchemaPropsOrStringArray") {
      // A schema, or a list (of schemas, or of property names); anything else decodes as nothing.
      if (value.is_object()) nested("v1.JSONSchemaProps", value, path);
      else if (value.is_array())
        nested(shape == "v1.JSONSchemaPropsOrArray" ? "[]v1.JSONSchemaProps" : "[]string", value, path);
      else value = nullptr;
    } else if (shape == "v1.JSONSchemaPropsOrBool") {
      if (value.is_object()) nested("v1.JSONSchemaProps", value, path);
      else if (!value.is_bool()) fail({.text = "boolean or JSON schema expected"});
    } else {
      object(type, value, path);
    }
  }

  void list(std::string_view type, std::string_view element, json::value& value, const std::string& path) {
    if (element == "uint8") {  // []byte: standard base64 text
      if (!value.is_string()) return mismatch(value, type);
      if (auto bytes = base::base64_decode_with_error(value.get_string()); bytes.corrupt_at)
        save({.text = bytes.error()});
      return;
    }
    if (!value.is_array()) return mismatch(value, type);
    auto& items = value.as_array();
    for (std::size_t i = 0; i < items.size(); ++i)
      this->value(element, items[i], path + "[" + std::to_string(i) + "]");
  }

  void integer(std::string_view type, const json::value& value) {
    if (value.is_double()) return mismatch(value, type, "number " + base::go_number_literal(value));
    if (!value.is_int64() && !value.is_uint64()) return mismatch(value, type);
    const bool fits = type == "int32" ? value.is_int64() && value.get_int64() >= INT32_MIN &&
                                            value.get_int64() <= INT32_MAX
                                      : value.is_int64();
    if (!fits) mismatch(value, type, "number " + base::go_number_literal(value));
  }

  void object(std::string_view type, json::value& value, const std::string& path) {
    auto found = structs().find(type.substr(type.find('.') + 1));
    if (found == structs().end()) throw std::logic_error("no Go struct " + std::string(type));
    if (!value.is_object()) return mismatch(value, type);
    auto& members = value.as_object();
    bool dropped = false;
    for (auto& member : members) {
      const Field* field = nullptr;
      for (const Field& candidate : found->second)
        if (candidate.json == member.key()) field = &candidate;
      const std::string child = path.empty() ? std::string(member.key()) : path + "." + std::string(member.key());
      if (!field) {
        if (!lenient_) unknown_.push_back(child);
        dropped = true;
        continue;
      }
      const std::string saved_owner = std::exchange(owner_, std::string(found->first));
      fields_.emplace_back(field->json);
      this->value(field->type, member.value(), child);
      fields_.pop_back();
      owner_ = saved_owner;
    }
    if (!dropped) return;
    // Rebuilt rather than erased in place, which would move the last member into the gap.
    json::object kept(members.storage());
    for (auto& member : members) {
      for (const Field& candidate : found->second)
        if (candidate.json == member.key()) kept.emplace(member.key(), std::move(member.value()));
    }
    members = std::move(kept);
  }

  const kapi::schema::Catalog& catalog_;
  const bool lenient_;
  std::vector<std::string>& unknown_;
  std::optional<DecodeError> saved_;
  std::string owner_;                // errorContext.Struct
  std::vector<std::string> fields_;  // errorContext.FieldStack
};

}  // namespace

std::vector<std::string> decode_crd(const kapi::schema::Catalog& catalog, json::object& crd) {
  std::vector<std::string> unknown;
  json::value body = std::move(crd);
  std::optional<DecodeError> error = Decoder(catalog, false, unknown).decode("v1.CustomResourceDefinition", body, "");
  crd = std::move(body.as_object());
  if (error)
    throw apierrors::ApiError(apierrors::bad_request(
        "CustomResourceDefinition in version \"v1\" cannot be handled as a CustomResourceDefinition: " +
        error->message()));
  return unknown;
}

}  // namespace kapi::apiextensions
