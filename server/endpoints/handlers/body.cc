#include "server/endpoints/handlers/body.h"

#include "base/go_json_errors.h"
#include "server/registry/object_meta.h"
#include "server/schema/decoding.h"
#include "server/schema/duplicate_fields.h"
#include "server/schema/yaml_to_json.h"

#include <boost/json.hpp>

#include <cstdio>

namespace kapi::endpoints::handlers {

namespace json = boost::json;

std::string summarize_body(std::string_view body) {
  constexpr std::size_t kMax = 30;
  if (body.empty()) return "<empty>";
  const std::string_view head = body.substr(0, kMax);
  std::string out;
  if (body.front() == '{') {
    out = head;
  } else {
    for (unsigned char c : head) {
      char hex[3];
      std::snprintf(hex, sizeof hex, "%02x", c);
      out += hex;
    }
  }
  return body.size() > kMax ? out + " ..." : out;
}

json::object decode_object(std::string_view body) {
  boost::system::error_code error;
  json::parse_options options;
  options.max_depth = registry::kMaxObjectDepth;
  json::value value = json::parse(body, error, {}, options);
  if (error) throw apierrors::ApiError(apierrors::bad_request("json: " + error.message()));
  if (!value.is_object())
    throw apierrors::ApiError(apierrors::bad_request("json: cannot unmarshal " +
                                                     std::string(value.is_array() ? "array" : "value") +
                                                     " into Go value of type map[string]interface {}"));
  return std::move(value.as_object());
}

namespace {

// The protobuf body as JSON, with kube's errors: an envelope that does not parse is "unrecognized"; a body whose
// kind is known but does not decode "cannot be handled as" the expected kind.
json::object transcode_body(const http::Request& request, const schema::Catalog& catalog,
                            const schema::TypeMeta& expected) {
  const std::string& body = request.body;
  schema::Unknown envelope;
  try {
    envelope = schema::read_envelope(body);
  } catch (const schema::TranscodeError& error) {
    throw apierrors::ApiError(apierrors::bad_request("the object provided is unrecognized (must be of type " +
                                                     expected.kind + "): " + error.what() + " (" + summarize_body(body) + ")"));
  }
  schema::TypeMeta type = envelope.type_meta;
  if (type.kind.empty()) type.kind = expected.kind;
  if (type.api_version.empty()) type.api_version = expected.api_version;
  const std::string version = type.api_version.substr(type.api_version.find('/') + 1);
  try {
    schema::Transcoder transcoder(catalog);
    return transcoder.decode(body, type);
  } catch (const schema::TranscodeError& error) {
    throw apierrors::ApiError(apierrors::bad_request(type.kind + " in version \"" + version +
                                                     "\" cannot be handled as a " + expected.kind + ": " + error.what()));
  }
}

// json.Unmarshal's words for a value that cannot hold the apiVersion/kind struct kube's serializer reads first
// (runtime.SimpleMetaFactory.Interpret).
std::string find_kind_error(const json::value& value) {
  std::string type = "number";
  if (value.is_string()) type = "string";
  else if (value.is_array()) type = "array";
  else if (value.is_bool()) type = "bool";
  return "couldn't get version/kind; json parse error: json: cannot unmarshal " + type +
         " into Go value of type struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string "
         "\"json:\\\"kind,omitempty\\\"\" }";
}

// kube's YAML serializer: sigs.k8s.io/yaml.YAMLToJSON, then the JSON decoder. A failure happens before the kind
// is known, so transformDecodeError names the expected kind and summarizes the body.
DecodedBody decode_yaml(const BodyTarget& target) {
  const std::string& body = target.request().body;
  const std::string& kind = target.definition.kind;
  auto unrecognized = [&](const std::string& error) {
    return apierrors::ApiError(apierrors::bad_request("the object provided is unrecognized (must be of type " + kind +
                                                      "): " + error + " (" + summarize_body(body) + ")"));
  };
  schema::YamlDocument document;
  try {
    document = schema::yaml_to_json(body, {.max_depth = registry::kMaxObjectDepth});
  } catch (const schema::YamlError& error) {
    throw unrecognized(error.what());
  }
  DecodedBody decoded{.format = BodyFormat::Yaml, .yaml_duplicate_keys = std::move(document.duplicate_keys)};
  // An empty document is JSON null, which decodes into an empty object of the expected kind.
  if (document.value.is_null()) return decoded;
  if (!document.value.is_object()) throw unrecognized(find_kind_error(document.value));
  decoded.object = std::move(document.value.as_object());
  return decoded;
}

}  // namespace

json::object decode_protobuf_body(const BodyTarget& target) {
  const auto& definition = target.definition;
  json::object object = transcode_body(target.request(), target.catalog, {definition.group_version(), definition.kind});
  // The JSON path relabels a body with the resource's kind; a protobuf body names its schema, so another kind or
  // version would have been decoded against the wrong one (kube answers these with the same 400).
  const std::string api_version(object["apiVersion"].as_string());
  if (api_version != definition.group_version())
    throw apierrors::ApiError(apierrors::bad_request("the API version in the data (" + api_version +
                                                     ") does not match the expected API version (" +
                                                     definition.group_version() + ")"));
  if (object["kind"].as_string() != definition.kind)
    throw apierrors::ApiError(apierrors::bad_request("the kind in the data (" + std::string(object["kind"].as_string()) +
                                                     ") does not match the expected kind (" + definition.kind + ")"));
  return object;
}

json::object decode_body_as(const Scope& scope, const schema::TypeMeta& expected) {
  auto content_type = scope.request().headers.get("Content-Type");
  if (!content_type || content_type->substr(0, content_type->find(';')) != schema::kProtobufMediaType)
    return decode_object(scope.request().body);
  return transcode_body(scope.request(), scope.catalog, expected);
}

json::object decode_delete_options(const Scope& scope) {
  schema::TypeMeta delete_options{"meta.k8s.io/v1", "DeleteOptions"};
  return decode_body_as(scope, delete_options);
}

namespace {

}  // namespace

ApplyConfiguration decode_apply_configuration(const std::string& body) {
  schema::YamlDocument document;
  try {
    document = schema::yaml_to_json(body, {.max_depth = registry::kMaxObjectDepth});
  } catch (const schema::YamlError& error) {
    throw apierrors::ApiError(
        apierrors::bad_request("error decoding YAML: error converting YAML to JSON: " + std::string(error.what())));
  }
  ApplyConfiguration configuration{.duplicate_keys = std::move(document.duplicate_keys)};
  if (document.value.is_null()) return configuration;
  if (!document.value.is_object())
    throw apierrors::ApiError(apierrors::bad_request(
        "error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal " +
        std::string(base::go_json_kind(document.value)) + " into Go value of type map[string]interface {}"));
  configuration.object = std::move(document.value.as_object());
  return configuration;
}

DecodedBody decode_body(const BodyTarget& target) {
  switch (const BodyFormat format = body_format(target.request(), false)) {
    case BodyFormat::Yaml: return decode_yaml(target);
    case BodyFormat::Protobuf: return {.object = decode_protobuf_body(target), .format = format};
    default: return {.object = decode_object(target.request().body), .format = format};
  }
}

namespace {

void conform_to_kind(const BodyTarget& target, DecodedBody& body) {
  const auto& definition = target.definition;
  const auto* kind = target.catalog.kind(definition.group, definition.version, definition.kind);
  const auto validation = schema::parse_field_validation(target.request().query.get("fieldValidation").value_or(""));
  if (!kind) {
    // A resource without a type schema keeps its body as sent, unless it conforms bodies itself.
    std::optional<std::vector<std::string>> unknown;
    if (target.strategy) unknown = target.strategy->conform(body.object);
    if (!unknown || validation == schema::FieldValidation::kIgnore) return;
    std::vector<std::string> errors;
    if (body.format == BodyFormat::Json) errors = schema::strict_decoding_errors(target.request().body, *unknown);
    else {
      if (!body.yaml_duplicate_keys.empty()) errors.push_back(schema::yaml_unmarshal_errors(body.yaml_duplicate_keys));
      for (const auto& path : *unknown) errors.push_back("unknown field \"" + path + "\"");
    }
    for (auto& warning : schema::report_strict_errors(validation, definition.kind, definition.version, errors))
      target.exchange.context.warnings.push_back(std::move(warning));
    return;
  }
  const auto unknown = schema::conform(target.catalog, kind, body.object);
  if (validation == schema::FieldValidation::kIgnore) return;  // duplicates are not even looked for
  std::vector<std::string> errors;
  switch (body.format) {
    case BodyFormat::Json: errors = schema::strict_decoding_errors(target.request().body, unknown); break;
    case BodyFormat::Yaml:
      // kube runs go-yaml's strict pass first, then decodes the converted JSON (keys sorted) strictly.
      if (!body.yaml_duplicate_keys.empty()) errors.push_back(schema::yaml_unmarshal_errors(body.yaml_duplicate_keys));
      [[fallthrough]];
    default:
      for (const auto& path : unknown) errors.push_back("unknown field \"" + path + "\"");
  }
  for (auto& warning : schema::report_strict_errors(validation, kind, errors))
    target.exchange.context.warnings.push_back(std::move(warning));
}

}  // namespace

void conform_decoded(const BodyTarget& target, DecodedBody& body) {
  conform_to_kind(target, body);
  if (target.strategy)
    for (auto& warning : target.strategy->write_warnings(body.object))
      target.exchange.context.warnings.push_back(std::move(warning));
}

}  // namespace kapi::endpoints::handlers
