#include "server/apiextensions/schema/defaulting.h"
#include "server/apiextensions/schema/embedded_resources.h"
#include "server/apiextensions/schema/pruning.h"

#include "tests/unit/server/apiextensions/schema_test_util.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kapi::apiextensions::schema::pruning_defaulting_test {
namespace {

namespace json = boost::json;
using testing::schema_from;
using testing::texts;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(PruningTest, DropsUnknownFieldsAndReportsThemSorted) {
  Schema schema = schema_from(R"({"type":"object","properties":{"spec":{"type":"object","properties":{
    "image":{"type":"string"},
    "nested":{"type":"object","properties":{"a":{"type":"integer"}}},
    "list":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"}}}},
    "env":{"type":"object","additionalProperties":{"type":"object","properties":{"x":{"type":"string"}}}}}}}})");
  json::value object = json::parse(R"({"apiVersion":"v1","kind":"K","metadata":{"name":"n","foo":1},"extra":true,
    "spec":{"image":"i","zzz":1,"nested":{"a":1,"b":{"c":2}},"list":[{"name":"a"},{"name":"b","bad":1}],
            "env":{"k":{"x":"1","y":"2"}}}})");
  EXPECT_THAT(prune(object, schema), ElementsAre("extra", "spec.env.k.y", "spec.list[1].bad", "spec.nested.b", "spec.zzz"));
  EXPECT_EQ(object, json::parse(R"({"apiVersion":"v1","kind":"K","metadata":{"name":"n","foo":1},
    "spec":{"image":"i","nested":{"a":1},"list":[{"name":"a"},{"name":"b"}],"env":{"k":{"x":"1"}}}})"));
}

TEST(PruningTest, PreserveUnknownFieldsStillPrunesSpecifiedChildren) {
  Schema schema = schema_from(R"({"type":"object","properties":{"spec":{"type":"object","x-kubernetes-preserve-unknown-fields":true,
    "properties":{"known":{"type":"object","properties":{"a":{"type":"string"}}}}}}})");
  json::value object = json::parse(R"({"spec":{"anything":{"goes":1},"known":{"a":"x","b":"y"}}})");
  EXPECT_THAT(prune(object, schema), ElementsAre("spec.known.b"));
  EXPECT_EQ(object, json::parse(R"({"spec":{"anything":{"goes":1},"known":{"a":"x"}}})"));
}

TEST(PruningTest, EmbeddedResourcesKeepTheirTypeMetaAndOnlyObjectMetaFields) {
  Schema schema = schema_from(R"({"type":"object","properties":{"spec":{"type":"object","properties":{
    "template":{"type":"object","x-kubernetes-embedded-resource":true,
                "properties":{"spec":{"type":"object","properties":{"x":{"type":"string"}}}}}}}}})");
  json::value object = json::parse(R"({"spec":{"template":{"apiVersion":"v1","kind":"Pod",
    "metadata":{"name":"p","labels":{"a":"b"},"bogus":1},"spec":{"x":"1","y":"2"}}}})");
  EXPECT_THAT(prune(object, schema), ElementsAre("spec.template.spec.y"));
  EXPECT_THAT(coerce_embedded_metadata(object, schema), ElementsAre("spec.template.metadata.bogus"));
  EXPECT_EQ(object, json::parse(R"({"spec":{"template":{"apiVersion":"v1","kind":"Pod",
    "metadata":{"name":"p","labels":{"a":"b"},"creationTimestamp":null},"spec":{"x":"1"}}}})"));
}

TEST(DefaultingTest, FillsAbsentFieldsInObjectsItemsAndMaps) {
  Schema schema = schema_from(R"({"type":"object","properties":{"spec":{"type":"object","default":{},"properties":{
    "replicas":{"type":"integer","default":1},
    "image":{"type":"string"},
    "ports":{"type":"array","items":{"type":"object","properties":{"protocol":{"type":"string","default":"TCP"}}}},
    "env":{"type":"object","additionalProperties":{"type":"object","properties":{"value":{"type":"string","default":"v"}}}}}}}})");
  json::value absent = json::parse("{}");
  apply_defaults(absent, schema);
  EXPECT_EQ(absent, json::parse(R"({"spec":{"replicas":1}})"));

  json::value object = json::parse(R"({"spec":{"replicas":3,"ports":[{"port":80},{"protocol":"UDP"}],"env":{"a":{}}}})");
  apply_defaults(object, schema);
  EXPECT_EQ(object, json::parse(R"({"spec":{"replicas":3,"ports":[{"port":80,"protocol":"TCP"},{"protocol":"UDP"}],
                                     "env":{"a":{"value":"v"}}}})"));
}

TEST(DefaultingTest, NullsAreDroppedDefaultedOrKept) {
  Schema schema = schema_from(R"({"type":"object","properties":{"spec":{"type":"object","properties":{
    "dropped":{"type":"string"},
    "defaulted":{"type":"string","default":"d"},
    "kept":{"type":"string","nullable":true,"default":"unused"},
    "list":{"type":"array","items":{"type":"string","default":"item"}}}}}})");
  json::value object = json::parse(R"({"spec":{"dropped":null,"defaulted":null,"kept":null,"list":["a",null]}})");
  prune_non_nullable_nulls_without_defaults(object, schema);
  apply_defaults(object, schema);
  EXPECT_EQ(object, json::parse(R"({"spec":{"defaulted":"d","kept":null,"list":["a","item"]}})"));
}

TEST(EmbeddedResourceValidationTest, ChecksTypeMetaAndMetadata) {
  Schema schema = schema_from(R"({"type":"object","properties":{"spec":{"type":"object","properties":{
    "template":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true}}}}})");
  EXPECT_THAT(texts(validate_embedded_resources(json::parse(R"({"spec":{"template":{"metadata":{}}}})"), schema)),
              ElementsAre("spec.template.apiVersion: Required value", "spec.template.kind: Required value"));
  EXPECT_THAT(texts(validate_embedded_resources(json::parse(R"({"spec":{"template":{"apiVersion":"a/b/c","kind":"Pod_x",
                                                             "metadata":{"name":"Bad_Name/"}}}})"), schema)),
              ElementsAre(R"(spec.template.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c)",
                          R"(spec.template.kind: Invalid value: "Pod_x": may have mixed case, but should otherwise match: a DNS-1035 )"
                          R"(label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, )"
                          R"(and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is )"
                          R"('[a-z]([-a-z0-9]*[a-z0-9])?'))",
                          R"(spec.template.metadata.name: Invalid value: "Bad_Name/": may not contain '/')"));
  EXPECT_THAT(texts(validate_embedded_resources(json::parse(R"({"spec":{"template":{"apiVersion":"v1","kind":"Pod"}}})"), schema)),
              IsEmpty());
}

}  // namespace
}  // namespace kapi::apiextensions::schema::pruning_defaulting_test
