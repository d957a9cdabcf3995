// A rule's fieldPath as kube's ValidFieldPath checks and normalizes it (validation_test.go TestValidFieldPath).
#include "server/apiextensions/cel/field_path.h"

#include "tests/unit/server/apiextensions/schema_test_util.h"

#include <gtest/gtest.h>

namespace kapi::apiextensions::cel::field_path_test {
namespace {

using schema::testing::schema_from;

const schema::Schema& schema() {
  static const schema::Schema kSchema = schema_from(R"({"type":"object","properties":{
      "a":{"type":"object","properties":{"b.c":{"type":"string"},"d":{"type":"integer"}}},
      "m":{"type":"object","additionalProperties":{"type":"object","properties":{"x":{"type":"string"}}}},
      "l":{"type":"array","items":{"type":"string"}}}})");
  return kSchema;
}

std::string normalized(std::string_view path) {
  auto result = valid_field_path(path, schema());
  if (auto* error = std::get_if<std::string>(&result)) return "error: " + *error;
  return std::get<FieldPathResult>(result).path;
}

TEST(CelFieldPathTest, NormalizesValidPaths) {
  EXPECT_EQ(normalized(".a.d"), "a.d");
  EXPECT_EQ(normalized(".a['b.c']"), "a.b.c");
  EXPECT_EQ(normalized("['a'].d"), "a.d");
  EXPECT_EQ(normalized(".m['k 1'].x"), "m[k 1].x");
  EXPECT_EQ(normalized(".m.k"), "m[k]");
  EXPECT_EQ(normalized(".l"), "l");
}

TEST(CelFieldPathTest, RefusesWithKubesReasons) {
  EXPECT_EQ(normalized(".a.e"), "error: does not refer to a valid field");
  EXPECT_EQ(normalized(".l.x"), "error: does not refer to a valid field");
  EXPECT_EQ(normalized("a"), "error: expected [ or . but got: a");
  EXPECT_EQ(normalized(".a["), "error: unexpected end of JSON path");
  EXPECT_EQ(normalized(".a[b]"), "error: expected single quoted string but got b");
  EXPECT_EQ(normalized(".a['d'"), "error: unexpected end of JSON path");
  EXPECT_EQ(normalized(".a['\\q']"), "error: invalid string literal: invalid escape char \\q");
  EXPECT_EQ(std::get<std::string>(valid_field_path(".a['d']", schema(), false)), "array notation is not allowed");
}

}  // namespace
}  // namespace kapi::apiextensions::cel::field_path_test
