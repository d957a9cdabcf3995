#include "server/endpoints/handlers/body.h"

#include "server/endpoints/handlers/protobuf.h"
#include "server/endpoints/handlers/response.h"
#include "server/registry/object_meta.h"
#include "server/schema/decoding.h"
#include "server/schema/duplicate_fields.h"
#include "server/schema/yaml_to_json.h"

#include <boost/json.hpp>

namespace kapi::endpoints::handlers {
namespace {

namespace json = boost::json;

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
