#include "server/apiextensions/schema/value_validation.h"

#include "tests/unit/server/apiextensions/schema_test_util.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kapi::apiextensions::schema::value_validation_test {
namespace {

namespace json = boost::json;
using testing::kCronTabSchema;
using testing::schema_from;
using testing::texts;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

class CronTabValidationTest : public ::testing::Test {
 protected:
  Schema schema = schema_from(kCronTabSchema);

  // The errors for a CronTab whose spec adds `spec_fields` to a valid cronSpec and image.
  std::vector<std::string> errors_for_spec(std::string_view spec_fields) {
    std::string text = R"({"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"c"},)"
                       R"("spec":{"cronSpec":"* * * * */5","image":"my-cron-image")";
    if (!spec_fields.empty()) text += "," + std::string(spec_fields);
    text += "}}";
    return texts(validate_value(schema, json::parse(text)));
  }
};

TEST_F(CronTabValidationTest, AcceptsAValidCronTab) {
  EXPECT_THAT(errors_for_spec(R"("replicas":3,"size":"small","name":"abc","tags":["a"],"labels":{"a":"b"},)"
                              R"("ratio":1.5,"batch":4,"when":"2024-05-01T10:00:00Z",)"
                              R"("id":"0f8fad5b-d9cb-469f-a165-70867728950e","port":"http","note":null,"count32":7)"),
              IsEmpty());
  EXPECT_THAT(errors_for_spec(R"("port":8080,"replicas":4.0)"), IsEmpty());  // a whole float is an integer
}

TEST_F(CronTabValidationTest, WrongTypesAreTypeInvalid) {
  auto errors = validate_value(schema, json::parse(R"({"spec":{"cronSpec":"* * * * *","image":"i","replicas":"string"}})"));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].text(), R"(spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string")");
  EXPECT_EQ(errors[0].reason(), "FieldValueTypeInvalid");
  EXPECT_THAT(errors_for_spec(R"("replicas":1.5)"),
              ElementsAre(R"(spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number")"));
  EXPECT_THAT(errors_for_spec(R"("image":null)"),
              ElementsAre(R"(spec.image: Invalid value: "null": spec.image in body must be of type string: "null")"));
  EXPECT_THAT(errors_for_spec(R"("tags":["a",2])"),
              ElementsAre(R"(spec.tags[1]: Invalid value: "integer": spec.tags[1] in body must be of type string: "integer")"));
  EXPECT_THAT(errors_for_spec(R"("port":true)"),
              ElementsAre(R"(spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean")"));
  EXPECT_THAT(errors_for_spec(R"("labels":{"a":1})"),
              ElementsAre(R"(spec.labels.a: Invalid value: "integer": spec.labels.a in body must be of type string: "integer")"));
  // A format on an integer is checked against the value's own format name, as kube-openapi's type validator does.
  EXPECT_THAT(errors_for_spec(R"("count32":1.5)"),
              ElementsAre(R"(spec.count32: Invalid value: "double": spec.count32 in body must be of type int32: "double")"));
}

TEST_F(CronTabValidationTest, RequiredFieldsAndEnums) {
  auto errors = validate_value(schema, json::parse(R"({"spec":{"cronSpec":"* * * * *"}})"));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].text(), "spec.image: Required value");
  EXPECT_EQ(errors[0].reason(), "FieldValueRequired");
  EXPECT_THAT(errors_for_spec(R"("size":"huge")"),
              ElementsAre(R"(spec.size: Unsupported value: "huge": supported values: "small", "large")"));
  // The enum is checked whatever the type check found, as kube-openapi runs both.
  EXPECT_THAT(errors_for_spec(R"("size":3)"),
              ElementsAre(R"(spec.size: Invalid value: "integer": spec.size in body must be of type string: "integer")",
                          R"(spec.size: Unsupported value: 3: supported values: "small", "large")"));
}

TEST_F(CronTabValidationTest, BoundsAndMultiples) {
  EXPECT_THAT(errors_for_spec(R"("replicas":11)"),
              ElementsAre("spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10"));
  EXPECT_THAT(errors_for_spec(R"("replicas":0)"),
              ElementsAre("spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1"));
  EXPECT_THAT(errors_for_spec(R"("ratio":2.5)"),
              ElementsAre("spec.ratio: Invalid value: 2.5: spec.ratio in body should be less than or equal to 1.5"));
  EXPECT_THAT(errors_for_spec(R"("ratio":0)"), ElementsAre("spec.ratio: Invalid value: 0: spec.ratio in body should be greater than 0"));
  EXPECT_THAT(errors_for_spec(R"("batch":7)"), ElementsAre("spec.batch: Invalid value: 7: spec.batch in body should be a multiple of 2"));
}

TEST_F(CronTabValidationTest, StringsPatternsAndFormats) {
  EXPECT_THAT(errors_for_spec(R"("cronSpec":"bad")"),
              ElementsAre(R"(spec.cronSpec: Invalid value: "bad": spec.cronSpec in body should match '^(\d+|\*)(/\d+)?(\s+(\d+|\*)(/\d+)?){4}$')"));
  EXPECT_THAT(errors_for_spec(R"("name":"toolong")"), ElementsAre("spec.name: Too long: may not be more than 5 bytes"));
  EXPECT_THAT(errors_for_spec(R"("name":"ab")"),
              ElementsAre(R"(spec.name: Invalid value: "ab": spec.name in body should be at least 3 chars long)"));
  EXPECT_THAT(errors_for_spec(R"("when":"yesterday")"),
              ElementsAre(R"(spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday")"));
  EXPECT_THAT(errors_for_spec(R"("id":"not-a-uuid")"),
              ElementsAre(R"(spec.id: Invalid value: "not-a-uuid": spec.id in body must be of type uuid: "not-a-uuid")"));
}

TEST_F(CronTabValidationTest, ListAndMapSizes) {
  EXPECT_THAT(errors_for_spec(R"("tags":["a","b","c"])"), ElementsAre("spec.tags: Too many: 3: must have at most 2 items"));
  EXPECT_THAT(errors_for_spec(R"("tags":[])"), ElementsAre("spec.tags: Invalid value: 0: spec.tags in body should have at least 1 items"));
  EXPECT_THAT(errors_for_spec(R"("labels":{"a":"1","b":"2","c":"3"})"), ElementsAre("spec.labels: Too many: 3: must have at most 2 items"));
  EXPECT_THAT(errors_for_spec(R"("labels":{})"),
              ElementsAre("spec.labels: Invalid value: 0: spec.labels in body should have at least 1 properties"));
}

TEST(ValueValidationTest, Junctors) {
  Schema schema = schema_from(R"({"type":"object","properties":{
    "mode":{"type":"string","oneOf":[{"pattern":"^a"},{"pattern":"^b"}]},
    "any":{"type":"string","anyOf":[{"maxLength":1},{"pattern":"^x"}]},
    "all":{"type":"integer","allOf":[{"minimum":5},{"maximum":9}]},
    "none":{"type":"string","not":{"enum":["forbidden"]}}}})");
  EXPECT_THAT(texts(validate_value(schema, json::parse(R"({"mode":"c"})"))),
              ElementsAre(R"(<nil>: Invalid value: "": "mode" must validate one and only one schema (oneOf). Found none valid)",
                          R"(mode: Invalid value: "c": mode in body should match '^a')"));
  EXPECT_THAT(texts(validate_value(schema, json::parse(R"({"mode":"a"})"))), IsEmpty());
  EXPECT_THAT(texts(validate_value(schema, json::parse(R"({"any":"yy"})"))),
              ElementsAre(R"(<nil>: Invalid value: "": "any" must validate at least one schema (anyOf))",
                          "any: Too long: may not be more than 1 byte"));
  EXPECT_THAT(texts(validate_value(schema, json::parse(R"({"all":10})"))),
              ElementsAre("all: Invalid value: 10: all in body should be less than or equal to 9",
                          R"(<nil>: Invalid value: "": "all" must validate all the schemas (allOf))"));
  EXPECT_THAT(texts(validate_value(schema, json::parse(R"({"none":"forbidden"})"))),
              ElementsAre(R"(<nil>: Invalid value: "": "none" must not validate the schema (not))"));
}

// Patterns and formats run as Go's regexp (RE2): in time linear in the text however long, without a stack frame per
// character (a long string once overflowed the stack), and a pattern Go refuses says why, in Go's words.
TEST(ValueValidationTest, PatternsRunAsGosRegexp) {
  Schema schema = schema_from(R"({"type":"object","properties":{
    "ab":{"type":"string","pattern":"^(a|b)*$"},
    "nested":{"type":"string","pattern":"(a*)*b"},
    "bad":{"type":"string","pattern":"(a"},
    "blob":{"type":"string","format":"byte"}}})");
  json::object long_values{{"ab", std::string(200'000, 'a')}, {"blob", std::string(400'000, 'A')}};
  EXPECT_THAT(texts(validate_value(schema, long_values)), IsEmpty());
  EXPECT_THAT(texts(validate_value(schema, json::parse(R"({"nested":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"})"))),
              ElementsAre(R"(nested: Invalid value: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa": nested in body should match '(a*)*b')"));
  EXPECT_THAT(texts(validate_value(schema, json::parse(R"({"bad":"a"})"))),
              ElementsAre("bad: Invalid value: \"a\": bad in body should match '(a, but pattern is invalid: error parsing "
                          "regexp: missing closing ): `(a`'"));
}

TEST(ValueValidationTest, NullableAndRootErrors) {
  Schema schema = schema_from(R"({"type":"object","required":["spec"],"properties":{"spec":{"type":"object","nullable":true}}})");
  EXPECT_THAT(texts(validate_value(schema, json::parse(R"({"spec":null})"))), IsEmpty());
  EXPECT_THAT(texts(validate_value(schema, json::parse("{}"))), ElementsAre("spec: Required value"));
  EXPECT_THAT(texts(validate_value(schema, json::parse("[]"))),
              ElementsAre(R"(<nil>: Invalid value: "array":  in body must be of type object: "array")"));
}

TEST(ValueValidationTest, ObjectValuesShowAsGoWouldPrintThem) {
  Schema schema = schema_from(R"({"type":"object","properties":{"spec":{"type":"object","properties":{
    "mode":{"type":"object","enum":[{"a":1}]}}}}})");
  EXPECT_THAT(texts(validate_value(schema, json::parse(R"({"spec":{"mode":{"b":[1,"x",null]}}})"))),
              ElementsAre(R"(spec.mode: Unsupported value: map[string]interface {}{"b":[]interface {}{1, "x", interface {}(nil)}}: supported values: "{\"a\":1}")"));
}

TEST(ValueValidationTest, ErrorsUnderABasePath) {
  Schema schema = schema_from(R"({"type":"integer"})");
  validation::Path base("spec");
  EXPECT_THAT(texts(validate_value(schema, json::parse(R"("x")"), base.child("default"))),
              ElementsAre(R"(spec.default: Invalid value: "string":  in body must be of type integer: "string")"));
}

}  // namespace
}  // namespace kapi::apiextensions::schema::value_validation_test
