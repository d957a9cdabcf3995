// Evaluating x-kubernetes-validations on custom resource writes, with kube's field errors
// (apiextensions-apiserver pkg/apiserver/schema/cel/validation_test.go).
#include "server/apiextensions/cel/validator.h"

#include "tests/unit/server/apiextensions/schema_test_util.h"

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kapi::apiextensions::cel::validator_test {
namespace {

namespace json = boost::json;
using schema::testing::schema_from;
using schema::testing::texts;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::shared_ptr<const Validator> validator_for(std::string_view schema) {
  return Validator::for_resource(std::make_shared<const schema::Schema>(schema_from(schema)));
}

std::vector<std::string> check(const Validator& validator, std::string_view object,
                               std::optional<std::string_view> old = std::nullopt, bool ratcheting = false) {
  json::value value = json::parse(object);
  std::optional<json::value> old_value;
  if (old) old_value = json::parse(*old);
  return texts(validator.validate(value, old_value ? &*old_value : nullptr, ratcheting).errors);
}

constexpr std::string_view kSchema = R"j({"type":"object",
  "x-kubernetes-validations":[{"rule":"self.spec.replicas <= self.spec.maxReplicas"}],
  "properties":{
    "spec":{"type":"object",
      "x-kubernetes-validations":[
        {"rule":"self.replicas >= 0","message":"replicas must not be negative"},
        {"rule":"self.name.startsWith('a')","messageExpression":"'name ' + self.name + ' must start with a'"},
        {"rule":"!has(self.banned)","reason":"FieldValueForbidden","fieldPath":".banned","message":"no banned"},
        {"rule":"self.mode == oldSelf.mode","message":"mode is immutable"}],
      "properties":{
        "replicas":{"type":"integer"},
        "maxReplicas":{"type":"integer"},
        "name":{"type":"string"},
        "banned":{"type":"string"},
        "mode":{"type":"string"},
        "ports":{"type":"array","items":{"type":"integer","x-kubernetes-validations":[{"rule":"self > 0"}]}}}}}})j";

TEST(CrdCelValidatorTest, NoValidatorWithoutRules) {
  EXPECT_EQ(validator_for(R"({"type":"object","properties":{"spec":{"type":"object"}}})"), nullptr);
}

TEST(CrdCelValidatorTest, PassingObject) {
  auto validator = validator_for(kSchema);
  ASSERT_NE(validator, nullptr);
  EXPECT_THAT(check(*validator, R"({"spec":{"replicas":1,"maxReplicas":2,"name":"abc","mode":"x","ports":[1,2]}})"),
              IsEmpty());
}

TEST(CrdCelValidatorTest, FailingRulesReportKubesErrors) {
  auto validator = validator_for(kSchema);
  EXPECT_THAT(check(*validator, R"({"spec":{"replicas":-3,"maxReplicas":-5,"name":"bob","banned":"x","mode":"y",
                                    "ports":[1,0]}})"),
              ElementsAre(R"(<nil>: Invalid value: "object": failed rule: self.spec.replicas <= self.spec.maxReplicas)",
                          R"(spec: Invalid value: "object": replicas must not be negative)",
                          R"(spec: Invalid value: "object": name bob must start with a)",
                          "spec.banned: Forbidden: no banned",
                          R"(spec.ports[1]: Invalid value: "integer": failed rule: self > 0)"));
}

TEST(CrdCelValidatorTest, TransitionRulesRunOnlyOnUpdates) {
  auto validator = validator_for(kSchema);
  constexpr std::string_view kOld = R"({"spec":{"replicas":1,"maxReplicas":2,"name":"a","mode":"x"}})";
  EXPECT_THAT(check(*validator, R"({"spec":{"replicas":1,"maxReplicas":2,"name":"a","mode":"y"}})", kOld),
              ElementsAre(R"(spec: Invalid value: "object": mode is immutable)"));
  EXPECT_THAT(check(*validator, R"({"spec":{"replicas":1,"maxReplicas":2,"name":"a","mode":"x"}})", kOld), IsEmpty());
}

// optionalOldSelf: a transition rule that runs on create too, with oldSelf an optional that is empty then (and
// empty for a value the old object did not have), as kube's validator binds it.
TEST(CrdCelValidatorTest, OptionalOldSelfRulesRunOnCreateWithAnEmptyOldSelf) {
  auto validator = validator_for(R"({"type":"object","properties":{"spec":{"type":"object","properties":{
      "level":{"type":"integer","x-kubernetes-validations":[{"rule":"oldSelf.hasValue() ? self >= oldSelf.value() : self < 10",
        "optionalOldSelf":true,"message":"must start below 10 and never decrease"}]}}}}})");
  ASSERT_NE(validator, nullptr);
  EXPECT_THAT(check(*validator, R"({"spec":{"level":3}})"), IsEmpty());
  EXPECT_THAT(check(*validator, R"({"spec":{"level":12}})"),
              ElementsAre(R"(spec.level: Invalid value: "integer": must start below 10 and never decrease)"));
  EXPECT_THAT(check(*validator, R"({"spec":{"level":12}})", R"({"spec":{"level":3}})"), IsEmpty());
  EXPECT_THAT(check(*validator, R"({"spec":{"level":2}})", R"({"spec":{"level":3}})"),
              ElementsAre(R"(spec.level: Invalid value: "integer": must start below 10 and never decrease)"));
  // Added by an update: no old value to correlate with, so oldSelf is empty again.
  EXPECT_THAT(check(*validator, R"({"spec":{"level":12}})", R"({"spec":{}})"),
              ElementsAre(R"(spec.level: Invalid value: "integer": must start below 10 and never decrease)"));
}

TEST(CrdCelValidatorTest, EvaluationErrors) {
  auto validator = validator_for(R"({"type":"object","properties":{"spec":{"type":"object",
      "x-kubernetes-validations":[{"rule":"self.a == 1"}],"properties":{"a":{"type":"integer"}}}}})");
  EXPECT_THAT(check(*validator, R"({"spec":{}})"),
              ElementsAre(R"(spec: Invalid value: "object": no such key: a evaluating rule: self.a == 1)"));
}

TEST(CrdCelValidatorTest, RatchetingLetsUnchangedValuesKeepFailing) {
  auto validator = validator_for(R"({"type":"object","properties":{"spec":{"type":"object","properties":{
      "a":{"type":"integer","x-kubernetes-validations":[{"rule":"self < 10"}]},
      "b":{"type":"integer"}}}}})");
  constexpr std::string_view kOld = R"({"spec":{"a":20,"b":1}})";
  EXPECT_THAT(check(*validator, R"({"spec":{"a":20,"b":2}})", kOld, true), IsEmpty());
  EXPECT_THAT(check(*validator, R"({"spec":{"a":21,"b":2}})", kOld, true),
              ElementsAre(R"(spec.a: Invalid value: "integer": failed rule: self < 10)"));
  // Without ratcheting (the status subresource), the unchanged value fails again.
  EXPECT_THAT(check(*validator, R"({"spec":{"a":20,"b":2}})", kOld, false),
              ElementsAre(R"(spec.a: Invalid value: "integer": failed rule: self < 10)"));
}

// kube's validation_test.go ratcheting cases (TestRatcheting), paths from the root instead of "root".
TEST(CrdCelValidatorTest, RatchetingFollowsKubesCases) {
  auto maps = validator_for(R"j({"type":"object","properties":{"stringField":{"type":"string"},
      "mapField":{"type":"object","properties":{
        "foo":{"type":"string","x-kubernetes-validations":[{"rule":"self == \"baz\"","message":"gotta be baz"}]},
        "mapField":{"type":"object","properties":{
          "bar":{"type":"string","x-kubernetes-validations":[{"rule":"self == \"baz\"","message":"gotta be baz"}]},
          "otherBar":{"type":"string","x-kubernetes-validations":[{"rule":"self == \"otherBaz\"","message":"gotta be otherBaz"}]}}}}}}})j");
  EXPECT_THAT(check(*maps, R"({"stringField":"foo","mapField":{"foo":"notbaz","mapField":{"bar":"notbaz","otherBar":"otherBaz"}}})",
                    R"({"stringField":"foo","mapField":{"foo":"baz","mapField":{"bar":"notbaz","otherBar":"nototherBaz"}}})", true),
              ElementsAre(R"(mapField.foo: Invalid value: "string": gotta be baz)"));

  auto atomic = validator_for(R"j({"type":"object","properties":{"stringField":{"type":"string"},
      "atomicArray":{"type":"array","x-kubernetes-list-type":"atomic","items":{"type":"object","properties":{
        "bar":{"type":"string","x-kubernetes-validations":[{"rule":"self == \"baz\"","message":"gotta be baz"}]}}}}}})j");
  EXPECT_THAT(check(*atomic, R"({"stringField":"changed but ratcheted","atomicArray":[{"bar":"bar"}]})",
                    R"({"stringField":"foo","atomicArray":[{"bar":"bar"}]})", true),
              IsEmpty());
  EXPECT_THAT(check(*atomic, R"({"atomicArray":[{"bar":"bar"},{"bar":"baz"}]})", R"({"atomicArray":[{"bar":"bar"}]})", true),
              ElementsAre(R"(atomicArray[0].bar: Invalid value: "string": gotta be baz)"));

  auto transition = validator_for(R"j({"type":"object","properties":{"foo":{"type":"string",
      "x-kubernetes-validations":[{"rule":"oldSelf != \"bar\" && self == \"baz\"","message":"gotta be baz"}]}}})j");
  EXPECT_THAT(check(*transition, R"({"foo":"bar"})", R"({"foo":"bar"})", true),
              ElementsAre(R"(foo: Invalid value: "string": gotta be baz)"));

  auto field_path = validator_for(R"j({"type":"object","x-kubernetes-validations":[{"rule":"self.foo == \"baz\"",
      "message":"gotta be baz","fieldPath":".foo"}],"properties":{"bar":{"type":"string"},"foo":{"type":"string"}}})j");
  EXPECT_THAT(check(*field_path, R"({"foo":"bar","bar":"invalid"})", R"({"foo":"bar"})", true),
              ElementsAre(R"(foo: Invalid value: "object": gotta be baz)"));

  auto type_meta = validator_for(R"j({"type":"object","properties":{
      "apiVersion":{"type":"string","x-kubernetes-validations":[{"rule":"self == \"v1\""}]},
      "kind":{"type":"string","x-kubernetes-validations":[{"rule":"self == \"Pod\""}]}}})j");
  EXPECT_THAT(check(*type_meta, R"({"apiVersion":"v2","kind":"Baz"})", R"({"apiVersion":"v2","kind":"Baz"})", true),
              ElementsAre(R"(apiVersion: Invalid value: "string": failed rule: self == "v1")",
                          R"(kind: Invalid value: "string": failed rule: self == "Pod")"));
}

TEST(CrdCelValidatorTest, CompileErrorsAtRunTime) {
  auto validator = validator_for(R"j({"type":"object","properties":{"s":{"type":"string",
      "x-kubernetes-validations":[{"rule":"asdausidyhASDNJm","message":"gotta be baz"}]}}})j");
  auto errors = check(*validator, R"({"s":"unchanged"})", R"({"s":"unchanged"})", true);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], "s: Invalid value: \"string\": rule compile error: compilation failed: ERROR: <input>:1:1: "
                       "undeclared reference to 'asdausidyhASDNJm' (in container '')\n | asdausidyhASDNJm\n | ^");
}

TEST(CrdCelValidatorTest, MapListItemsCorrelateByKey) {
  auto validator = validator_for(R"({"type":"object","properties":{"items":{"type":"array",
      "x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
      "items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"v":{"type":"integer"}},
               "x-kubernetes-validations":[{"rule":"self.v >= oldSelf.v","message":"v may only grow"}]}}}})");
  EXPECT_THAT(check(*validator, R"({"items":[{"name":"b","v":1},{"name":"a","v":5}]})",
                    R"({"items":[{"name":"a","v":4},{"name":"b","v":2}]})"),
              ElementsAre(R"(items[0]: Invalid value: "object": v may only grow)"));
}

TEST(CrdCelValidatorTest, PerCallCostLimit) {
  auto validator = validator_for(R"j({"type":"object","properties":{"l":{"type":"array","items":{"type":"integer"},
      "x-kubernetes-validations":[{"rule":"self.all(x, self.all(y, x + y >= 0))"},{"rule":"size(self) > 0"}]}}})j");
  std::string items = "[";
  for (int i = 0; i < 2000; ++i) items += (i ? ",1" : "1");
  items += "]";
  EXPECT_THAT(check(*validator, R"({"l":)" + items + "}"),
              ElementsAre(R"(l: Invalid value: "array": 'operation cancelled: actual cost limit exceeded': no further )"
                          R"(validation rules will be run due to call cost exceeds limit for rule: )"
                          R"(self.all(x, self.all(y, x + y >= 0)))"));
}

TEST(CrdCelValidatorTest, RequestBudget) {
  auto validator = validator_for(R"j({"type":"object","properties":{"l":{"type":"array","items":{"type":"integer"},
      "x-kubernetes-validations":[{"rule":"self.all(x, x > 0)"},{"rule":"self.all(x, x > 0)"}]}}})j");
  json::value value = json::parse(R"({"l":[1,2,3]})");
  auto result = validator->validate(value, nullptr, false, 12);
  EXPECT_THAT(texts(result.errors),
              ElementsAre(R"(l: Invalid value: "array": validation failed due to running out of cost budget, no )"
                          R"(further validation rules will be run)"));
}

}  // namespace
}  // namespace kapi::apiextensions::cel::validator_test
