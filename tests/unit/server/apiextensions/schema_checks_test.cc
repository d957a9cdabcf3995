#include "server/apiextensions/schema/schema_checks.h"

#include "tests/unit/server/apiextensions/schema_test_util.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace kapi::apiextensions::schema::schema_checks_test {
namespace {

using testing::kCronTabSchema;
using testing::schema_from;
using testing::texts;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

const validation::Path kPath =
    validation::Path("spec").child("versions").index(0).child("schema").child("openAPIV3Schema");

std::vector<std::string> check(std::string_view schema) { return texts(validate_crd_schema(schema_from(schema), kPath)); }

TEST(CrdSchemaChecksTest, AcceptsStructuralSchemas) {
  EXPECT_THAT(check(kCronTabSchema), IsEmpty());
  // The int-or-string pattern, embedded resources, list maps with required keys and maps of strings.
  EXPECT_THAT(check(R"({"type":"object","properties":{"spec":{"type":"object","properties":{
    "port":{"x-kubernetes-int-or-string":true,"anyOf":[{"type":"integer"},{"type":"string"}]},
    "template":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true},
    "ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
             "items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"}}}},
    "env":{"type":"object","additionalProperties":{"type":"string"}},
    "replicas":{"type":"integer","default":1}}}},
    "x-kubernetes-validations":[{"rule":"self.spec.replicas < 10"}]})"),
              IsEmpty());
}

// A pattern must compile as Go's regexp.Compile compiles it: RE2 syntax, so no back-references.
// Found by the crd_schema fuzz target: a length bound past int64 (JSON has no limit; Go's decoder refuses it) was
// converted with undefined behaviour. It saturates.
TEST(CrdSchemaChecksTest, BoundsPastInt64Saturate) {
  Schema schema = schema_from(R"({"type":"object","properties":{
    "a":{"type":"string","maxLength":184467440737095516161},
    "b":{"type":"array","items":{"type":"string"},"maxItems":18446744073709551615},
    "c":{"type":"string","minLength":-1e300},
    "d":{"type":"string","maxLength":4.5}}})");
  EXPECT_EQ(schema.property("a")->max_length, std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(schema.property("b")->max_items, std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(schema.property("c")->min_length, std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(schema.property("d")->max_length, 4);
}

TEST(CrdSchemaChecksTest, PatternsMustBeGoRegularExpressions) {
  EXPECT_THAT(check(R"({"type":"object","properties":{"p":{"type":"string","pattern":"^[a-z]+(-[a-z]+)*$"}}})"),
              IsEmpty());
  EXPECT_THAT(check(R"({"type":"object","properties":{"p":{"type":"string","pattern":"(a"}}})"),
              ElementsAre(HasSubstr(R"(pattern: Invalid value: "(a": must be a valid regular expression, but isn't: )"
                                    "error parsing regexp: missing closing ): `(a`")));
  EXPECT_THAT(check(R"({"type":"object","properties":{"p":{"type":"string","pattern":"(a)\\1"}}})"),
              ElementsAre(HasSubstr("error parsing regexp: invalid escape sequence: `\\1`")));
}

TEST(CrdSchemaChecksTest, EveryFieldMustBeTyped) {
  EXPECT_THAT(check(R"({"type":"object","properties":{"spec":{"properties":{"a":{"type":"string"}}}}})"),
              ElementsAre("spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty "
                          "for specified object fields"));
  EXPECT_THAT(check(R"({"type":"object","properties":{"list":{"type":"array","items":{}}}})"),
              ElementsAre("spec.versions[0].schema.openAPIV3Schema.properties[list].items.type: Required value: must not be "
                          "empty for specified array items"));
  EXPECT_THAT(check(R"({"type":"object","properties":{"list":{"type":"array"}}})"),
              ElementsAre("spec.versions[0].schema.openAPIV3Schema.properties[list].items: Required value: must be specified"));
  EXPECT_THAT(check(R"({"type":"string"})"),
              ElementsAre(R"(spec.versions[0].schema.openAPIV3Schema.type: Invalid value: "string": must be object at the root)"));
  EXPECT_THAT(check(R"({"type":"object","properties":{"a":{"type":"strin"}}})"),
              ElementsAre(R"(spec.versions[0].schema.openAPIV3Schema.properties[a].type: Unsupported value: "strin": supported )"
                          R"(values: "array", "boolean", "integer", "number", "object", "string")"));
}

TEST(CrdSchemaChecksTest, PropertiesAndAdditionalPropertiesExcludeEachOther) {
  EXPECT_THAT(check(R"({"type":"object","properties":{"spec":{"type":"object","properties":{"a":{"type":"string"}},
                        "additionalProperties":{"type":"string"}}}})"),
              ElementsAre("spec.versions[0].schema.openAPIV3Schema.properties[spec].additionalProperties: Forbidden: "
                          "additionalProperties and properties are mutual exclusive"));
  EXPECT_THAT(check(R"({"type":"object","additionalProperties":{"type":"string"}})"),
              ElementsAre("spec.versions[0].schema.openAPIV3Schema.additionalProperties: Forbidden: must not be used at the root"));
}

TEST(CrdSchemaChecksTest, KubernetesExtensions) {
  EXPECT_THAT(check(R"({"type":"object","properties":{"port":{"x-kubernetes-int-or-string":true,
                        "x-kubernetes-preserve-unknown-fields":true}}})"),
              ElementsAre("spec.versions[0].schema.openAPIV3Schema.properties[port].x-kubernetes-preserve-unknown-fields: "
                          "Invalid value: true: must be false if x-kubernetes-int-or-string is true"));
  EXPECT_THAT(check(R"({"type":"object","x-kubernetes-preserve-unknown-fields":false})"),
              ElementsAre("spec.versions[0].schema.openAPIV3Schema.x-kubernetes-preserve-unknown-fields: Invalid value: "
                          "false: must be true or undefined"));
  EXPECT_THAT(check(R"({"type":"object","properties":{"t":{"type":"string","x-kubernetes-embedded-resource":true,
                        "x-kubernetes-preserve-unknown-fields":true}}})"),
              ElementsAre(R"(spec.versions[0].schema.openAPIV3Schema.properties[t].type: Invalid value: "string": must be )"
                          "object if x-kubernetes-embedded-resource is true"));
  EXPECT_THAT(check(R"({"type":"object","properties":{"t":{"type":"object","x-kubernetes-embedded-resource":true}}})"),
              ElementsAre("spec.versions[0].schema.openAPIV3Schema.properties[t].properties: Required value: must not be "
                          "empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields"));
}

TEST(CrdSchemaChecksTest, ListTypes) {
  const std::string prefix = "spec.versions[0].schema.openAPIV3Schema.properties[l].";
  EXPECT_THAT(check(R"({"type":"object","properties":{"l":{"type":"string","x-kubernetes-list-type":"set"}}})"),
              ElementsAre(prefix + R"(type: Invalid value: "string": must be array if x-kubernetes-list-type is specified)"));
  EXPECT_THAT(check(R"({"type":"object","properties":{"l":{"type":"array","items":{"type":"string"},"x-kubernetes-list-type":"bag"}}})"),
              ElementsAre(prefix + R"(x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map")"));
  EXPECT_THAT(check(R"({"type":"object","properties":{"l":{"type":"array","x-kubernetes-list-type":"map",
                        "items":{"type":"object","properties":{"a":{"type":"string"}}}}}})"),
              ElementsAre(prefix + "x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map"));
  EXPECT_THAT(check(R"({"type":"object","properties":{"l":{"type":"array","x-kubernetes-list-type":"map",
                        "x-kubernetes-list-map-keys":["name"],"items":{"type":"object","properties":{"a":{"type":"string"}}}}}})"),
              ElementsAre(prefix + R"(x-kubernetes-list-map-keys: Invalid value: []string{"name"}: entries must all be names of item properties)"));
  EXPECT_THAT(check(R"({"type":"object","properties":{"l":{"type":"array","x-kubernetes-list-type":"map",
                        "x-kubernetes-list-map-keys":["name"],"items":{"type":"object","properties":{"name":{"type":"string"}}}}}})"),
              ElementsAre(prefix + "items.properties[name].default: Required value: this property is in "
                                   "x-kubernetes-list-map-keys, so it must have a default or be a required property"));
  EXPECT_THAT(check(R"({"type":"object","properties":{"l":{"type":"array","x-kubernetes-list-map-keys":["name"],
                        "items":{"type":"object","properties":{"name":{"type":"string"}}}}}})"),
              ElementsAre(prefix + "x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty"));
}

TEST(CrdSchemaChecksTest, MetadataAtTheRootOnlyRestrictsNames) {
  EXPECT_THAT(check(R"({"type":"object","properties":{"metadata":{"type":"object","properties":{"name":{"type":"string","maxLength":10}}}}})"),
              IsEmpty());
  EXPECT_THAT(check(R"({"type":"object","properties":{"metadata":{"type":"object","properties":{"labels":{"type":"object"}}}}})"),
              ElementsAre("spec.versions[0].schema.openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything "
                          "other than name and generateName, but metadata is implicitly specified"));
  EXPECT_THAT(check(R"({"type":"object","properties":{"metadata":{"type":"object","default":{}}}})"),
              ElementsAre("spec.versions[0].schema.openAPIV3Schema.properties[metadata].default: Forbidden: must not be set in "
                          "top-level metadata"));
}

TEST(CrdSchemaChecksTest, JunctorsOnlyRestrictValues) {
  EXPECT_THAT(check(R"({"type":"object","properties":{"x":{"type":"string","anyOf":[{"type":"string"}]}}})"),
              ElementsAre("spec.versions[0].schema.openAPIV3Schema.properties[x].anyOf[0].type: Forbidden: must be empty to be structural"));
  // kube checks that junctors name only specified fields for the root's junctors.
  EXPECT_THAT(check(R"({"type":"object","properties":{"spec":{"type":"object","properties":{"a":{"type":"string"}}}},
                        "allOf":[{"properties":{"spec":{"properties":{"b":{"maxLength":3}}}}}]})"),
              ElementsAre("spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[b]: Required value: because it is "
                          "defined in spec.versions[0].schema.openAPIV3Schema.allOf[0].properties[spec].properties[b]"));
  EXPECT_THAT(check(R"({"type":"object","uniqueItems":true})"),
              ElementsAre("spec.versions[0].schema.openAPIV3Schema.uniqueItems: Forbidden: uniqueItems cannot be set to true "
                          "since the runtime complexity becomes quadratic"));
  EXPECT_THAT(check(R"({"type":"object","nullable":true})"),
              ElementsAre("spec.versions[0].schema.openAPIV3Schema.nullable: Forbidden: nullable cannot be true at the root"));
}

TEST(CrdSchemaChecksTest, DefaultsMustValidateAndBePruned) {
  EXPECT_THAT(check(R"({"type":"object","properties":{"spec":{"type":"object","properties":{"replicas":{"type":"integer","default":"x"}}}}})"),
              ElementsAre("spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[replicas].default: Invalid value: "
                          R"("string":  in body must be of type integer: "string")"));
  EXPECT_THAT(check(R"({"type":"object","properties":{"spec":{"type":"object","default":{"foo":1},"properties":{"a":{"type":"string"}}}}})"),
              ElementsAre("spec.versions[0].schema.openAPIV3Schema.properties[spec].default: Invalid value: "
                          R"(map[string]interface {}{"foo":1}: must not have unknown fields)"));
}

TEST(CrdSchemaChecksTest, CelRulesAreFound) {
  EXPECT_FALSE(has_cel_rules(schema_from(kCronTabSchema)));
  EXPECT_TRUE(has_cel_rules(schema_from(R"({"type":"object","properties":{"spec":{"type":"object",
      "x-kubernetes-validations":[{"rule":"self.a == 1"}]}}})")));
}

}  // namespace
}  // namespace kapi::apiextensions::schema::schema_checks_test
