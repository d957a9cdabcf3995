#include "server/patch/json_patch.h"

#include "server/apierrors/errors.h"
#include "tests/unit/server/patch/patch_test_util.h"

#include <gtest/gtest.h>

#include <string>

namespace kapi::patch::json_patch_test {
namespace {

using testing::json;
using testing::patch_error;

boost::json::value apply_patch(std::string_view document, std::string_view patch, const JsonPatchLimits& limits = {}) {
  return apply_json_patch(json(document), patch, limits);
}

// The 422 a failed operation gets, and the evanphx text the Status hides.
void expect_unprocessable(std::string_view document, std::string_view patch, std::string_view detail) {
  auto error = patch_error([&] { apply_patch(document, patch); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->status().code, 422);
  EXPECT_EQ(error->status().reason, "Invalid");
  EXPECT_EQ(error->status().message, "the server rejected our request due to an error in our request");
  EXPECT_EQ(error->detail(), detail);
}

struct Rfc6902Example {
  const char* name;
  const char* document;
  const char* patch;
  const char* expected;
};

// RFC 6902 appendix A, the examples that succeed.
const Rfc6902Example kRfcExamples[] = {
    {"A1AddingAnObjectMember", R"({"foo":"bar"})", R"([{"op":"add","path":"/baz","value":"qux"}])",
     R"({"baz":"qux","foo":"bar"})"},
    {"A2AddingAnArrayElement", R"({"foo":["bar","baz"]})", R"([{"op":"add","path":"/foo/1","value":"qux"}])",
     R"({"foo":["bar","qux","baz"]})"},
    {"A3RemovingAnObjectMember", R"({"baz":"qux","foo":"bar"})", R"([{"op":"remove","path":"/baz"}])",
     R"({"foo":"bar"})"},
    {"A4RemovingAnArrayElement", R"({"foo":["bar","qux","baz"]})", R"([{"op":"remove","path":"/foo/1"}])",
     R"({"foo":["bar","baz"]})"},
    {"A5ReplacingAValue", R"({"baz":"qux","foo":"bar"})", R"([{"op":"replace","path":"/baz","value":"boo"}])",
     R"({"baz":"boo","foo":"bar"})"},
    {"A6MovingAValue", R"({"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}})",
     R"([{"op":"move","from":"/foo/waldo","path":"/qux/thud"}])",
     R"({"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}})"},
    {"A7MovingAnArrayElement", R"({"foo":["all","grass","cows","eat"]})",
     R"([{"op":"move","from":"/foo/1","path":"/foo/3"}])", R"({"foo":["all","cows","eat","grass"]})"},
    {"A8TestingAValueSuccess", R"({"baz":"qux","foo":["a",2,"c"]})",
     R"([{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}])",
     R"({"baz":"qux","foo":["a",2,"c"]})"},
    {"A10AddingANestedMemberObject", R"({"foo":"bar"})",
     R"([{"op":"add","path":"/child","value":{"grandchild":{}}}])", R"({"foo":"bar","child":{"grandchild":{}}})"},
    {"A11IgnoringUnrecognizedElements", R"({"foo":"bar"})",
     R"([{"op":"add","path":"/baz","value":"qux","xyz":123}])", R"({"foo":"bar","baz":"qux"})"},
    {"A14TildeEscapeOrdering", R"({"/":9,"~1":10})", R"([{"op":"test","path":"/~01","value":10}])",
     R"({"/":9,"~1":10})"},
    {"A16AddingAnArrayValue", R"({"foo":["bar"]})", R"([{"op":"add","path":"/foo/-","value":["abc","def"]}])",
     R"({"foo":["bar",["abc","def"]]})"},
};

class JsonPatchRfc6902 : public ::testing::TestWithParam<Rfc6902Example> {};

TEST_P(JsonPatchRfc6902, AppendixAExample) {
  const Rfc6902Example& example = GetParam();
  EXPECT_EQ(apply_patch(example.document, example.patch), json(example.expected));
}

INSTANTIATE_TEST_SUITE_P(AppendixA, JsonPatchRfc6902, ::testing::ValuesIn(kRfcExamples),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(JsonPatch, A9FailedTestIsTheBare422KubeAnswers) {
  auto error = patch_error([] { apply_patch(R"({"baz":"qux"})", R"([{"op":"test","path":"/baz","value":"bar"}])"); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->detail(), "testing value /baz failed: test failed");
  EXPECT_EQ(apierrors::to_json(error->status()),
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
            R"("message":"the server rejected our request due to an error in our request","reason":"Invalid",)"
            R"("details":{},"code":422})");
}

TEST(JsonPatch, A12AddingToANonexistentTargetFails) {
  expect_unprocessable(R"({"foo":"bar"})", R"([{"op":"add","path":"/baz/bat","value":"qux"}])",
                       R"(add operation does not apply: doc is missing path: "/baz/bat": missing value)");
}

TEST(JsonPatch, A13DuplicateMembersKeepTheLastAsGoDecodesThem) {
  expect_unprocessable(R"({"foo":"bar"})", R"([{"op":"add","path":"/baz","value":"qux","op":"remove"}])",
                       "error in remove for path: '/baz': Unable to remove nonexistent key: baz: missing value");
}

TEST(JsonPatch, A15StringsAndNumbersDiffer) {
  expect_unprocessable(R"({"/":9,"~1":10})", R"([{"op":"test","path":"/~01","value":"10"}])",
                       "testing value /~01 failed: test failed");
}

TEST(JsonPatch, ReplacesAContainerImageInADeployment) {
  auto deployment = R"({"spec":{"template":{"spec":{"containers":[{"name":"app","image":"nginx:1"}]}}}})";
  EXPECT_EQ(apply_patch(deployment, R"([{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"nginx:2"}])"),
            json(R"({"spec":{"template":{"spec":{"containers":[{"name":"app","image":"nginx:2"}]}}}})"));
}

TEST(JsonPatch, AddsAndRemovesALabelWhoseKeyNeedsEscaping) {
  auto pod = R"({"metadata":{"labels":{"app":"web"}}})";
  auto added = apply_patch(pod, R"([{"op":"add","path":"/metadata/labels/app.kubernetes.io~1name","value":"web"}])");
  EXPECT_EQ(added, json(R"({"metadata":{"labels":{"app":"web","app.kubernetes.io/name":"web"}}})"));
  EXPECT_EQ(apply_json_patch(added, R"([{"op":"remove","path":"/metadata/labels/app.kubernetes.io~1name"}])"),
            json(pod));
}

TEST(JsonPatch, NegativeIndicesCountFromTheEndAsEvanphxAllows) {
  EXPECT_EQ(apply_patch(R"({"a":[1,2,3]})", R"([{"op":"remove","path":"/a/-1"}])"), json(R"({"a":[1,2]})"));
  EXPECT_EQ(apply_patch(R"({"a":[1,2]})", R"([{"op":"add","path":"/a/-1","value":9}])"), json(R"({"a":[1,2,9]})"));
  EXPECT_EQ(apply_patch(R"({"a":[1,2]})", R"([{"op":"replace","path":"/a/-2","value":0}])"), json(R"({"a":[0,2]})"));
  expect_unprocessable(R"({"a":[1]})", R"([{"op":"remove","path":"/a/-2"}])",
                       "error in remove for path: '/a/-2': Unable to access invalid index: -2: invalid index referenced");
}

TEST(JsonPatch, ArrayIndexBeyondTheEndFails) {
  expect_unprocessable(R"({"a":[1]})", R"([{"op":"add","path":"/a/3","value":2}])",
                       "error in add for path: '/a/3': Unable to access invalid index: 3: invalid index referenced");
  expect_unprocessable(R"({"a":[1]})", R"([{"op":"add","path":"/a/x","value":2}])",
                       "error in add for path: '/a/x': value was not a proper array index: 'x': "
                       "strconv.Atoi: parsing \"x\": invalid syntax");
  expect_unprocessable(R"({"a":[1]})", R"([{"op":"replace","path":"/a/1","value":2}])",
                       "replace operation does not apply: doc is missing key: /a/1: missing value");
}

TEST(JsonPatch, ReplaceOfAMissingMemberAddsItAsEvanphxDoes) {
  EXPECT_EQ(apply_patch(R"({"a":1})", R"([{"op":"replace","path":"/b","value":2}])"), json(R"({"a":1,"b":2})"));
}

TEST(JsonPatch, ReplaceAtTheRootSwapsTheDocument) {
  EXPECT_EQ(apply_patch(R"({"a":1})", R"([{"op":"replace","path":"","value":{"b":2}}])"), json(R"({"b":2})"));
  expect_unprocessable(R"({"a":1})", R"([{"op":"replace","path":"","value":3}])",
                       "replace operation value must be object or array: %!w(<nil>)");
}

TEST(JsonPatch, RemoveOfAMissingMemberFails) {
  expect_unprocessable(R"({"a":1})", R"([{"op":"remove","path":"/b"}])",
                       "error in remove for path: '/b': Unable to remove nonexistent key: b: missing value");
}

TEST(JsonPatch, TestTreatsNullAndAbsentAlike) {
  EXPECT_EQ(apply_patch(R"({"a":null})", R"([{"op":"test","path":"/b","value":null},{"op":"test","path":"/a"}])"),
            json(R"({"a":null})"));
  expect_unprocessable(R"({"a":1})", R"([{"op":"test","path":"/a"}])", "testing value /a failed: test failed");
  expect_unprocessable(R"({"a":1})", R"([{"op":"test","path":"/b","value":1}])",
                       "testing value /b failed: test failed");
}

TEST(JsonPatch, TestComparesObjectsWhateverTheirMemberOrder) {
  EXPECT_NO_THROW(apply_patch(R"({"a":{"x":1,"y":[true,"s"]}})", R"([{"op":"test","path":"/a","value":{"y":[true,"s"],"x":1}}])"));
  EXPECT_NO_THROW(apply_patch(R"({"a":1})", R"([{"op":"test","path":"","value":{"a":1}}])"));
  expect_unprocessable(R"({"a":{"x":1}})", R"([{"op":"test","path":"/a","value":{"x":1,"y":null}}])",
                       "testing value /a failed: test failed");
}

TEST(JsonPatch, MoveAndCopy) {
  EXPECT_EQ(apply_patch(R"({"a":{"b":1}})", R"([{"op":"copy","from":"/a","path":"/c"},{"op":"move","from":"/a/b","path":"/d"}])"),
            json(R"({"a":{},"c":{"b":1},"d":1})"));
  expect_unprocessable(R"({"a":{"b":1}})", R"([{"op":"move","from":"/a","path":"/a/b"}])",
                       "move operation does not apply: doc is missing destination path: /a/b: missing value");
  expect_unprocessable(R"({"a":1})", R"([{"op":"move","path":"/b"}])",
                       "move operation failed to decode from: operation, missing from field: missing value");
}

TEST(JsonPatch, OperationsApplyInOrderAndTheFirstFailureStopsThem) {
  expect_unprocessable(R"({"a":1})",
                       R"([{"op":"add","path":"/b","value":2},{"op":"test","path":"/b","value":3},{"op":"remove","path":"/a"}])",
                       "testing value /b failed: test failed");
}

TEST(JsonPatch, MalformedOperationsFailWhenApplied) {
  expect_unprocessable(R"({})", R"([{"op":"frobnicate","path":"/a"}])", "Unexpected kind: frobnicate");
  expect_unprocessable(R"({})", R"([{"path":"/a"}])", "Unexpected kind: unknown");
  expect_unprocessable(R"({})", R"([{"op":"add","value":1}])", "add operation failed to decode path: missing value");
  expect_unprocessable(R"({})", R"([{"op":"replace","path":7,"value":1}])",
                       "replace operation failed to decode path: json: cannot unmarshal number into Go value of type string");
  expect_unprocessable(R"({})", R"([{"op":"add","path":"nope","value":1}])",
                       R"(add operation does not apply: doc is missing path: "nope": missing value)");
}

TEST(JsonPatch, TheFirstPathSegmentIsNotCheckedAsInEvanphx) {
  EXPECT_EQ(apply_patch(R"({})", R"([{"op":"add","path":"x/y","value":1}])"), json(R"({"y":1})"));
}

TEST(JsonPatch, AnArrayDocumentCanBePatched) {
  EXPECT_EQ(apply_patch(R"([1,2])", R"([{"op":"add","path":"/0","value":0}])"), json(R"([0,1,2])"));
}

TEST(JsonPatch, ABodyThatIsNotAnArrayOfObjectsIsABadRequest) {
  struct Case {
    const char* body;
    const char* message;
  };
  const Case cases[] = {
      {R"({"op":"add"})", "json: cannot unmarshal object into Go value of type jsonpatch.Patch"},
      {R"(["add"])", "json: cannot unmarshal string into Go value of type jsonpatch.Operation"},
      {R"([{"op":"add",}])", "invalid character '}' looking for beginning of object key string"},
      {R"([{"op" "add"}])", "invalid character '\"' after object key"},
      {"[", "unexpected end of JSON input"},
      {"", "unexpected end of JSON input"},
      {"[] x", "invalid character 'x' after top-level value"},
      {"[tru]", "invalid character ']' in literal true (expecting 'e')"},
  };
  for (const Case& c : cases) {
    auto error = patch_error([&] { apply_patch("{}", c.body); });
    ASSERT_TRUE(error) << c.body;
    EXPECT_EQ(error->status().code, 400) << c.body;
    EXPECT_EQ(error->status().reason, "BadRequest") << c.body;
    EXPECT_EQ(error->status().message, c.message) << c.body;
  }
}

TEST(JsonPatch, NullIsAnEmptyPatch) { EXPECT_EQ(apply_patch(R"({"a":1})", "null"), json(R"({"a":1})")); }

std::string operations(std::size_t count) {
  std::string patch = "[";
  for (std::size_t i = 0; i < count; ++i) patch += std::string(i ? "," : "") + R"({"op":"test","path":"/a","value":1})";
  return patch + "]";
}

TEST(JsonPatch, AtMostTenThousandOperations) {
  EXPECT_NO_THROW(apply_patch(R"({"a":1})", operations(10000)));
  auto error = patch_error([] { apply_patch(R"({"a":1})", operations(10001)); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->status().code, 413);
  EXPECT_EQ(error->status().reason, "RequestEntityTooLarge");
  EXPECT_EQ(error->status().message,
            "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001");
}

TEST(JsonPatch, CopiesAreBoundedByTheBytesTheyAdd) {
  // {"b":"xxxxxxxx"} serializes to 16 bytes; three copies add 48.
  auto document = R"({"a":{"b":"xxxxxxxx"}})";
  auto three_copies = R"([{"op":"copy","from":"/a","path":"/c"},{"op":"copy","from":"/a","path":"/d"},)"
                      R"({"op":"copy","from":"/a","path":"/e"}])";
  EXPECT_NO_THROW(apply_patch(document, three_copies, {.max_copy_bytes = 48}));
  auto error = patch_error([&] { apply_patch(document, three_copies, {.max_copy_bytes = 47}); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->status().code, 422);
  EXPECT_EQ(error->detail(),
            "Unable to complete the copy, the accumulated size increase of copy is 48, exceeding the limit 47");
}

TEST(JsonPatch, TheDefaultCopyBoundStopsADoublingAttack) {
  // Each copy doubles the document: 24 of them would build gigabytes from a few hundred bytes.
  std::string patch = R"([{"op":"add","path":"/a","value":["xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"]})";
  for (int i = 0; i < 24; ++i) patch += R"(,{"op":"copy","from":"/a","path":"/a/-"})";
  auto error = patch_error([&] { apply_patch("{}", patch + "]"); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->status().code, 422);
  EXPECT_NE(error->detail().find("exceeding the limit 3145728"), std::string::npos) << error->detail();
}

TEST(JsonPatch, ScalarDocumentsCannotBePatched) {
  expect_unprocessable("3", "[]", "json: cannot unmarshal number into Go value of type jsonpatch.partialDoc");
}

}  // namespace
}  // namespace kapi::patch::json_patch_test
