// kube's managedfields/fieldmanager_test.go over the test chain (managedfieldstest.NewTestFieldManager).
#include "tests/unit/server/fieldmanager/field_manager_test_util.h"

#include <gtest/gtest.h>

namespace kapi::fieldmanager::chain_test {
namespace {

using namespace testing;

std::string last_applied(const json::object& object) {
  return std::string(object.at("metadata").at("annotations").at(internal::kLastAppliedConfigAnnotation).as_string());
}

json::object with_last_applied(json::object object, std::string value) {
  object["metadata"].as_object()["annotations"] = json::object{{internal::kLastAppliedConfigAnnotation, std::move(value)}};
  return object;
}

const char* const kNginxDeployment = R"({"apiVersion":"apps/v1","kind":"Deployment",
    "metadata":{"name":"deployment","labels":{"app":"nginx"}},
    "spec":{"selector":{"matchLabels":{"app":"nginx"}},
      "template":{"metadata":{"labels":{"app":"nginx"}},"spec":{"containers":[{"name":"nginx","image":"nginx:latest"}]}}}})";

TEST(FieldManagerChain, UpdateApplyConflict) {
  TestFieldManager f("apps/v1", "Deployment");
  json::object created = object_from_json(kNginxDeployment);
  created["spec"].as_object()["replicas"] = 3;
  f.update(created, "fieldmanager_test");
  auto status = api_error([&] {
    f.apply(object_from_json(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"deployment"},
        "spec":{"replicas":101}})"),
            "fieldmanager_conflict", false);
  });
  ASSERT_TRUE(status);
  EXPECT_EQ(status->code, 409);
  EXPECT_EQ(status->message,
            R"(Apply failed with 1 conflict: conflict with "fieldmanager_test" using apps/v1: .spec.replicas)");
}

TEST(FieldManagerChain, ApplyStripsFields) {
  TestFieldManager f("apps/v1", "Deployment");
  f.update(object_from_json(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"b","namespace":"b",
      "uid":"b","resourceVersion":"b","creationTimestamp":"2026-12-01T21:00:00Z",
      "managedFields":[{"manager":"update","operation":"Apply","apiVersion":"apps/v1"}]}})"),
           "fieldmanager_test");
  EXPECT_EQ(f.managed_fields(), json::array());
}

TEST(FieldManagerChain, VersionCheck) {
  TestFieldManager f("apps/v1", "Deployment", "", [](internal::ManagerPtr inner) {
    return internal::version_check_manager(std::move(inner), "apps/v1", "Deployment");
  });
  f.apply(object_from_json(R"({"apiVersion":"apps/v1","kind":"Deployment"})"), "fieldmanager_test", false);
  auto status = api_error([&] {
    f.apply(object_from_json(R"({"apiVersion":"apps/v1beta1","kind":"Deployment"})"), "fieldmanager_test", false);
  });
  ASSERT_TRUE(status);
  EXPECT_EQ(status->code, 400);
  EXPECT_EQ(status->message, "invalid object type: apps/v1beta1, Kind=Deployment");
  auto empty = api_error([&] { f.apply(json::object(), "fieldmanager_test", false); });
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->code, 400);
}

TEST(FieldManagerChain, IncorrectVersionInStructuredMerge) {
  // Without the version check in front, the structured merge stage refuses it with its own wording.
  TestFieldManager f("apps/v1", "Deployment");
  auto status = api_error([&] {
    f.apply(object_from_json(R"({"apiVersion":"apps/v1beta1","kind":"Deployment"})"), "fieldmanager_test", false);
  });
  ASSERT_TRUE(status);
  EXPECT_EQ(status->code, 400);
  EXPECT_EQ(status->message,
            "Incorrect version specified in apply patch. Specified patch version: apps/v1beta1, expected: apps/v1");
}

TEST(FieldManagerChain, ApplyDoesNotStripLabels) {
  TestFieldManager f("v1", "Pod");
  f.apply(object_from_json(R"({"apiVersion":"v1","kind":"Pod","metadata":{"labels":{"a":"b"}}})"), "fieldmanager_test",
          false);
  EXPECT_EQ(f.managed_fields().size(), 1u);
}

TEST(FieldManagerChain, ApplyFailsWithManagedFields) {
  TestFieldManager f("v1", "Pod");
  auto status = api_error([&] {
    f.apply(object_from_json(R"({"apiVersion":"v1","kind":"Pod","metadata":{"managedFields":[{"manager":"test"}]}})"),
            "fieldmanager_test", false);
  });
  ASSERT_TRUE(status);
  EXPECT_EQ(status->code, 400);
}

TEST(FieldManagerChain, NoOpChanges) {
  TestFieldManager f("v1", "Pod");
  const json::object pod =
      object_from_json(R"({"apiVersion":"v1","kind":"Pod","metadata":{"labels":{"a":"b"},"creationTimestamp":null}})");
  f.apply(pod, "fieldmanager_test_apply", false);
  json::object before = f.live();
  f.clock().advance(std::chrono::seconds(1));
  // Another applier makes an entry of its own...
  f.apply(pod, "fieldmanager_test_apply_other", false);
  EXPECT_NE(f.live(), before);
  before = f.live();
  f.clock().advance(std::chrono::seconds(1));
  // ...but an update and a re-apply that change nothing change nothing.
  f.update(pod, "fieldmanager_test_update");
  EXPECT_EQ(f.live(), before);
  f.clock().advance(std::chrono::seconds(1));
  f.apply(pod, "fieldmanager_test_apply", true);
  EXPECT_EQ(f.live(), before);
}

TEST(FieldManagerChain, ResetManagedFieldsEmptyListAndItem) {
  for (const char* reset : {"[]", "[{}]"}) {
    TestFieldManager f("v1", "Pod");
    f.apply(object_from_json(R"({"apiVersion":"v1","kind":"Pod","metadata":{"labels":{"a":"b"}}})"),
            "fieldmanager_test_apply", false);
    json::object pod = object_from_json(R"({"apiVersion":"v1","kind":"Pod","metadata":{"labels":{"a":"b"}}})");
    pod["metadata"].as_object()["managedFields"] = json::parse(reset);
    f.update(pod, "update_manager");
    EXPECT_EQ(f.managed_fields(), json::array()) << reset;
  }
}

TEST(FieldManagerChain, ServerSideApplyWithInvalidLastApplied) {
  TestFieldManager f("apps/v1", "Deployment");
  f.update(with_last_applied(object_from_yaml("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: my-deployment\n"
                                              "  labels:\n    app: my-app-v1\nspec:\n  replicas: 1\n"),
                             "invalid-object"),
           "kubectl-client-side-apply-test");
  EXPECT_EQ(last_applied(f.live()), "invalid-object");
  json::object applied = object_from_yaml("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: my-deployment\n"
                                          "  labels:\n    app: my-app-v2\nspec:\n  replicas: 100\n");
  auto status = api_error([&] { f.apply(applied, "kubectl", false); });
  ASSERT_TRUE(status);
  EXPECT_EQ(status->code, 409);
  EXPECT_EQ(last_applied(f.live()), "invalid-object");
  f.apply(applied, "kubectl", true);
  EXPECT_EQ(last_applied(f.live()),
            R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"labels":{"app":"my-app-v2"},"name":"my-deployment"},)"
            R"("spec":{"replicas":100}})"
            "\n");
}

TEST(FieldManagerChain, InteropForClientSideApplyAndServerSideApply) {
  TestFieldManager f("apps/v1", "Deployment");
  const char* const deployment = R"(
apiVersion: apps/v1
kind: Deployment
metadata:
  name: my-deployment
  labels:
    app: my-app
spec:
  replicas: 100
  selector:
    matchLabels:
      app: my-app
  template:
    metadata:
      labels:
        app: my-app
    spec:
      containers:
      - name: my-c
        image: my-image-v1
)";
  f.update(with_last_applied(object_from_yaml(deployment), json::serialize(object_from_yaml(deployment))),
           "kubectl-client-side-apply-test");
  f.apply(object_from_yaml(R"(
apiVersion: apps/v1
kind: Deployment
metadata:
  name: my-deployment
  labels:
    app: my-app-v2
spec:
  replicas: 8
  selector:
    matchLabels:
      app: my-app-v2
  template:
    metadata:
      labels:
        app: my-app-v2
    spec:
      containers:
      - name: my-c
        image: my-image-v2
)"),
          "kubectl", false);
  EXPECT_NE(last_applied(f.live()).find("my-image-v2"), std::string::npos);
}

TEST(FieldManagerChain, NoTrackManagedFieldsForClientSideApply) {
  TestFieldManager f("apps/v1", "Deployment");
  const char* const deployment =
      "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: my-deployment\n  labels:\n    app: my-app\n"
      "spec:\n  replicas: 100\n";
  f.update(object_from_yaml(deployment), "test_kubectl_create");
  EXPECT_FALSE(f.managed_fields().empty());

  // Stop tracking managed fields.
  json::object untracked = object_from_yaml(deployment);
  untracked["metadata"].as_object()["managedFields"] = json::array();
  untracked["metadata"].as_object()["uid"] = "nonempty";
  f.update(untracked, "test_kubectl_replace");
  EXPECT_EQ(f.managed_fields(), json::array());

  // Client-side apply still does not track them.
  json::object client_side = with_last_applied(object_from_yaml(deployment), json::serialize(object_from_yaml(deployment)));
  client_side["metadata"].as_object()["uid"] = "nonempty";
  f.update(client_side, "test_k_client_side_apply");
  EXPECT_EQ(f.managed_fields(), json::array());

  // An apply starts tracking them, with before-first-apply.
  f.apply(object_from_yaml(deployment), "test_server_side_apply_without_upgrade", false);
  json::array entries = f.managed_fields();
  ASSERT_GE(entries.size(), 2u);
  EXPECT_EQ(entries[0].at("manager"), "test_server_side_apply_without_upgrade");
  EXPECT_EQ(entries[1].at("manager"), "before-first-apply");

  f.apply(object_from_yaml("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: my-deployment\n  labels:\n"
                           "    app: my-app-v2\nspec:\n  replicas: 8\n"),
          "kubectl", false);
  EXPECT_NE(last_applied(f.live()).find("my-app-v2"), std::string::npos);
}

TEST(FieldManagerChain, UpdateViaSubresources) {
  TestFieldManager f("v1", "Pod", "scale");
  json::object pod = object_from_json(R"({"apiVersion":"v1","kind":"Pod","metadata":{"labels":{"a":"b"},
      "managedFields":[{"manager":"test","operation":"Apply","apiVersion":"apps/v1","fieldsType":"FieldsV1",
      "fieldsV1":{"f:metadata":{"f:labels":{"f:another_field":{}}}}}]}})");
  // A subresource's request cannot set managedFields...
  f.update(pod, "fieldmanager_test_subresource");
  json::array entries = f.managed_fields();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].at("manager"), "fieldmanager_test_subresource");
  // ...nor reset them.
  pod["metadata"].as_object()["managedFields"] = json::array();
  f.update(pod, "fieldmanager_test_subresource");
  EXPECT_EQ(f.managed_fields().size(), 1u);
}

TEST(FieldManagerChain, ApplyDoesNotChangeManagedFieldsOnNoOp) {
  TestFieldManager f("apps/v1", "Deployment");
  f.apply(object_from_json(kNginxDeployment), "fieldmanager_z", false);
  f.apply(object_from_json(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"deployment"},
      "spec":{"replicas":101}})"),
          "fieldmanager_b", false);
  json::array before = f.managed_fields();
  f.clock().advance(std::chrono::seconds(2));
  f.apply(object_from_json(kNginxDeployment), "fieldmanager_z", false);
  EXPECT_EQ(f.managed_fields(), before);
}

TEST(FieldManagerChain, UpdateDoesNotChangeManagedFieldsOnNoOp) {
  TestFieldManager f("apps/v1", "Deployment");
  f.update(object_from_json(kNginxDeployment), "fieldmanager_z");
  json::array before = f.managed_fields();
  f.clock().advance(std::chrono::seconds(2));
  f.update(object_from_json(kNginxDeployment), "fieldmanager_z");
  EXPECT_EQ(f.managed_fields(), before);
}

}  // namespace
}  // namespace kapi::fieldmanager::chain_test
