#include "server/patch/merge_patch.h"

#include "tests/unit/server/patch/patch_test_util.h"

#include <gtest/gtest.h>

#include <string>

namespace kapi::patch::merge_patch_test {
namespace {

using testing::json;
using testing::patch_error;

boost::json::value apply_patch(std::string_view document, std::string_view patch) {
  return apply_merge_patch(json(document), patch);
}

struct Rfc7386Example {
  const char* name;
  const char* original;
  const char* patch;
  const char* result;
};

// RFC 7386 appendix A, except the two whose patch is null or a string (kube rejects those, see below).
const Rfc7386Example kRfcExamples[] = {
    {"ReplaceMember", R"({"a":"b"})", R"({"a":"c"})", R"({"a":"c"})"},
    {"AddMember", R"({"a":"b"})", R"({"b":"c"})", R"({"a":"b","b":"c"})"},
    {"DeleteOnlyMember", R"({"a":"b"})", R"({"a":null})", R"({})"},
    {"DeleteOneMember", R"({"a":"b","b":"c"})", R"({"a":null})", R"({"b":"c"})"},
    {"StringReplacesArray", R"({"a":["b"]})", R"({"a":"c"})", R"({"a":"c"})"},
    {"ArrayReplacesString", R"({"a":"c"})", R"({"a":["b"]})", R"({"a":["b"]})"},
    {"NestedMergeAndDelete", R"({"a":{"b":"c"}})", R"({"a":{"b":"d","c":null}})", R"({"a":{"b":"d"}})"},
    {"ArrayReplacesArrayOfObjects", R"({"a":[{"b":"c"}]})", R"({"a":[1]})", R"({"a":[1]})"},
    {"ArrayReplacesArray", R"(["a","b"])", R"(["c","d"])", R"(["c","d"])"},
    {"ArrayReplacesObject", R"({"a":"b"})", R"(["c"])", R"(["c"])"},
    {"ExistingNullsAreKept", R"({"e":null})", R"({"a":1})", R"({"e":null,"a":1})"},
    {"ObjectReplacesArray", R"([1,2])", R"({"a":"b","c":null})", R"({"a":"b"})"},
    {"NullsInNewObjectsAreDropped", R"({})", R"({"a":{"bb":{"ccc":null}}})", R"({"a":{"bb":{}}})"},
};

class MergePatchRfc7386 : public ::testing::TestWithParam<Rfc7386Example> {};

TEST_P(MergePatchRfc7386, AppendixAExample) {
  const Rfc7386Example& example = GetParam();
  EXPECT_EQ(apply_patch(example.original, example.patch), json(example.result));
}

INSTANTIATE_TEST_SUITE_P(AppendixA, MergePatchRfc7386, ::testing::ValuesIn(kRfcExamples),
                         [](const auto& info) { return std::string(info.param.name); });

void expect_invalid_patch(std::string_view patch) {
  auto error = patch_error([&] { apply_patch(R"({"a":"foo"})", patch); });
  ASSERT_TRUE(error) << patch;
  EXPECT_EQ(error->status().code, 400) << patch;
  EXPECT_EQ(error->status().reason, "BadRequest") << patch;
  EXPECT_EQ(error->status().message, "Invalid JSON Patch") << patch;
}

TEST(MergePatch, NullStringAndNumberPatchesAreBadRequestsAsInKube) {
  // RFC 7386 would answer null and "bar"; evanphx, and so kube-apiserver, refuse them.
  expect_invalid_patch("null");
  expect_invalid_patch(R"("bar")");
  expect_invalid_patch("42");
}

TEST(MergePatch, MalformedJsonIsABadRequest) {
  expect_invalid_patch(R"({"a":)");
  expect_invalid_patch("");
  expect_invalid_patch(R"({"a":1} trailing)");
}

TEST(MergePatch, NullsInsideReplacedValuesArePrunedAsEvanphxDoes) {
  EXPECT_EQ(apply_patch(R"({"a":1})", R"({"a":[1,null,{"b":null,"c":2}]})"), json(R"({"a":[1,{"c":2}]})"));
  EXPECT_EQ(apply_patch(R"({})", R"({"b":[null]})"), json(R"({"b":[]})"));
  EXPECT_EQ(apply_patch(R"({"a":null})", R"({"a":{"b":null}})"), json(R"({"a":{}})"));
  EXPECT_EQ(apply_patch(R"({"a":{"x":1}})", R"({"a":[null]})"), json(R"({"a":[null]})"));  // onto an object: untouched
  EXPECT_EQ(apply_patch(R"({})", R"([1,null,{"a":null}])"), json(R"([1,{}])"));
}

TEST(MergePatch, DeletingAMissingMemberIsNotAnError) {
  EXPECT_EQ(apply_patch(R"({"a":1})", R"({"b":null})"), json(R"({"a":1})"));
}

TEST(MergePatch, ANullDocumentIsAnInternalError) {
  auto error = patch_error([] { apply_merge_patch(nullptr, R"({"a":1})"); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->status().code, 500);
  EXPECT_EQ(error->status().message, "Invalid JSON Document");
}

const char* const kDeployment = R"({
  "apiVersion":"apps/v1","kind":"Deployment",
  "metadata":{"name":"web","namespace":"default","labels":{"app":"web","tier":"frontend"},
              "annotations":{"deployment.kubernetes.io/revision":"1"}},
  "spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},
          "template":{"metadata":{"labels":{"app":"web"}},
                      "spec":{"containers":[{"name":"app","image":"nginx:1"},{"name":"sidecar","image":"envoy:1"}]}}}})";

TEST(MergePatch, KubectlLabelAddsAndRemovesLabels) {
  // kubectl label web env=prod tier-  sends a merge patch built by jsonpatch.CreateMergePatch.
  auto patched = apply_patch(kDeployment, R"({"metadata":{"labels":{"env":"prod","tier":null}}})");
  EXPECT_EQ(patched.at("metadata").at("labels"), json(R"({"app":"web","env":"prod"})"));
  EXPECT_EQ(patched.at("metadata").at("annotations"), json(R"({"deployment.kubernetes.io/revision":"1"})"));
}

TEST(MergePatch, KubectlAnnotateOverwrites) {
  auto patched = apply_patch(kDeployment, R"({"metadata":{"annotations":{"deployment.kubernetes.io/revision":"2","note":"x"}}})");
  EXPECT_EQ(patched.at("metadata").at("annotations"),
            json(R"({"deployment.kubernetes.io/revision":"2","note":"x"})"));
}

TEST(MergePatch, KubectlScaleSetsReplicas) {
  auto patched = apply_patch(kDeployment, R"({"spec":{"replicas":5}})");
  EXPECT_EQ(patched.at("spec").at("replicas"), 5);
  EXPECT_EQ(patched.at("spec").at("template").at("spec").at("containers").as_array().size(), 2u);
}

TEST(MergePatch, AListInAMergePatchReplacesTheWholeList) {
  // Unlike a strategic merge patch, the sidecar is gone.
  auto patched = apply_patch(kDeployment, R"({"spec":{"template":{"spec":{"containers":[{"name":"app","image":"nginx:2"}]}}}})");
  EXPECT_EQ(patched.at("spec").at("template").at("spec").at("containers"), json(R"([{"name":"app","image":"nginx:2"}])"));
}

TEST(MergePatch, DeepDocumentsDoNotExhaustTheStack) {
  constexpr int kDepth = 900;  // below kMaxNestingDepth
  std::string nested;
  for (int i = 0; i < kDepth; ++i) nested += R"({"a":)";
  std::string document = nested + "1" + std::string(kDepth, '}');
  std::string patch = nested + "2" + std::string(kDepth, '}');
  EXPECT_EQ(apply_patch(document, patch), json(patch));
}

}  // namespace
}  // namespace kapi::patch::merge_patch_test
