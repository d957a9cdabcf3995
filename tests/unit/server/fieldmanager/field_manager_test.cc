// kube's FieldManager as the handlers use it (fieldmanager_test.go): managedFields on create, update and apply of
// built-in kinds, byte for byte as kube writes them for kubectl's commands.
#include "server/fieldmanager/field_manager.h"
#include "server/fieldmanager/scale_handler.h"

#include "server/endpoints/field_managers.h"
#include "server/registry/strategy.h"

#include "tests/unit/server/fieldmanager/field_manager_test_util.h"

#include <gtest/gtest.h>

namespace kapi::fieldmanager::field_manager_test {
namespace {

using namespace testing;

class FieldManagerTest : public ::testing::Test {
 protected:
  FieldManager make(const std::string& api_version, const std::string& kind, const std::string& subresource = "") {
    const Types& types = Types::get();
    FieldManager::Options options;
    options.schema = types.schema;
    options.types = {{api_version, types.kind_type(api_version, kind).type}};
    options.api_version = api_version;
    options.kind = kind;
    options.subresource = subresource;
    options.new_object = types.zero_object(api_version, kind);
    options.clock = clock.clock();
    return FieldManager(std::move(options));
  }
  // What the registry adds when it stores a new object.
  static json::object stored(json::object object) {
    auto& metadata = object["metadata"].as_object();
    metadata["uid"] = "6a4e3c1d-0000-4000-8000-000000000001";
    metadata["resourceVersion"] = "1";
    metadata["creationTimestamp"] = "2026-12-01T21:00:00Z";
    return object;
  }
  void later() { clock.advance(std::chrono::seconds(10)); }

  FakeClock clock;
};

TEST_F(FieldManagerTest, KubectlCreateLabelThenServerSideApplyConfigMap) {
  FieldManager manager = make("v1", "ConfigMap");
  // kubectl create configmap cm --from-literal=a=1
  json::object created = stored(manager.update(nullptr, object_from_json(R"({"kind":"ConfigMap","apiVersion":"v1",
      "metadata":{"name":"cm","namespace":"default","creationTimestamp":null},"data":{"a":"1"}})"),
                                               "kubectl-create"));
  EXPECT_EQ(created.at("metadata").at("managedFields"), json::parse(R"([{"manager":"kubectl-create",
      "operation":"Update","apiVersion":"v1","time":"2026-12-01T21:00:00Z","fieldsType":"FieldsV1",
      "fieldsV1":{"f:data":{".":{},"f:a":{}}}}])"));

  // kubectl label cm x=y: the merge patch applied to the stored object, managedFields and all.
  later();
  json::object labelled = created;
  labelled["metadata"].as_object()["labels"] = {{"x", "y"}};
  labelled = manager.update(&created, labelled, "kubectl-label");
  EXPECT_EQ(labelled.at("metadata").at("managedFields"), json::parse(R"([
      {"manager":"kubectl-create","operation":"Update","apiVersion":"v1","time":"2026-12-01T21:00:00Z",
       "fieldsType":"FieldsV1","fieldsV1":{"f:data":{".":{},"f:a":{}}}},
      {"manager":"kubectl-label","operation":"Update","apiVersion":"v1","time":"2026-12-01T21:00:10Z",
       "fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:x":{}}}}}])"));

  // kubectl apply --server-side of a changed data.a conflicts with its creator...
  later();
  json::object config = object_from_json(
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","namespace":"default"},"data":{"a":"2"}})");
  auto status = api_error([&] { manager.apply(&labelled, config, "kubectl", false); });
  ASSERT_TRUE(status);
  EXPECT_EQ(status->code, 409);
  EXPECT_EQ(status->reason, "Conflict");
  EXPECT_EQ(status->message, R"(Apply failed with 1 conflict: conflict with "kubectl-create" using v1: .data.a)");
  ASSERT_TRUE(status->details);
  ASSERT_EQ(status->details->causes.size(), 1u);
  EXPECT_EQ(status->details->causes[0].reason, "FieldManagerConflict");
  EXPECT_EQ(status->details->causes[0].message, R"(conflict with "kubectl-create" using v1)");
  EXPECT_EQ(status->details->causes[0].field, ".data.a");

  // ...and --force-conflicts takes it.
  json::object applied = manager.apply(&labelled, config, "kubectl", true);
  EXPECT_EQ(applied.at("data"), json::parse(R"({"a":"2"})"));
  EXPECT_EQ(applied.at("metadata").at("labels"), json::parse(R"({"x":"y"})"));
  EXPECT_EQ(applied.at("metadata").at("managedFields"), json::parse(R"([
      {"manager":"kubectl","operation":"Apply","apiVersion":"v1","time":"2026-12-01T21:00:20Z",
       "fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:a":{}}}},
      {"manager":"kubectl-create","operation":"Update","apiVersion":"v1","time":"2026-12-01T21:00:00Z",
       "fieldsType":"FieldsV1","fieldsV1":{"f:data":{}}},
      {"manager":"kubectl-label","operation":"Update","apiVersion":"v1","time":"2026-12-01T21:00:10Z",
       "fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:x":{}}}}}])"));
}

TEST_F(FieldManagerTest, ClientSideApplyThenServerSideApply) {
  FieldManager manager = make("v1", "ConfigMap");
  // kubectl apply (client-side) creates the object with its last-applied annotation.
  json::object created = stored(manager.update(nullptr, object_from_json(R"({"apiVersion":"v1","kind":"ConfigMap",
      "metadata":{"name":"cm","namespace":"default","annotations":{"kubectl.kubernetes.io/last-applied-configuration":
      "{\"apiVersion\":\"v1\",\"data\":{\"a\":\"1\"},\"kind\":\"ConfigMap\",\"metadata\":{\"annotations\":{},\"name\":\"cm\",\"namespace\":\"default\"}}\n"}},
      "data":{"a":"1"}})"),
                                               "kubectl-client-side-apply"));
  EXPECT_EQ(created.at("metadata").at("managedFields"), json::parse(R"([{"manager":"kubectl-client-side-apply",
      "operation":"Update","apiVersion":"v1","time":"2026-12-01T21:00:00Z","fieldsType":"FieldsV1",
      "fieldsV1":{"f:data":{".":{},"f:a":{}},"f:metadata":{"f:annotations":{".":{},
        "f:kubectl.kubernetes.io/last-applied-configuration":{}}}}}])"));

  // kubectl apply --server-side: what the annotation applied (and still holds) is taken over without conflicts.
  later();
  json::object applied = manager.apply(&created, object_from_json(R"({"apiVersion":"v1","kind":"ConfigMap",
      "metadata":{"name":"cm","namespace":"default"},"data":{"a":"2"}})"),
                                       "kubectl", false);
  EXPECT_EQ(applied.at("data"), json::parse(R"({"a":"2"})"));
  EXPECT_EQ(applied.at("metadata").at("annotations"), json::parse(R"({"kubectl.kubernetes.io/last-applied-configuration":
      "{\"apiVersion\":\"v1\",\"data\":{\"a\":\"2\"},\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"cm\",\"namespace\":\"default\"}}\n"})"));
  EXPECT_EQ(applied.at("metadata").at("managedFields"), json::parse(R"([
      {"manager":"kubectl","operation":"Apply","apiVersion":"v1","time":"2026-12-01T21:00:10Z",
       "fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:a":{}}}},
      {"manager":"kubectl-client-side-apply","operation":"Update","apiVersion":"v1","time":"2026-12-01T21:00:00Z",
       "fieldsType":"FieldsV1","fieldsV1":{"f:data":{},"f:metadata":{"f:annotations":{".":{},
         "f:kubectl.kubernetes.io/last-applied-configuration":{}}}}}])"));
}

TEST_F(FieldManagerTest, UpgradeClientSideToServerSideApplyDeployment) {
  // kube's integration test TestUpgradeClientSideToServerSideApply, at the field manager.
  FieldManager manager = make("apps/v1", "Deployment");
  json::object created = stored(manager.update(nullptr, object_from_yaml(R"(
apiVersion: apps/v1
kind: Deployment
metadata:
  name: my-deployment
  annotations:
    "kubectl.kubernetes.io/last-applied-configuration": |
      {"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"my-deployment","labels":{"app":"my-app"}},"spec":{"replicas": 3,"template":{"metadata":{"labels":{"app":"my-app"}},"spec":{"containers":[{"name":"my-c","image":"my-image"}]}}}}
  labels:
    app: my-app
spec:
  replicas: 100000
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
        image: my-image
)"),
                                               "kubectl-client-side-apply"));
  auto status = api_error([&] {
    manager.apply(&created, object_from_yaml(R"(
apiVersion: apps/v1
kind: Deployment
metadata:
  name: my-deployment
  labels:
    app: my-new-label
spec:
  replicas: 3 # expect conflict
  template:
    metadata:
      labels:
        app: my-app
    spec:
      containers:
      - name: my-c
        image: my-image
)"),
                  "kubectl", false);
  });
  ASSERT_TRUE(status);
  EXPECT_EQ(status->message,
            R"(Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas)");

  json::object applied = manager.apply(&created, object_from_yaml(R"(
apiVersion: apps/v1
kind: Deployment
metadata:
  name: my-deployment
  labels:
    app: my-new-label
spec:
  template:
    metadata:
      labels:
        app: my-app
    spec:
      containers:
      - name: my-c
        image: my-image-new
)"),
                                       "kubectl", false);
  EXPECT_EQ(applied.at("spec").at("replicas"), 100000);
  EXPECT_EQ(applied.at("spec").at("template").at("spec").at("containers").at(0).at("image"), "my-image-new");
  EXPECT_EQ(applied.at("metadata").at("labels"), json::parse(R"({"app":"my-new-label"})"));
}

TEST_F(FieldManagerTest, ApplyingTheSameValueSharesOwnership) {
  FieldManager manager = make("v1", "ConfigMap");
  json::object created = stored(manager.update(
      nullptr, object_from_json(R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm"},"data":{"a":"1"}})"),
      "kubectl-create"));
  later();
  json::object applied = manager.apply(
      &created, object_from_json(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"1"}})"),
      "kubectl", false);
  // The apply changes nothing in the object, so kube 1.32 (managedFieldsUpdater) gives the new applier no time.
  EXPECT_EQ(applied.at("metadata").at("managedFields"), json::parse(R"([
      {"manager":"kubectl","operation":"Apply","apiVersion":"v1",
       "fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:a":{}}}},
      {"manager":"kubectl-create","operation":"Update","apiVersion":"v1","time":"2026-12-01T21:00:00Z",
       "fieldsType":"FieldsV1","fieldsV1":{"f:data":{".":{},"f:a":{}}}}])"));
}

TEST_F(FieldManagerTest, KubectlCreateDeployment) {
  FieldManager manager = make("apps/v1", "Deployment");
  // kubectl create deployment nginx --image=nginx, as the registry hands it over: decoded with kube's defaults.
  json::object created = manager.update(nullptr, object_from_json(R"({"kind":"Deployment","apiVersion":"apps/v1",
      "metadata":{"name":"nginx","namespace":"default","creationTimestamp":null,"labels":{"app":"nginx"}},
      "spec":{"replicas":1,"selector":{"matchLabels":{"app":"nginx"}},
        "template":{"metadata":{"creationTimestamp":null,"labels":{"app":"nginx"}},
          "spec":{"containers":[{"name":"nginx","image":"nginx","resources":{},
                                 "terminationMessagePath":"/dev/termination-log",
                                 "terminationMessagePolicy":"File","imagePullPolicy":"Always"}],
                  "restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst",
                  "securityContext":{},"schedulerName":"default-scheduler"}},
        "strategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":"25%","maxSurge":"25%"}},
        "revisionHistoryLimit":10,"progressDeadlineSeconds":600},
      "status":{}})"),
                                        "kubectl-create");
  EXPECT_EQ(created.at("metadata").at("managedFields"), json::parse(R"([{"manager":"kubectl-create",
      "operation":"Update","apiVersion":"apps/v1","time":"2026-12-01T21:00:00Z","fieldsType":"FieldsV1",
      "fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:app":{}}},
        "f:spec":{"f:progressDeadlineSeconds":{},"f:replicas":{},"f:revisionHistoryLimit":{},"f:selector":{},
          "f:strategy":{"f:rollingUpdate":{".":{},"f:maxSurge":{},"f:maxUnavailable":{}},"f:type":{}},
          "f:template":{"f:metadata":{"f:labels":{".":{},"f:app":{}}},
            "f:spec":{"f:containers":{"k:{\"name\":\"nginx\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},
              "f:name":{},"f:resources":{},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},
              "f:dnsPolicy":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},
              "f:terminationGracePeriodSeconds":{}}}}}}])"));
}

TEST_F(FieldManagerTest, RequestManagedFieldsEmptyClearsOmittedKeeps) {
  FieldManager manager = make("v1", "ConfigMap");
  json::object created = stored(manager.update(
      nullptr, object_from_json(R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm"},"data":{"a":"1"}})"),
      "kubectl-create"));
  later();

  // Omitted (a client that does not know managedFields): the live ones are kept, and the update tracked.
  json::object omitted = created;
  omitted["metadata"].as_object().erase("managedFields");
  omitted["data"].as_object()["b"] = "2";
  json::object kept = manager.update(&created, omitted, "kubectl-edit");
  ASSERT_EQ(kept.at("metadata").at("managedFields").as_array().size(), 2u);
  EXPECT_EQ(kept.at("metadata").at("managedFields").at(1), json::parse(R"({"manager":"kubectl-edit",
      "operation":"Update","apiVersion":"v1","time":"2026-12-01T21:00:10Z","fieldsType":"FieldsV1",
      "fieldsV1":{"f:data":{"f:b":{}}}})"));

  // Sent empty: forgotten, and an object already stored without managers is not tracked by an update.
  json::object emptied = kept;
  emptied["metadata"].as_object()["managedFields"] = json::array();
  emptied["data"].as_object()["c"] = "3";
  json::object cleared = manager.update(&kept, emptied, "kubectl-edit");
  EXPECT_FALSE(cleared.at("metadata").as_object().contains("managedFields")) << json::serialize(cleared);

  // A list of one empty entry is the same request.
  json::object one_empty = kept;
  one_empty["metadata"].as_object()["managedFields"] = json::array{json::object()};
  EXPECT_FALSE(manager.update(&kept, one_empty, "x").at("metadata").as_object().contains("managedFields"));

  // Sent different ones: a client may set them.
  json::object edited = kept;
  edited["metadata"].as_object()["managedFields"] = json::parse(R"([{"manager":"someone","operation":"Apply",
      "apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:a":{}}}}])");
  EXPECT_EQ(manager.update(&kept, edited, "kubectl-edit").at("metadata").at("managedFields"), json::parse(R"([
      {"manager":"someone","operation":"Apply","apiVersion":"v1","fieldsType":"FieldsV1",
       "fieldsV1":{"f:data":{"f:a":{}}}}])"));
}

TEST_F(FieldManagerTest, SubresourceIgnoresTheRequestsManagedFields) {
  FieldManager main = make("v1", "ConfigMap");
  FieldManager status = make("v1", "ConfigMap", "status");
  json::object created = stored(main.update(
      nullptr, object_from_json(R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm"},"data":{"a":"1"}})"),
      "kubectl-create"));
  later();
  json::object updated = created;
  updated["metadata"].as_object()["managedFields"] = json::array();
  updated["data"].as_object()["a"] = "2";
  EXPECT_EQ(status.update(&created, updated, "controller").at("metadata").at("managedFields"), json::parse(R"([
      {"manager":"kubectl-create","operation":"Update","apiVersion":"v1","time":"2026-12-01T21:00:00Z",
       "fieldsType":"FieldsV1","fieldsV1":{"f:data":{}}},
      {"manager":"controller","operation":"Update","apiVersion":"v1","time":"2026-12-01T21:00:10Z",
       "fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:a":{}}},"subresource":"status"}])"));
}

TEST_F(FieldManagerTest, ApplyCreatesAnObject) {
  FieldManager manager = make("v1", "ConfigMap");
  json::object created = manager.apply(
      nullptr, object_from_json(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"1"}})"),
      "kubectl", false);
  EXPECT_EQ(created.at("data"), json::parse(R"({"a":"1"})"));
  EXPECT_EQ(created.at("metadata").at("name"), "cm");
  EXPECT_EQ(created.at("metadata").at("managedFields"), json::parse(R"([{"manager":"kubectl","operation":"Apply",
      "apiVersion":"v1","time":"2026-12-01T21:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:a":{}}}}])"));
}

TEST_F(FieldManagerTest, ApplyRemovesWhatTheApplierStoppedApplying) {
  FieldManager manager = make("v1", "ConfigMap");
  json::object first = stored(manager.apply(
      nullptr,
      object_from_json(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"1","b":"2"}})"),
      "kubectl", false));
  later();
  json::object second = manager.apply(
      &first, object_from_json(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"1"}})"),
      "kubectl", false);
  EXPECT_EQ(second.at("data"), json::parse(R"({"a":"1"})"));
}

TEST_F(FieldManagerTest, ApplyErrorsAsKubeAnswersThem) {
  FieldManager manager = make("v1", "ConfigMap");
  auto wrong_kind = api_error([&] {
    manager.apply(nullptr, object_from_json(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"x"}})"),
                  "kubectl", false);
  });
  ASSERT_TRUE(wrong_kind);
  EXPECT_EQ(wrong_kind->code, 400);
  EXPECT_EQ(wrong_kind->reason, "BadRequest");
  EXPECT_EQ(wrong_kind->message, "invalid object type: apps/v1, Kind=Deployment");

  auto no_type = api_error([&] { manager.apply(nullptr, object_from_json(R"({"metadata":{"name":"x"}})"), "kubectl", false); });
  ASSERT_TRUE(no_type);
  EXPECT_EQ(no_type->message, "invalid object type: /, Kind=");

  auto managed_fields = api_error([&] {
    manager.apply(nullptr, object_from_json(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x",
        "managedFields":[]}})"),
                  "kubectl", false);
  });
  ASSERT_TRUE(managed_fields);
  EXPECT_EQ(managed_fields->code, 400);
  EXPECT_EQ(managed_fields->message, "metadata.managedFields must be nil");

  // kube 1.32 answers a configuration that does not fit the type with a 500 (no reason).
  auto unknown_field = api_error([&] {
    manager.apply(nullptr, object_from_json(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x",
        "namespace":"default"},"foo":"bar"})"),
                  "kubectl", false);
  });
  ASSERT_TRUE(unknown_field);
  EXPECT_EQ(unknown_field->code, 500);
  EXPECT_EQ(unknown_field->reason, "");
  EXPECT_EQ(unknown_field->message,
            "failed to create typed patch object (default/x; /v1, Kind=ConfigMap): .foo: field not declared in schema");
}

TEST_F(FieldManagerTest, UpdateThatCannotBeTypedResetsManagedFields) {
  FieldManager manager = make("v1", "ConfigMap");
  json::object created = stored(manager.update(
      nullptr, object_from_json(R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm"},"data":{"a":"1"}})"),
      "kubectl-create"));
  json::object broken = created;
  broken["data"] = json::array{1, 2};
  json::object written = manager.update(&created, broken, "kubectl-edit");
  EXPECT_FALSE(written.at("metadata").as_object().contains("managedFields"));
  EXPECT_EQ(written.at("data"), json::parse("[1,2]"));
}

// The structured merge borrows the write's object; when a later step fails (here the live object cannot be typed),
// the write still gets all of it back.
TEST_F(FieldManagerTest, UpdateOfALiveObjectThatCannotBeTypedKeepsTheWrittenObject) {
  FieldManager manager = make("v1", "ConfigMap");
  json::object live = object_from_json(
      R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm","uid":"u","managedFields":[{"manager":"a",
          "operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:data":{}}}]},"data":[1]})");
  json::object written = manager.update(
      &live, object_from_json(R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm","uid":"u"},
          "data":{"a":"1"}})"),
      "kubectl-edit");
  EXPECT_FALSE(written.at("metadata").as_object().contains("managedFields"));
  EXPECT_EQ(written.at("data"), json::parse(R"({"a":"1"})"));
  EXPECT_EQ(written.at("metadata").at("name"), "cm");
}

TEST_F(FieldManagerTest, ResetIsLoggedAtMostOnceASecond) {
  base::Logger logger;
  const Types& types = Types::get();
  FieldManager::Options options;
  options.schema = types.schema;
  options.types = {{"v1", types.kind_type("v1", "ConfigMap").type}};
  options.api_version = "v1";
  options.kind = "ConfigMap";
  options.logger = &logger;
  FieldManager manager(std::move(options));
  json::object broken = object_from_json(
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","namespace":"ns"},"data":[1]})");
  ::testing::internal::CaptureStderr();
  manager.update(nullptr, broken, "a");
  manager.update(nullptr, broken, "b");
  std::string logged = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(logged.find(R"("[SHOULD NOT HAPPEN] failed to update managedFields" err=)"), std::string::npos) << logged;
  EXPECT_NE(logged.find(R"(versionKind="/v1, Kind=ConfigMap" namespace="ns" name="cm")"), std::string::npos) << logged;
  EXPECT_EQ(logged.find("SHOULD NOT HAPPEN"), logged.rfind("SHOULD NOT HAPPEN")) << "logged twice within a second";
}

TEST_F(FieldManagerTest, ResetFieldsAreOwnedByNobody) {
  // The main resource resets status (kube's ResetFieldsStrategy of deployments): what a write does there is not
  // recorded.
  const Types& types = Types::get();
  FieldManager::Options options;
  options.schema = types.schema;
  options.types = {{"apps/v1", types.kind_type("apps/v1", "Deployment").type}};
  options.api_version = "apps/v1";
  options.kind = "Deployment";
  options.new_object = types.zero_object("apps/v1", "Deployment");
  options.clock = clock.clock();
  structured_merge::Set status;
  status.insert({structured_merge::PathElement::field("status")});
  options.reset_fields = {{"apps/v1", status}};
  FieldManager manager(std::move(options));

  json::object created = stored(manager.apply(nullptr, object_from_json(R"({"apiVersion":"apps/v1","kind":"Deployment",
      "metadata":{"name":"d"},"spec":{"replicas":1},"status":{"replicas":5}})"),
                                              "kubectl", false));
  EXPECT_EQ(created.at("metadata").at("managedFields"), json::parse(R"([{"manager":"kubectl","operation":"Apply",
      "apiVersion":"apps/v1","time":"2026-12-01T21:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{}}}}])"));
  later();
  json::object updated = created;
  updated["spec"].as_object()["replicas"] = 2;
  updated["status"].as_object()["replicas"] = 7;
  EXPECT_EQ(manager.update(&created, updated, "editor").at("metadata").at("managedFields"), json::parse(R"([
      {"manager":"editor","operation":"Update","apiVersion":"apps/v1","time":"2026-12-01T21:00:10Z",
       "fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{}}}}])"));
}

TEST_F(FieldManagerTest, NoopApplyKeepsTheTime) {
  FieldManager manager = make("v1", "ConfigMap");
  json::object config =
      object_from_json(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"1"}})");
  json::object first = stored(manager.apply(nullptr, config, "kubectl", false));
  later();
  json::object second = manager.apply(&first, config, "kubectl", false);
  EXPECT_EQ(second, first);
}

TEST_F(FieldManagerTest, ScaleTakesReplicasFromTheMainResource) {
  // kube's TestSubresourceField: an applier's replicas taken through /scale by an update.
  FieldManager deployments = make("apps/v1", "Deployment");
  FieldManager scale = make("autoscaling/v1", "Scale", "scale");
  json::object deployment = stored(deployments.apply(nullptr, object_from_json(R"({"apiVersion":"apps/v1",
      "kind":"Deployment","metadata":{"name":"deployment","namespace":"default","labels":{"app":"nginx"}},
      "spec":{"replicas":3,"selector":{"matchLabels":{"app":"nginx"}},
        "template":{"metadata":{"labels":{"app":"nginx"}},"spec":{"containers":[{"name":"nginx","image":"nginx:latest"}]}}}})"),
                                                     "manager", false));
  later();

  const ScaleHandler handler(deployment.at("metadata").at("managedFields").as_array(), "apps/v1",
                             {{"apps/v1", {structured_merge::PathElement::field("spec"),
                                           structured_merge::PathElement::field("replicas")}}});
  json::array scale_entries = handler.to_subresource();
  EXPECT_EQ(scale_entries, json::parse(R"([{"manager":"manager","operation":"Apply","apiVersion":"autoscaling/v1",
      "time":"2026-12-01T21:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{}}}}])"));

  // PATCH /scale {"spec":{"replicas":32}} with fieldManager=manager, on the Scale made from the deployment.
  json::object live_scale = object_from_json(R"({"kind":"Scale","apiVersion":"autoscaling/v1",
      "metadata":{"name":"deployment","namespace":"default","uid":"6a4e3c1d-0000-4000-8000-000000000001",
        "resourceVersion":"1","creationTimestamp":"2026-12-01T21:00:00Z"},
      "spec":{"replicas":3},"status":{"replicas":0,"selector":"app=nginx"}})");
  live_scale["metadata"].as_object()["managedFields"] = scale_entries;
  json::object patched_scale = live_scale;
  patched_scale["spec"].as_object()["replicas"] = 32;
  json::object updated_scale = scale.update(&live_scale, patched_scale, "manager");
  EXPECT_EQ(updated_scale.at("metadata").at("managedFields"), json::parse(R"([{"manager":"manager",
      "operation":"Update","apiVersion":"autoscaling/v1","time":"2026-12-01T21:00:10Z","fieldsType":"FieldsV1",
      "fieldsV1":{"f:spec":{"f:replicas":{}}},"subresource":"scale"}])"));

  // Back on the deployment: the applier no longer owns replicas; the scale's updater does, with no time (kube takes
  // times from the main resource's entries).
  EXPECT_EQ(handler.to_parent(updated_scale.at("metadata").at("managedFields").as_array()), json::parse(R"([
      {"manager":"manager","operation":"Apply","apiVersion":"apps/v1","time":"2026-12-01T21:00:00Z",
       "fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{"f:app":{}}},
         "f:spec":{"f:selector":{},"f:template":{"f:metadata":{"f:labels":{"f:app":{}}},
           "f:spec":{"f:containers":{"k:{\"name\":\"nginx\"}":{".":{},"f:image":{},"f:name":{}}}}}}}},
      {"manager":"manager","operation":"Update","apiVersion":"apps/v1","fieldsType":"FieldsV1",
       "fieldsV1":{"f:spec":{"f:replicas":{}}},"subresource":"scale"}])"));
}

TEST_F(FieldManagerTest, FirstApplyToAnUntrackedObjectMakesBeforeFirstApply) {
  FieldManager manager = make("v1", "ConfigMap");
  // An object stored without managers (they were reset).
  json::object untracked = stored(object_from_json(
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","namespace":"default"},"data":{"a":"1","b":"2"}})"));
  later();
  json::object config = object_from_json(
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","namespace":"default"},"data":{"a":"9"}})");
  auto status = api_error([&] { manager.apply(&untracked, config, "kubectl", false); });
  ASSERT_TRUE(status);
  EXPECT_EQ(status->message, R"(Apply failed with 1 conflict: conflict with "before-first-apply" using v1: .data.a)");

  json::object applied = manager.apply(&untracked, config, "kubectl", true);
  EXPECT_EQ(applied.at("data"), json::parse(R"({"a":"9","b":"2"})"));
  EXPECT_EQ(applied.at("metadata").at("managedFields"), json::parse(R"([
      {"manager":"kubectl","operation":"Apply","apiVersion":"v1","time":"2026-12-01T21:00:10Z",
       "fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:a":{}}}},
      {"manager":"before-first-apply","operation":"Update","apiVersion":"v1","time":"2026-12-01T21:00:10Z",
       "fieldsType":"FieldsV1","fieldsV1":{"f:data":{".":{},"f:b":{}}}}])"));
}

// The installer's managers turn an applied object into its Go type as kube's unstructured converter does: an
// integer beyond its int32 field keeps its low bits (Go's conversion), where a JSON body's is refused. Found by
// fuzzing (tests/fuzz/apply_fuzz.cc): the applied object kept 2^32+80 and could not be stored (500).
TEST(BuiltinFieldManagersTest, AppliedIntegersBeyondTheirTypeAreConvertedAsKubeConvertsThem) {
  const Types& types = Types::get();
  const registry::ResourceDefinition services{
      .version = "v1", .resource = "services", .kind = "Service", .subresources = {"status"}};
  const registry::Strategy strategy;
  const endpoints::FieldManagers managers =
      endpoints::builtin_field_managers(services, strategy, types.schema, types.catalog);
  ASSERT_NE(managers.of(""), nullptr);
  const json::object applied = managers.of("")->apply(nullptr, object_from_json(R"({"apiVersion":"v1",
      "kind":"Service","metadata":{"name":"s","namespace":"default"},"spec":{"ports":[{"port":4294967376,
      "protocol":"TCP"}]}})"), "kubectl", false);
  EXPECT_EQ(applied.at("spec").at("ports"), json::parse(R"([{"port":80,"protocol":"TCP"}])"));
}

}  // namespace
}  // namespace kapi::fieldmanager::field_manager_test
