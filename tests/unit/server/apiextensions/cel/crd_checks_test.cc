// The checks of x-kubernetes-validations when a CRD is written (apiextensions-apiserver
// pkg/apis/apiextensions/validation/validation_test.go, the x-kubernetes-validations cases).
#include "server/apiextensions/cel/crd_checks.h"

#include "tests/unit/server/apiextensions/schema_test_util.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kapi::apiextensions::cel::crd_checks_test {
namespace {

using schema::testing::schema_from;
using schema::testing::texts;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::vector<std::string> check(std::string_view schema) {
  return texts(validate_crd_rules(schema_from(schema), validation::Path("spec.validation.openAPIV3Schema")));
}

TEST(CrdCelChecksTest, ValidRules) {
  EXPECT_THAT(check(R"j({"type":"object","properties":{"spec":{"type":"object",
      "x-kubernetes-validations":[{"rule":"self.a > 0","messageExpression":"'a is too small for ' + self.s"},
                                   {"rule":"self.a == oldSelf.a","optionalOldSelf":false}],
      "properties":{"a":{"type":"integer"},"s":{"type":"string"}}}}})j"),
              IsEmpty());
}

TEST(CrdCelChecksTest, RuleFields) {
  EXPECT_THAT(check(R"({"type":"object","x-kubernetes-validations":[
      {"rule":" "},
      {"rule":"true","message":" "},
      {"rule":"true","message":"a\nb"},
      {"rule":"true ||\nfalse"},
      {"rule":"true","messageExpression":" "},
      {"rule":"true","reason":"Other"},
      {"rule":"true","fieldPath":".missing"}]})"),
              ElementsAre("spec.validation.openAPIV3Schema.x-kubernetes-validations[0].rule: Required value: rule is not specified",
                          R"(spec.validation.openAPIV3Schema.x-kubernetes-validations[1].message: Invalid value: " ": message must be non-empty if specified)",
                          R"(spec.validation.openAPIV3Schema.x-kubernetes-validations[2].message: Invalid value: "a\nb": message must not contain line breaks)",
                          "spec.validation.openAPIV3Schema.x-kubernetes-validations[3].message: Required value: message must be specified if rule contains line breaks",
                          "spec.validation.openAPIV3Schema.x-kubernetes-validations[4].messageExpression: Required value: messageExpression must be non-empty if specified",
                          R"(spec.validation.openAPIV3Schema.x-kubernetes-validations[5].reason: Unsupported value: "Other": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired")",
                          R"(spec.validation.openAPIV3Schema.x-kubernetes-validations[6].fieldPath: Invalid value: ".missing": fieldPath must be a valid path)"));
}

TEST(CrdCelChecksTest, CompilationErrors) {
  EXPECT_THAT(check(R"({"type":"object","properties":{"spec":{"type":"object",
      "x-kubernetes-validations":[{"rule":"self.b > 0"},{"rule":"self.a"},
                                   {"rule":"self.a > 0","messageExpression":"self.a"}],
      "properties":{"a":{"type":"integer"}}}}})"),
              ElementsAre("spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: "
                          R"(apiextensions.ValidationRule{Rule:"self.b > 0", Message:"", MessageExpression:"", )"
                          R"(Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: )"
                          "compilation failed: ERROR: <input>:1:5: undefined field 'b'\n | self.b > 0\n | ....^",
                          "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[1].rule: Invalid value: "
                          R"(apiextensions.ValidationRule{Rule:"self.a", Message:"", MessageExpression:"", )"
                          R"(Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: )"
                          "cel expression must evaluate to a bool",
                          "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[2].messageExpression: "
                          R"(Invalid value: apiextensions.ValidationRule{Rule:"self.a > 0", Message:"", MessageExpression:"self.a", )"
                          R"(Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: )"
                          "messageExpression must evaluate to a string"));
}

TEST(CrdCelChecksTest, OldSelfOnlyWhereValuesCorrelate) {
  EXPECT_THAT(check(R"({"type":"object","properties":{"l":{"type":"array","maxItems":10,"items":{"type":"string","maxLength":10,
      "x-kubernetes-validations":[{"rule":"self == oldSelf"}]}},
      "s":{"type":"string","x-kubernetes-validations":[{"rule":"self != ''","optionalOldSelf":true}]}}})"),
              ElementsAre(R"(spec.validation.openAPIV3Schema.properties[l].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within spec.validation.openAPIV3Schema.properties[l])",
                          "spec.validation.openAPIV3Schema.properties[s].x-kubernetes-validations[0].optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule"));
}

TEST(CrdCelChecksTest, StringConversionsMakeMessageExpressionsUnbounded) {
  // kube's own case: string() of a list element has no size bound, so the concatenation's estimate is unbounded.
  EXPECT_THAT(check(R"j({"type":"object","properties":{"f":{"type":"array","items":{"type":"string"},
      "x-kubernetes-validations":[{"rule":"true","messageExpression":"string(self[0]) + string(self[1]) + string(self[2])"}]}}})j"),
              ElementsAre("spec.validation.openAPIV3Schema.properties[f].x-kubernetes-validations[0].messageExpression: "
                          "Forbidden: estimated messageExpression cost exceeds budget by factor of more than 100x (try "
                          "simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, "
                          "and strings are declared)",
                          "spec.validation.openAPIV3Schema.properties[f].x-kubernetes-validations[0].messageExpression: "
                          "Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 "
                          "schema",
                          "spec.validation.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost "
                          "total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying "
                          "the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings "
                          "are declared)"));
}

TEST(CrdCelChecksTest, EstimatedCostLimits) {
  // Unbounded lists of unbounded strings: kube's TestCostEstimation figures exceed the per-rule limit.
  auto errors = check(R"j({"type":"object","properties":{"l":{"type":"array","items":{"type":"string"},
      "x-kubernetes-validations":[{"rule":"self.all(x, self.all(y, x == y))"}]}}})j");
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors.front(), "spec.validation.openAPIV3Schema.properties[l].x-kubernetes-validations[0].rule: Forbidden: "
                            "estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, "
                            "or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are "
                            "declared)");
}

TEST(CrdCelChecksTest, CostMessageFactor) {
  EXPECT_EQ(cost_error_message("estimated rule cost", 12'000'000, kStaticEstimatedCostLimit),
            "estimated rule cost exceeds budget by factor of 1.200000x (try simplifying the rule, or adding maxItems, "
            "maxProperties, and maxLength where arrays, maps, and strings are declared)");
  EXPECT_EQ(cost_error_message("x", 25'000'000, kStaticEstimatedCostLimit).substr(0, 35),
            "x exceeds budget by factor of 2.5x ");
}

}  // namespace
}  // namespace kapi::apiextensions::cel::crd_checks_test
