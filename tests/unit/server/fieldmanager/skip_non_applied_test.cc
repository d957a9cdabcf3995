// kube's skipnonapplied_test.go: managers tracked from the first apply, "before-first-apply" owning what was there.
#include "tests/unit/server/fieldmanager/field_manager_test_util.h"

#include <gtest/gtest.h>

namespace kapi::fieldmanager::skip_non_applied_test {
namespace {

using namespace testing;

// kube's NewSkipNonAppliedManager (probability 0) around the test chain.
TestFieldManager skipping_pod_manager() {
  return TestFieldManager("v1", "Pod", "", [](internal::ManagerPtr inner) {
    return internal::skip_non_applied_manager(std::move(inner),
                                              json::object{{"apiVersion", "v1"}, {"kind", "Pod"}}, false);
  });
}

const char* const kAppliedPod = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"pod","labels":{"app":"nginx"}},
    "spec":{"containers":[{"name":"nginx","image":"nginx:latest"}]}})";

TEST(SkipNonApplied, NoUpdateBeforeFirstApply) {
  TestFieldManager f = skipping_pod_manager();
  f.apply(object_from_json(kAppliedPod), "fieldmanager_test_apply", false);
  json::array entries = f.managed_fields();
  ASSERT_EQ(entries.size(), 1u) << json::serialize(entries);
  EXPECT_EQ(entries[0].at("manager"), "fieldmanager_test_apply");
}

TEST(SkipNonApplied, UpdateBeforeFirstApply) {
  TestFieldManager f = skipping_pod_manager();
  f.update(object_from_json(R"({"kind":"Pod","apiVersion":"v1","metadata":{"labels":{"app":"my-nginx"}}})"),
           "fieldmanager_test_update");
  EXPECT_EQ(f.managed_fields(), json::array()) << "managedFields were tracked on update only";

  auto status = api_error([&] { f.apply(object_from_json(kAppliedPod), "fieldmanager_test_apply", false); });
  ASSERT_TRUE(status);
  EXPECT_EQ(status->code, 409);
  ASSERT_EQ(status->details->causes.size(), 1u);
  EXPECT_EQ(status->details->causes[0].field, ".metadata.labels.app");
  EXPECT_EQ(status->details->causes[0].message, R"(conflict with "before-first-apply" using v1)");
  EXPECT_EQ(status->message,
            R"(Apply failed with 1 conflict: conflict with "before-first-apply" using v1: .metadata.labels.app)");

  f.apply(object_from_json(kAppliedPod), "fieldmanager_test_apply", true);
  json::array entries = f.managed_fields();
  ASSERT_EQ(entries.size(), 2u) << json::serialize(entries);
  EXPECT_EQ(entries[0].at("manager"), "fieldmanager_test_apply");
  EXPECT_EQ(entries[1].at("manager"), "before-first-apply");
}

TEST(SkipNonApplied, CreatesAreTrackedByDefault) {
  // kube 1.32: DefaultTrackOnCreateProbability is 1 — an update of an object without a uid (a create) is tracked,
  // an update of a stored object without managers is not.
  TestFieldManager f("v1", "ConfigMap");
  f.update(object_from_json(R"({"apiVersion":"v1","kind":"ConfigMap","data":{"a":"1"}})"), "creator");
  EXPECT_EQ(f.managed_fields().size(), 1u);

  f.set_live(object_from_json(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"uid":"u"},"data":{"a":"1"}})"));
  f.update(object_from_json(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"uid":"u"},"data":{"a":"2"}})"),
           "editor");
  EXPECT_EQ(f.managed_fields(), json::array());
}

}  // namespace
}  // namespace kapi::fieldmanager::skip_non_applied_test
