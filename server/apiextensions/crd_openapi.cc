#include "server/apiextensions/crd_openapi.h"

#include <boost/json.hpp>


namespace kapi::apiextensions {
namespace {

namespace json = boost::json;

constexpr std::string_view kPrefix = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.";

std::string ref(std::string_view name) { return "#/components/schemas/" + std::string(kPrefix) + std::string(name); }

json::object field(std::string_view type, std::string_view description) {
  return {{"type", type}, {"description", description}};
}
json::object integer(std::string_view format, std::string_view description) {
  return {{"type", "integer"}, {"format", format}, {"description", description}};
}
json::object strings(std::string_view description) {
  return {{"type", "array"}, {"description", description}, {"items", json::object{{"type", "string"}, {"default", ""}}},
          {"x-kubernetes-list-type", "atomic"}};
}
json::object object_ref(std::string_view name, std::string_view description) {
  return {{"allOf", json::array{json::object{{"$ref", ref(name)}}}}, {"description", description}};
}
json::object array_of(std::string_view name, std::string_view description) {
  return {{"type", "array"}, {"description", description}, {"items", json::object{{"$ref", ref(name)}}},
          {"x-kubernetes-list-type", "atomic"}};
}
json::object map_of(std::string_view name, std::string_view description) {
  return {{"type", "object"}, {"description", description},
          {"additionalProperties", json::object{{"$ref", ref(name)}}}};
}
// Any JSON value (apiextensions' JSON, JSONSchemaPropsOrBool, JSONSchemaPropsOrArray, ...).
json::object any_value(std::string_view description) {
  return {{"description", description}, {"x-kubernetes-preserve-unknown-fields", true}};
}
json::object kind_schema(std::string_view description, std::vector<std::string> required, json::object properties) {
  json::object schema{{"description", description}, {"type", "object"}, {"properties", std::move(properties)}};
  if (!required.empty()) schema["required"] = json::value_from(required);
  return schema;
}

std::vector<std::pair<std::string, json::object>> definitions() {
  std::vector<std::pair<std::string, json::object>> out;
  auto add = [&](std::string_view name, json::object schema) {
    out.emplace_back(std::string(kPrefix) + std::string(name), std::move(schema));
  };
  add("CustomResourceDefinitionSpec",
      kind_schema("CustomResourceDefinitionSpec describes how a user wants their resource to appear",
                  {"group", "names", "scope", "versions"},
                  {{"group", field("string", "group is the API group of the defined custom resource.")},
                   {"names", object_ref("CustomResourceDefinitionNames",
                                        "names specify the resource and kind names for the custom resource.")},
                   {"scope", field("string", "scope indicates whether the defined custom resource is cluster- or "
                                             "namespace-scoped. Allowed values are `Cluster` and `Namespaced`.")},
                   {"versions", array_of("CustomResourceDefinitionVersion",
                                         "versions is the list of all API versions of the defined custom resource.")},
                   {"conversion", object_ref("CustomResourceConversion",
                                             "conversion defines conversion settings for the CRD.")},
                   {"preserveUnknownFields", field("boolean", "preserveUnknownFields indicates that object fields "
                                                              "which are not specified in the OpenAPI schema should "
                                                              "be preserved when persisting to storage.")}}));
  add("CustomResourceDefinitionNames",
      kind_schema("CustomResourceDefinitionNames indicates the names to serve this CustomResourceDefinition",
                  {"plural", "kind"},
                  {{"plural", field("string", "plural is the plural name of the resource to serve.")},
                   {"singular", field("string", "singular is the singular name of the resource.")},
                   {"shortNames", strings("shortNames are short names for the resource.")},
                   {"kind", field("string", "kind is the serialized kind of the resource.")},
                   {"listKind", field("string", "listKind is the serialized kind of the list for this resource.")},
                   {"categories", strings("categories is a list of grouped resources this custom resource belongs "
                                          "to (e.g. 'all').")}}));
  add("CustomResourceDefinitionVersion",
      kind_schema("CustomResourceDefinitionVersion describes a version for CRD.", {"name", "served", "storage"},
                  {{"name", field("string", "name is the version name, e.g. \"v1\", \"v2beta1\", etc.")},
                   {"served", field("boolean", "served is a flag enabling/disabling this version from being served "
                                               "via REST APIs")},
                   {"storage", field("boolean", "storage indicates this version should be used when persisting "
                                                "custom resources to storage. There must be exactly one version with "
                                                "storage=true.")},
                   {"deprecated", field("boolean", "deprecated indicates this version of the custom resource API is "
                                                   "deprecated.")},
                   {"deprecationWarning", field("string", "deprecationWarning overrides the default warning "
                                                          "returned to API clients.")},
                   {"schema", object_ref("CustomResourceValidation", "schema describes the schema used for "
                                                                     "validation, pruning, and defaulting of this "
                                                                     "version of the custom resource.")},
                   {"subresources", object_ref("CustomResourceSubresources", "subresources specify what "
                                                                             "subresources this version of the "
                                                                             "defined custom resource have.")},
                   {"additionalPrinterColumns",
                    array_of("CustomResourceColumnDefinition", "additionalPrinterColumns specifies additional "
                                                               "columns returned in Table output.")},
                   {"selectableFields", array_of("SelectableField", "selectableFields specifies paths to fields "
                                                                    "that may be used as field selectors.")}}));
  add("CustomResourceValidation",
      kind_schema("CustomResourceValidation is a list of validation methods for CustomResources.", {},
                  {{"openAPIV3Schema", object_ref("JSONSchemaProps", "openAPIV3Schema is the OpenAPI v3 schema to "
                                                                     "use for validation and pruning.")}}));
  add("CustomResourceSubresources",
      kind_schema("CustomResourceSubresources defines the status and scale subresources for CustomResources.", {},
                  {{"status", any_value("status indicates the custom resource should serve a `/status` "
                                        "subresource.")},
                   {"scale", object_ref("CustomResourceSubresourceScale", "scale indicates the custom resource "
                                                                          "should serve a `/scale` subresource.")}}));
  add("CustomResourceSubresourceScale",
      kind_schema("CustomResourceSubresourceScale defines how to serve the scale subresource for CustomResources.",
                  {"specReplicasPath", "statusReplicasPath"},
                  {{"specReplicasPath", field("string", "specReplicasPath defines the JSON path inside of a custom "
                                                        "resource that corresponds to Scale `spec.replicas`.")},
                   {"statusReplicasPath", field("string", "statusReplicasPath defines the JSON path inside of a "
                                                          "custom resource that corresponds to Scale "
                                                          "`status.replicas`.")},
                   {"labelSelectorPath", field("string", "labelSelectorPath defines the JSON path inside of a "
                                                         "custom resource that corresponds to Scale "
                                                         "`status.selector`.")}}));
  add("CustomResourceColumnDefinition",
      kind_schema("CustomResourceColumnDefinition specifies a column for server side printing.",
                  {"name", "type", "jsonPath"},
                  {{"name", field("string", "name is a human readable name for the column.")},
                   {"type", field("string", "type is an OpenAPI type definition for this column.")},
                   {"format", field("string", "format is an optional OpenAPI type definition for this column.")},
                   {"description", field("string", "description is a human readable description of this column.")},
                   {"priority", integer("int32", "priority is an integer defining the relative importance of this "
                                                 "column compared to others.")},
                   {"jsonPath", field("string", "jsonPath is a simple JSON path (i.e. with array notation) which "
                                                "is evaluated against each custom resource to produce the value "
                                                "for this column.")}}));
  add("SelectableField", kind_schema("SelectableField specifies the JSON path of a field that may be used with field "
                                     "selectors.",
                                     {"jsonPath"},
                                     {{"jsonPath", field("string", "jsonPath is a simple JSON path which is "
                                                                   "evaluated against each custom resource to "
                                                                   "produce a field selector value.")}}));
  add("CustomResourceConversion",
      kind_schema("CustomResourceConversion describes how to convert different versions of a CR.", {"strategy"},
                  {{"strategy", field("string", "strategy specifies how custom resources are converted between "
                                                "versions. Allowed values are: - `\"None\"` and `\"Webhook\"`.")},
                   {"webhook", any_value("webhook describes how to call the conversion webhook.")}}));
  add("CustomResourceDefinitionStatus",
      kind_schema("CustomResourceDefinitionStatus indicates the state of the CustomResourceDefinition", {},
                  {{"conditions", array_of("CustomResourceDefinitionCondition", "conditions indicate state for "
                                                                                "particular aspects of a "
                                                                                "CustomResourceDefinition")},
                   {"acceptedNames", object_ref("CustomResourceDefinitionNames", "acceptedNames are the names that "
                                                                                 "are actually being used to serve "
                                                                                 "discovery.")},
                   {"storedVersions", strings("storedVersions lists all versions of CustomResources that were ever "
                                              "persisted.")}}));
  add("CustomResourceDefinitionCondition",
      kind_schema("CustomResourceDefinitionCondition contains details for the current condition of this pod.",
                  {"type", "status"},
                  {{"type", field("string", "type is the type of the condition. Types include Established, "
                                            "NamesAccepted and Terminating.")},
                   {"status", field("string", "status is the status of the condition. Can be True, False, Unknown.")},
                   {"lastTransitionTime", json::object{{"type", "string"}, {"format", "date-time"},
                                                       {"description", "lastTransitionTime last time the condition "
                                                                       "transitioned from one status to another."}}},
                   {"reason", field("string", "reason is a unique, one-word, CamelCase reason for the condition's "
                                              "last transition.")},
                   {"message", field("string", "message is a human-readable message indicating details about last "
                                               "transition.")}}));
  add("ValidationRule",
      kind_schema("ValidationRule describes a validation rule written in the CEL expression language.", {"rule"},
                  {{"rule", field("string", "Rule represents the expression which will be evaluated by CEL.")},
                   {"message", field("string", "Message represents the message displayed when validation fails.")},
                   {"messageExpression", field("string", "MessageExpression declares a CEL expression that "
                                                         "evaluates to the validation failure message.")},
                   {"reason", field("string", "reason provides a machine-readable validation failure reason.")},
                   {"fieldPath", field("string", "fieldPath represents the field path returned when the "
                                                 "validation fails.")},
                   {"optionalOldSelf", field("boolean", "optionalOldSelf is used to opt a transition rule into "
                                                        "evaluation even when the object is first created.")}}));
  json::object props{
      {"id", field("string", "")},
      {"$schema", field("string", "")},
      {"$ref", field("string", "")},
      {"description", field("string", "")},
      {"type", field("string", "")},
      {"format", field("string", "format is an OpenAPI v3 format string.")},
      {"title", field("string", "")},
      {"default", any_value("default is a default value for undefined object fields.")},
      {"maximum", json::object{{"type", "number"}, {"format", "double"}}},
      {"exclusiveMaximum", field("boolean", "")},
      {"minimum", json::object{{"type", "number"}, {"format", "double"}}},
      {"exclusiveMinimum", field("boolean", "")},
      {"maxLength", integer("int64", "")},
      {"minLength", integer("int64", "")},
      {"pattern", field("string", "")},
      {"maxItems", integer("int64", "")},
      {"minItems", integer("int64", "")},
      {"uniqueItems", field("boolean", "")},
      {"multipleOf", json::object{{"type", "number"}, {"format", "double"}}},
      {"enum", json::object{{"type", "array"}, {"items", any_value("")}, {"x-kubernetes-list-type", "atomic"}}},
      {"maxProperties", integer("int64", "")},
      {"minProperties", integer("int64", "")},
      {"required", strings("")},
      {"items", any_value("")},
      {"allOf", array_of("JSONSchemaProps", "")},
      {"oneOf", array_of("JSONSchemaProps", "")},
      {"anyOf", array_of("JSONSchemaProps", "")},
      {"not", object_ref("JSONSchemaProps", "")},
      {"properties", map_of("JSONSchemaProps", "")},
      {"additionalProperties", any_value("")},
      {"patternProperties", map_of("JSONSchemaProps", "")},
      {"dependencies", json::object{{"type", "object"}, {"additionalProperties", any_value("")}}},
      {"additionalItems", any_value("")},
      {"definitions", map_of("JSONSchemaProps", "")},
      {"externalDocs", any_value("")},
      {"example", any_value("")},
      {"nullable", field("boolean", "")},
      {"x-kubernetes-preserve-unknown-fields",
       field("boolean", "x-kubernetes-preserve-unknown-fields stops the API server decoding step from pruning fields "
                        "which are not specified in the validation schema.")},
      {"x-kubernetes-embedded-resource",
       field("boolean", "x-kubernetes-embedded-resource defines that the value is an embedded Kubernetes "
                        "runtime.Object, with TypeMeta and ObjectMeta.")},
      {"x-kubernetes-int-or-string",
       field("boolean", "x-kubernetes-int-or-string specifies that this value is either an integer or a string.")},
      {"x-kubernetes-list-map-keys", strings("x-kubernetes-list-map-keys annotates an array with the "
                                             "x-kubernetes-list-type `map` by specifying the keys used as the "
                                             "index of the map.")},
      {"x-kubernetes-list-type", field("string", "x-kubernetes-list-type annotates an array to further describe its "
                                                 "topology: atomic, set or map.")},
      {"x-kubernetes-map-type", field("string", "x-kubernetes-map-type annotates an object to further describe its "
                                                "topology: granular or atomic.")},
      {"x-kubernetes-validations", array_of("ValidationRule", "x-kubernetes-validations describes a list of "
                                                              "validation rules written in the CEL expression "
                                                              "language.")}};
  for (auto& property : props) {  // the empty descriptions are not worth sending
    auto& object = property.value().as_object();
    if (auto* description = object.if_contains("description"); description && description->as_string().empty())
      object.erase("description");
  }
  add("JSONSchemaProps", kind_schema("JSONSchemaProps is a JSON-Schema following Specification Draft 4 "
                                     "(http://json-schema.org/).",
                                     {}, std::move(props)));
  return out;
}

}  // namespace

kapi::schema::SchemaResource customresourcedefinitions_openapi(const registry::ResourceDefinition& definition) {
  json::object schema = kind_schema(
      "CustomResourceDefinition represents a resource that should be exposed on the API server.  Its name MUST be in "
      "the format <.spec.name>.<.spec.group>.",
      {"spec"},
      {{"spec", object_ref("CustomResourceDefinitionSpec", "spec describes how the user wants the resources to "
                                                           "appear")},
       {"status", object_ref("CustomResourceDefinitionStatus", "status indicates the actual state of the "
                                                               "CustomResourceDefinition")}});
  return {definition, std::string(kPrefix) + "CustomResourceDefinition", std::move(schema), definitions()};
}

}  // namespace kapi::apiextensions
