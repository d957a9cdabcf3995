#include "server/apiextensions/crd_decoding.h"

#include "server/apierrors/errors.h"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <string_view>
#include <utility>

namespace kapi::apiextensions::crd_decoding_test {
namespace {

namespace json = boost::json;

// A CRD as a client writes it; `schema` is its one version's openAPIV3Schema and `extra` more members of spec.
std::string crd(std::string_view schema, std::string_view extra = "") {
  return std::string(R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
    "metadata":{"name":"foos.example.com"},
    "spec":{"group":"example.com","names":{"plural":"foos","kind":"Foo"},"scope":"Namespaced",
            "versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":)") +
         std::string(schema) + "}}]" + std::string(extra) + "}}";
}

class CrdDecodingTest : public ::testing::Test {
 protected:
  const kapi::schema::Catalog catalog = kapi::schema::Catalog::builtin();

  std::pair<json::object, std::vector<std::string>> decode(const std::string& text) {
    json::object object = json::parse(text).as_object();
    std::vector<std::string> unknown = decode_crd(catalog, object);
    return {std::move(object), std::move(unknown)};
  }

  // kube's message without its "cannot be handled as" prefix, which every refusal shares.
  std::string error_of(const std::string& text) {
    constexpr std::string_view kPrefix =
        "CustomResourceDefinition in version \"v1\" cannot be handled as a CustomResourceDefinition: ";
    try {
      decode(text);
    } catch (const apierrors::ApiError& error) {
      EXPECT_EQ(error.status().code, 400);
      EXPECT_EQ(error.status().reason, "BadRequest");
      const std::string& message = error.status().message;
      EXPECT_TRUE(message.starts_with(kPrefix)) << message;
      return message.substr(std::min(message.size(), kPrefix.size()));
    }
    return "no error";
  }

  static json::value schema_of(const json::object& crd) {
    return crd.at("spec").at("versions").at(0).at("schema").at("openAPIV3Schema");
  }
};

TEST_F(CrdDecodingTest, AWellTypedCrdIsKeptAsWritten) {
  const std::string text = crd(
      R"({"type":"object","properties":{"spec":{"type":"object","maxProperties":3,"minimum":0.5,"default":{"a":[1]},
        "enum":[1,"x",null],"items":[{"type":"string"}],"additionalProperties":false,"dependencies":{"a":["b"]},
        "x-kubernetes-validations":[{"rule":"true","reason":"FieldValueInvalid","optionalOldSelf":true}]}}})",
      R"(,"conversion":{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"],
         "clientConfig":{"caBundle":"YWJj","service":{"namespace":"ns","name":"svc","port":443}}}})");
  auto [object, unknown] = decode(text);
  EXPECT_EQ(object, json::parse(text));
  EXPECT_TRUE(unknown.empty());
}

// encoding/json names the value by its kind (or a number by its digits when an integer field gets a fraction), the
// struct that holds the field, the field's path by JSON names without indices or map keys, and the Go type.
TEST_F(CrdDecodingTest, ValuesOfTheWrongTypeAreRefusedWithEncodingJsonsError) {
  const std::string_view schema_field = "Go struct field JSONSchemaProps.spec.versions.schema.openAPIV3Schema.properties.";
  const std::pair<std::string_view, std::string> cases[] = {
      {R"({"properties":{"a":{"maxLength":1.5}}})", "number 1.5 into " + std::string(schema_field) + "maxLength of type int64"},
      {R"({"properties":{"a":{"maxLength":"3"}}})", "string into " + std::string(schema_field) + "maxLength of type int64"},
      {R"({"properties":{"a":{"minItems":9223372036854775808}}})",
       "number 9223372036854775808 into " + std::string(schema_field) + "minItems of type int64"},
      {R"({"properties":{"a":{"minimum":"1"}}})", "string into " + std::string(schema_field) + "minimum of type float64"},
      {R"({"properties":{"a":{"required":"x"}}})", "string into " + std::string(schema_field) + "required of type []string"},
      {R"({"properties":{"a":{"enum":{}}}})", "object into " + std::string(schema_field) + "enum of type []v1.JSON"},
      {R"({"properties":{"a":{"nullable":"yes"}}})", "string into " + std::string(schema_field) + "nullable of type bool"},
      {R"({"properties":{"a":{"$schema":1}}})", "number into " + std::string(schema_field) + "$schema of type v1.JSONSchemaURL"},
      {R"({"properties":[]})",
       "array into Go struct field JSONSchemaProps.spec.versions.schema.openAPIV3Schema.properties of type "
       "map[string]v1.JSONSchemaProps"},
      {R"({"x-kubernetes-validations":[{"rule":"true","reason":7}]})",
       "number into Go struct field ValidationRule.spec.versions.schema.openAPIV3Schema.x-kubernetes-validations.reason "
       "of type v1.FieldValueErrorReason"},
  };
  for (const auto& [schema, expected] : cases)
    EXPECT_EQ(error_of(crd(schema)), "json: cannot unmarshal " + expected) << schema;

  EXPECT_EQ(error_of(crd("{}", R"(,"scope":5)")),
            "json: cannot unmarshal number into Go struct field CustomResourceDefinitionSpec.spec.scope of type "
            "v1.ResourceScope");
  EXPECT_EQ(error_of(crd("{}", R"(,"names":"foos")")),
            "json: cannot unmarshal string into Go struct field CustomResourceDefinitionSpec.spec.names of type "
            "v1.CustomResourceDefinitionNames");
  json::value columns = json::parse(crd("{}"));
  columns.at("spec").at("versions").at(0).as_object()["additionalPrinterColumns"] =
      json::parse(R"([{"name":"a","type":"integer","jsonPath":".a","priority":99999999999}])");
  EXPECT_EQ(error_of(json::serialize(columns)),
            "json: cannot unmarshal number 99999999999 into Go struct field CustomResourceColumnDefinition."
            "spec.versions.additionalPrinterColumns.priority of type int32");
  EXPECT_EQ(error_of(crd("{}", R"(,"conversion":{"webhook":{"clientConfig":{"caBundle":"!!"}}})")),
            "illegal base64 data at input byte 0");
}

TEST_F(CrdDecodingTest, MetadataIsDecodedAsObjectMeta) {
  json::value labelled = json::parse(crd("{}"));
  labelled.at("metadata").as_object()["labels"] = 5;
  EXPECT_EQ(error_of(json::serialize(labelled)),
            "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type map[string]string");
}

// The schema's unmarshalers decode their value with a json.Unmarshal of their own; whatever fails there ends the
// decoding at once (so it wins over an earlier type error), named by the field holding the unmarshaler.
TEST_F(CrdDecodingTest, ErrorsBelowTheSchemasUnmarshalersAreNamedByTheirField) {
  EXPECT_EQ(error_of(crd(R"({"properties":{"a":{"items":{"items":{"maxLength":"x"}}}}})")),
            "json: cannot unmarshal string into Go struct field JSONSchemaProps.spec.versions.schema.openAPIV3Schema."
            "properties.items of type int64");
  EXPECT_EQ(error_of(crd(R"({"additionalProperties":{"properties":{"b":{"type":1}}}})")),
            "json: cannot unmarshal number into Go struct field JSONSchemaProps.spec.versions.schema.openAPIV3Schema."
            "additionalProperties of type string");
  EXPECT_EQ(error_of(crd(R"({"items":["x"]})")),
            "json: cannot unmarshal string into Go struct field JSONSchemaProps.spec.versions.schema.openAPIV3Schema."
            "items of type v1.JSONSchemaProps");
  // The scope's error comes first in the body but is only remembered; the unmarshaler's ends decoding.
  EXPECT_EQ(error_of(crd(R"({"not":{"additionalItems":{"minLength":true}}})", R"(,"scope":5)")),
            "json: cannot unmarshal bool into Go struct field JSONSchemaProps.spec.versions.schema.openAPIV3Schema."
            "not.additionalItems of type int64");
  EXPECT_EQ(error_of(crd(R"({"additionalProperties":"yes"})")), "boolean or JSON schema expected");
  EXPECT_EQ(error_of(crd(R"({"additionalItems":5})")), "boolean or JSON schema expected");
}

TEST_F(CrdDecodingTest, UnknownFieldsAreDroppedAndReportedExceptBelowTheUnmarshalers) {
  auto [object, unknown] = decode(crd(
      R"({"type":"object","bogus":1,"properties":{"a":{"type":"array","x":true,
          "items":{"type":"string","dropped":1},"additionalProperties":{"type":"string","dropped":2}}}})",
      R"(,"extra":{"y":1})"));
  EXPECT_EQ(unknown, (std::vector<std::string>{"spec.versions[0].schema.openAPIV3Schema.bogus",
                                               "spec.versions[0].schema.openAPIV3Schema.properties[a].x",
                                               "spec.extra"}));
  EXPECT_EQ(schema_of(object), json::parse(R"({"type":"object","properties":{"a":{"type":"array",
          "items":{"type":"string"},"additionalProperties":{"type":"string"}}}})"));
}

// JSONSchemaPropsOrArray and JSONSchemaPropsOrStringArray decode anything but a schema or a list as nothing, which
// kube writes back as null.
TEST_F(CrdDecodingTest, AnItemsOrDependencyThatIsNeitherSchemaNorListDecodesAsNull) {
  auto [object, unknown] = decode(crd(R"({"properties":{"a":{"items":5,"dependencies":{"b":"c","d":["e"]}}}})"));
  EXPECT_TRUE(unknown.empty());
  EXPECT_EQ(schema_of(object), json::parse(R"({"properties":{"a":{"items":null,"dependencies":{"b":null,"d":["e"]}}}})"));
}

}  // namespace
}  // namespace kapi::apiextensions::crd_decoding_test
