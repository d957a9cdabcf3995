// Schema → CEL types as kube's SchemaDeclType derives them (apiserver/pkg/cel/common/schemas_test.go,
// apiextensions-apiserver model/schemas_test.go).
#include "server/apiextensions/cel/escaping.h"
#include "server/apiextensions/cel/schema_types.h"

#include "tests/unit/server/apiextensions/schema_test_util.h"

#include <gtest/gtest.h>

namespace kapi::apiextensions::cel::schema_types_test {
namespace {

using kapi::cel::Type;
using kapi::cel::TypeKind;
using schema::testing::schema_from;

DeclType decl_of(std::string_view text, bool root = false) {
  auto decl = schema_decl_type(schema_from(text), root, "selfType1");
  EXPECT_TRUE(decl.has_value()) << text;
  return decl.value_or(DeclType{});
}

TEST(CelSchemaTypesTest, Scalars) {
  EXPECT_EQ(decl_of(R"({"type":"integer"})").type, Type::int_type());
  EXPECT_EQ(decl_of(R"({"type":"number"})").type, Type::double_type());
  EXPECT_EQ(decl_of(R"({"type":"boolean"})").type, Type::bool_type());
  EXPECT_EQ(decl_of(R"({"type":"string"})").type, Type::string_type());
  EXPECT_EQ(decl_of(R"({"type":"string","format":"byte"})").type, Type::bytes_type());
  EXPECT_EQ(decl_of(R"({"type":"string","format":"duration"})").type, Type::duration());
  EXPECT_EQ(decl_of(R"({"type":"string","format":"date"})").type, Type::timestamp());
  EXPECT_EQ(decl_of(R"({"type":"string","format":"date-time"})").type, Type::timestamp());
  EXPECT_TRUE(decl_of(R"({"x-kubernetes-int-or-string":true})").type.is_dyn());
}

TEST(CelSchemaTypesTest, StringSizesFromMaxLengthEnumOrRequestSize) {
  EXPECT_EQ(decl_of(R"({"type":"string","maxLength":10})").type.max_elements(), 40u);  // 4 bytes a code point
  EXPECT_EQ(decl_of(R"({"type":"string","enum":["a","abcd"]})").type.max_elements(), 4u);
  EXPECT_EQ(decl_of(R"({"type":"string"})").type.max_elements(), 3u * 1024 * 1024 - 2);
  EXPECT_EQ(decl_of(R"({"type":"string","format":"date-time"})").type.max_elements(), 32u);
  EXPECT_EQ(decl_of(R"({"type":"string","format":"byte","maxLength":8})").type.max_elements(), 8u);
  EXPECT_EQ(decl_of(R"({"x-kubernetes-int-or-string":true,"maxLength":3})").type.max_elements(), 12u);
}

TEST(CelSchemaTypesTest, ListsAndMapsWithEstimatedSizes) {
  DeclType list = decl_of(R"({"type":"array","items":{"type":"integer"}})");
  EXPECT_EQ(list.type.to_string(), "list(int)");
  EXPECT_EQ(list.type.max_elements(), (3u * 1024 * 1024 - 2) / 2);  // "1," per item
  EXPECT_EQ(decl_of(R"({"type":"array","maxItems":5,"items":{"type":"string"}})").type.max_elements(), 5u);
  DeclType map = decl_of(R"({"type":"object","additionalProperties":{"type":"boolean"}})");
  EXPECT_EQ(map.type.to_string(), "map(string, bool)");
  EXPECT_EQ(map.type.max_elements(), (3u * 1024 * 1024 - 2) / 10);  // "":true, per entry
  EXPECT_FALSE(schema_decl_type(schema_from(R"({"type":"array"})"), false, "x"));
}

TEST(CelSchemaTypesTest, ObjectsNameTheirFieldsAfterTheirPlace) {
  DeclType object = decl_of(R"({"type":"object","required":["name"],"properties":{
      "name":{"type":"string"},
      "ports":{"type":"array","items":{"type":"object","properties":{"port":{"type":"integer"}}}},
      "labels":{"type":"object","additionalProperties":{"type":"object","properties":{"x":{"type":"string"}}}},
      "namespace":{"type":"string"}, "a-b":{"type":"string"}, "1x":{"type":"string"},
      "free":{"x-kubernetes-preserve-unknown-fields":true}}})");
  ASSERT_EQ(object.type.kind(), TypeKind::kObject);
  const auto* fields = object.type.object_type();
  EXPECT_EQ(fields->name, "selfType1");
  EXPECT_EQ(fields->field("ports")->to_string(), "list(selfType1.ports.@idx)");
  EXPECT_EQ(fields->field("labels")->to_string(), "map(string, selfType1.labels.@elem)");
  EXPECT_NE(fields->field("__namespace__"), nullptr);
  EXPECT_NE(fields->field("a__dash__b"), nullptr);
  EXPECT_EQ(fields->field("1x"), nullptr);    // not a CEL identifier
  EXPECT_EQ(fields->field("free"), nullptr);  // no type: not exposed
  EXPECT_EQ(object.min_serialized_size, 2 + 4 + 2 + 4);  // {} and "name":""
}

TEST(CelSchemaTypesTest, ResourceRootsExposeTypeMetaAndName) {
  DeclType root = decl_of(R"({"type":"object","properties":{"spec":{"type":"object"}}})", true);
  const auto* fields = root.type.object_type();
  EXPECT_EQ(fields->field("kind")->kind(), TypeKind::kString);
  EXPECT_EQ(fields->field("apiVersion")->kind(), TypeKind::kString);
  const Type* metadata = fields->field("metadata");
  ASSERT_NE(metadata, nullptr);
  EXPECT_EQ(metadata->object_type()->fields.size(), 2u);
  EXPECT_NE(metadata->object_type()->field("generateName"), nullptr);
  DeclType embedded = decl_of(R"({"type":"object","properties":{"template":{"type":"object",
      "x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true}}})");
  EXPECT_NE(embedded.type.object_type()->field("template")->object_type()->field("kind"), nullptr);
}

TEST(CelEscapingTest, EscapesAsKube) {
  EXPECT_EQ(escape("namespace"), "__namespace__");
  EXPECT_EQ(escape("a.b-c/d__e"), "a__dot__b__dash__c__slash__d__underscores__e");
  EXPECT_EQ(escape("x_y"), "x_y");
  EXPECT_FALSE(escape("1a"));
  EXPECT_FALSE(escape("a b"));
  EXPECT_EQ(unescape("__namespace__"), "namespace");
  EXPECT_EQ(unescape("a__dot__b__dash__c__slash__d__underscores__e"), "a.b-c/d__e");
  EXPECT_FALSE(unescape("__unknown__"));
  EXPECT_EQ(unescape("plain"), "plain");
}

}  // namespace
}  // namespace kapi::apiextensions::cel::schema_types_test
