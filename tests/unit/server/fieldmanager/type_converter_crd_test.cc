// The smd types of custom resources, as kube 1.32's CRD handler derives them: the version's structural schema turned
// into its OpenAPI v3 definition (builder.BuildOpenAPIV3: apiVersion, kind and metadata added at the root and at
// embedded resources), converted by kube-openapi's schemaconv.ToSchemaFromOpenAPI.
#include "server/fieldmanager/type_converter.h"

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>

namespace kapi::fieldmanager::type_converter_crd_test {
namespace {

namespace sm = structured_merge;
using sm::ElementRelationship;
using sm::ScalarKind;
using sm::TypeRef;

const schema::Catalog& catalog() {
  static const schema::Catalog kCatalog = schema::Catalog::builtin();
  return kCatalog;
}

CustomResourceSchema convert(std::string_view schema_json) {
  return schema_from_structural(boost::json::parse(schema_json).as_object(), "com.example.v1.Widget", catalog());
}

TypeRef at(TypeRef type, std::initializer_list<std::string_view> path) {
  for (std::string_view step : path) {
    if (!type) return nullptr;
    type = step == "[]" ? type->list_element : type->member_type(step);
  }
  EXPECT_NE(type, nullptr);
  return type;
}

const sm::StructField* field(TypeRef type, std::string_view name) {
  for (const auto& member : type->fields)
    if (member.name == name) return &member;
  return nullptr;
}

constexpr std::string_view kWidget = R"({
  "type": "object",
  "properties": {
    "metadata": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 10}}},
    "spec": {
      "type": "object",
      "required": ["ports"],
      "properties": {
        "replicas": {"type": "integer", "format": "int32", "minimum": 0},
        "ratio": {"type": "number"},
        "enabled": {"type": "boolean"},
        "when": {"type": "string", "format": "date-time"},
        "data": {"type": "string", "format": "byte"},
        "port": {"x-kubernetes-int-or-string": true},
        "ports": {
          "type": "array",
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["port", "protocol"],
          "items": {
            "type": "object",
            "required": ["port"],
            "properties": {
              "port": {"type": "integer"},
              "protocol": {"type": "string", "default": "TCP"},
              "name": {"type": "string"}
            }
          }
        },
        "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
        "args": {"type": "array", "items": {"type": "string"}},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "selector": {"type": "object", "x-kubernetes-map-type": "atomic",
                     "additionalProperties": {"type": "string"}},
        "ref": {"type": "object", "x-kubernetes-map-type": "atomic",
                "properties": {"name": {"type": "string"}}},
        "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true,
                 "properties": {"known": {"type": "object", "properties": {"a": {"type": "string"}}}}},
        "anything": {"x-kubernetes-preserve-unknown-fields": true},
        "template": {"type": "object", "x-kubernetes-embedded-resource": true,
                     "x-kubernetes-preserve-unknown-fields": true}
      }
    },
    "status": {"type": "object", "properties": {"phase": {"type": "string"}}}
  }
})";

TEST(TypeConverterCrdTest, RootGainsApiVersionKindAndObjectMeta) {
  auto converted = convert(kWidget);
  ASSERT_NE(converted.root, nullptr);
  EXPECT_EQ(converted.root->name, "com.example.v1.Widget");
  EXPECT_EQ(converted.schema->find("com.example.v1.Widget"), converted.root);
  EXPECT_EQ(at(converted.root, {"apiVersion"})->scalar_kind, ScalarKind::kString);
  EXPECT_EQ(at(converted.root, {"kind"})->scalar_kind, ScalarKind::kString);
  // The CRD's own metadata schema is replaced by a reference to ObjectMeta.
  TypeRef meta = at(converted.root, {"metadata"});
  EXPECT_EQ(meta->name, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
  EXPECT_EQ(meta, converted.schema->find("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"));
  EXPECT_EQ(at(meta, {"labels"})->map_relationship, ElementRelationship::kSeparable);
  EXPECT_EQ(at(meta, {"ownerReferences"})->keys, std::vector<std::string>{"uid"});
  // A struct with properties and no preserve-unknown-fields takes no other members.
  EXPECT_EQ(converted.root->map_element, nullptr);
  EXPECT_EQ(at(converted.root, {"status"})->map_element, nullptr);
}

TEST(TypeConverterCrdTest, MapListWithTwoKeysAndKeyDefaults) {
  auto converted = convert(kWidget);
  TypeRef ports = at(converted.root, {"spec", "ports"});
  ASSERT_TRUE(ports->list);
  EXPECT_EQ(ports->list_relationship, ElementRelationship::kAssociative);
  EXPECT_EQ(ports->keys, (std::vector<std::string>{"port", "protocol"}));
  const sm::StructField* protocol = field(ports->list_element, "protocol");
  ASSERT_NE(protocol, nullptr);
  EXPECT_EQ(protocol->default_value, boost::json::value("TCP"));
}

TEST(TypeConverterCrdTest, SetsAtomicListsAndMaps) {
  auto converted = convert(kWidget);
  TypeRef tags = at(converted.root, {"spec", "tags"});
  EXPECT_EQ(tags->list_relationship, ElementRelationship::kAssociative);
  EXPECT_TRUE(tags->keys.empty());
  EXPECT_EQ(tags->list_element->scalar_kind, ScalarKind::kString);
  EXPECT_EQ(at(converted.root, {"spec", "args"})->list_relationship, ElementRelationship::kAtomic);
  TypeRef labels = at(converted.root, {"spec", "labels"});
  EXPECT_TRUE(labels->map);
  EXPECT_EQ(labels->map_relationship, ElementRelationship::kSeparable);
  EXPECT_EQ(labels->map_element->scalar_kind, ScalarKind::kString);
  EXPECT_EQ(at(converted.root, {"spec", "selector"})->map_relationship, ElementRelationship::kAtomic);
  EXPECT_EQ(at(converted.root, {"spec", "ref"})->map_relationship, ElementRelationship::kAtomic);
}

TEST(TypeConverterCrdTest, ScalarsFollowTypeAndFormat) {
  auto converted = convert(kWidget);
  EXPECT_EQ(at(converted.root, {"spec", "replicas"})->scalar_kind, ScalarKind::kNumeric);
  EXPECT_EQ(at(converted.root, {"spec", "ratio"})->scalar_kind, ScalarKind::kNumeric);
  EXPECT_EQ(at(converted.root, {"spec", "enabled"})->scalar_kind, ScalarKind::kBoolean);
  EXPECT_EQ(at(converted.root, {"spec", "data"})->scalar_kind, ScalarKind::kString);
  // The handler keeps formats (no StripValueValidation): a date-time string is an untyped scalar.
  TypeRef when = at(converted.root, {"spec", "when"});
  EXPECT_TRUE(when->scalar && !when->map && !when->list);
  EXPECT_EQ(when->scalar_kind, ScalarKind::kUntyped);
  // x-kubernetes-int-or-string has no type: any value, members deduced, list items untyped atomic.
  TypeRef port = at(converted.root, {"spec", "port"});
  EXPECT_TRUE(port->scalar && port->map && port->list);
  EXPECT_EQ(port->scalar_kind, ScalarKind::kUntyped);
  EXPECT_EQ(port->map_element, converted.schema->deduced());
  EXPECT_EQ(port->list_element, converted.schema->find("__untyped_atomic_"));
}

TEST(TypeConverterCrdTest, PreserveUnknownFieldsDeducesUnknownMembersBelow) {
  auto converted = convert(kWidget);
  TypeRef free = at(converted.root, {"spec", "free"});
  EXPECT_EQ(free->map_element, converted.schema->deduced());
  // Inherited by every node below, even one with properties of its own.
  TypeRef known = at(free, {"known"});
  EXPECT_EQ(known->map_element, converted.schema->deduced());
  EXPECT_EQ(at(known, {"a"})->scalar_kind, ScalarKind::kString);
  // Not by siblings.
  EXPECT_EQ(at(converted.root, {"spec"})->map_element, nullptr);
  TypeRef anything = at(converted.root, {"spec", "anything"});
  EXPECT_TRUE(anything->scalar && anything->map && anything->list);
  EXPECT_EQ(anything->map_element, converted.schema->deduced());
}

TEST(TypeConverterCrdTest, EmbeddedResourceGainsTypeMetaAndObjectMeta) {
  auto converted = convert(kWidget);
  TypeRef embedded = at(converted.root, {"spec", "template"});
  EXPECT_EQ(at(embedded, {"apiVersion"})->scalar_kind, ScalarKind::kString);
  EXPECT_EQ(at(embedded, {"kind"})->scalar_kind, ScalarKind::kString);
  EXPECT_EQ(at(embedded, {"metadata"}), converted.schema->find("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"));
  EXPECT_EQ(embedded->map_element, converted.schema->deduced());
}

TEST(TypeConverterCrdTest, FreeFormObjectWithoutPropertiesIsDeduced) {
  auto converted = convert(R"({"type": "object", "properties": {"spec": {"type": "object"}}})");
  EXPECT_EQ(at(converted.root, {"spec"})->map_element, converted.schema->deduced());
  // additionalProperties false: no other members.
  auto closed = convert(R"({"type": "object", "properties": {"spec": {"type": "object",
                             "additionalProperties": false}}})");
  EXPECT_EQ(at(closed.root, {"spec"})->map_element, nullptr);
}

TEST(TypeConverterCrdTest, RefusesWhatSchemaconvRefuses) {
  // A map list without keys: schemaconv's "missing map keys", prefixed with where it was found.
  try {
    convert(R"({"type": "object", "properties": {"items": {"type": "array", "x-kubernetes-list-type": "map",
                 "items": {"type": "object", "properties": {"a": {"type": "string"}}}}}})");
    FAIL() << "no error";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(), "failed to convert models to schema: inlined in com.example.v1.Widget: missing map keys");
  }
  EXPECT_THROW(convert(R"({"type": "object", "properties": {"a": {"type": "array"}}})"), std::invalid_argument);
  EXPECT_THROW(convert(R"({"type": "object", "properties": {"a": {"type": "object",
                            "x-kubernetes-map-type": "sometimes"}}})"),
               std::invalid_argument);
  EXPECT_THROW(convert(R"({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string"},
                            "x-kubernetes-list-type": "bag"}}})"),
               std::invalid_argument);
}

}  // namespace
}  // namespace kapi::fieldmanager::type_converter_crd_test
