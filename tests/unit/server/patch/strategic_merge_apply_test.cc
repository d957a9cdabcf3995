// Strategic merge patches as kubectl sends them to a Deployment, over the patch metadata of apps/v1 and core/v1.
#include "server/patch/strategic_merge_patch.h"

#include "tests/unit/server/patch/patch_test_util.h"

#include <gtest/gtest.h>

#include <string>

namespace kapi::patch::strategic_merge_apply_test {
namespace {

using testing::json;
using testing::patch_error;
using S = MapPatchSchema;

const S& deployment_schema() {
  static const S kDeployment = [] {
    S object_meta = S::object("ObjectMeta", {"name", "namespace", {"labels", S::map()}, {"annotations", S::map()},
                                             {"finalizers", S::list(), {"merge", ""}},
                                             {"ownerReferences", S::list(S::object("OwnerReference", {"uid", "name"})),
                                              {"merge", "uid"}}});
    S container = S::object(
        "Container",
        {"name", "image", {"command", S::list()}, {"args", S::list()},
         {"ports", S::list(S::object("ContainerPort", {"containerPort", "name", "protocol"})), {"merge", "containerPort"}},
         {"env", S::list(S::object("EnvVar", {"name", "value", {"valueFrom", S::object({"fieldRef"})}})), {"merge", "name"}},
         {"volumeMounts", S::list(S::object("VolumeMount", {"name", "mountPath"})), {"merge", "mountPath"}},
         {"resources", S::object("ResourceRequirements", {{"limits", S::map()}, {"requests", S::map()}})}});
    S volume = S::object("Volume", {"name", {"emptyDir", S::object({"medium", "sizeLimit"})},
                                    {"configMap", S::object({"name", {"items", S::list(S::object({"key", "path"}))}})},
                                    {"secret", S::object({"secretName"})}});
    S pod_spec = S::object("PodSpec", {{"containers", S::list(container), {"merge", "name"}},
                                       {"initContainers", S::list(container), {"merge", "name"}},
                                       {"volumes", S::list(volume), {"merge,retainKeys", "name"}},
                                       {"nodeSelector", S::map()}, "serviceAccountName"});
    S strategy = S::object("DeploymentStrategy", {"type", {"rollingUpdate", S::object({"maxSurge", "maxUnavailable"})}});
    S spec = S::object("DeploymentSpec",
                       {"replicas", {"selector", S::object({{"matchLabels", S::map()}})},
                        {"template", S::object("PodTemplateSpec", {{"metadata", object_meta}, {"spec", pod_spec}})},
                        {"strategy", strategy, {"retainKeys", ""}}, "minReadySeconds"});
    return S::object("Deployment", {"apiVersion", "kind", {"metadata", object_meta}, {"spec", spec}, {"status", S::map()}});
  }();
  return kDeployment;
}

const char* const kLive = R"({
  "apiVersion":"apps/v1","kind":"Deployment",
  "metadata":{"name":"web","namespace":"default","labels":{"app":"web"},"finalizers":["a","b"],
              "annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}"}},
  "spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},
          "strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"25%","maxUnavailable":"25%"}},
          "template":{"metadata":{"labels":{"app":"web"}},
                      "spec":{"containers":[
                                {"name":"app","image":"nginx:1","args":["-g","daemon off;"],
                                 "ports":[{"containerPort":80,"protocol":"TCP"}],
                                 "env":[{"name":"A","value":"1"}],
                                 "volumeMounts":[{"name":"data","mountPath":"/data"}]},
                                {"name":"sidecar","image":"envoy:1"}],
                              "volumes":[{"name":"data","emptyDir":{}}]}}},
  "status":{"replicas":2}})";

boost::json::value patched(std::string_view patch, std::string_view live = kLive) {
  return apply_strategic_merge_patch(json(live), patch, deployment_schema());
}

const boost::json::value& containers(const boost::json::value& deployment) {
  return deployment.at("spec").at("template").at("spec").at("containers");
}

std::vector<std::string> names(const boost::json::value& list, const char* key = "name") {
  std::vector<std::string> out;
  for (const auto& item : list.as_array()) out.push_back(boost::json::value_to<std::string>(item.at(key)));
  return out;
}

TEST(StrategicMergePatchKubectl, SetImageMergesIntoTheNamedContainerOnly) {
  auto result = patched(R"({"spec":{"template":{"spec":{"containers":[{"name":"app","image":"nginx:2"}]}}}})");
  EXPECT_EQ(names(containers(result)), (std::vector<std::string>{"app", "sidecar"}));
  EXPECT_EQ(containers(result).at(0).at("image"), "nginx:2");
  EXPECT_EQ(containers(result).at(0).at("args"), json(R"(["-g","daemon off;"])"));
  EXPECT_EQ(containers(result).at(0).at("ports"), json(R"([{"containerPort":80,"protocol":"TCP"}])"));
  EXPECT_EQ(containers(result).at(1), json(R"({"name":"sidecar","image":"envoy:1"})"));
}

TEST(StrategicMergePatchKubectl, SetImageOnTheSecondContainerKeepsTheOrder) {
  auto result = patched(R"({"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"envoy:2"}]}}}})");
  EXPECT_EQ(names(containers(result)), (std::vector<std::string>{"app", "sidecar"}));
  EXPECT_EQ(containers(result).at(1).at("image"), "envoy:2");
}

TEST(StrategicMergePatchKubectl, RolloutRestartAddsATemplateAnnotation) {
  const char* restart =
      R"({"spec":{"template":{"metadata":{"annotations":{"kubectl.kubernetes.io/restartedAt":"2024-05-01T10:00:00Z"}}}}})";
  auto result = patched(restart);
  EXPECT_EQ(result.at("spec").at("template").at("metadata"),
            json(R"({"labels":{"app":"web"},"annotations":{"kubectl.kubernetes.io/restartedAt":"2024-05-01T10:00:00Z"}})"));
  EXPECT_EQ(result.at("spec").at("template").at("spec"), json(kLive).at("spec").at("template").at("spec"));
}

TEST(StrategicMergePatchKubectl, ScaleAndLabelAndAnnotate) {
  auto result = patched(R"({"spec":{"replicas":5},
                            "metadata":{"labels":{"tier":"web","app":null},"annotations":{"note":"x"}}})");
  EXPECT_EQ(result.at("spec").at("replicas"), 5);
  EXPECT_EQ(result.at("metadata").at("labels"), json(R"({"tier":"web"})"));
  EXPECT_EQ(result.at("metadata").at("annotations").as_object().size(), 2u);
  EXPECT_EQ(result.at("status"), json(R"({"replicas":2})"));
}

TEST(StrategicMergePatchKubectl, ApplyRemovingAContainerDeletesItByName) {
  // The second `kubectl apply` after the sidecar left the manifest: CreateThreeWayMergePatch's output.
  auto result = patched(R"({
    "metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"kind\":\"Deployment\"}\n"}},
    "spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"app"}],
                                "containers":[{"$patch":"delete","name":"sidecar"}]}}}})");
  EXPECT_EQ(names(containers(result)), (std::vector<std::string>{"app"}));
  EXPECT_EQ(containers(result).at(0), json(kLive).at("spec").at("template").at("spec").at("containers").at(0));
  EXPECT_EQ(result.at("metadata").at("annotations").at("kubectl.kubernetes.io/last-applied-configuration"),
            "{\"kind\":\"Deployment\"}\n");
}

TEST(StrategicMergePatchKubectl, ApplyMergesNestedListsByTheirKeysInTheOrderOfTheManifest) {
  auto result = patched(R"({"spec":{"template":{"spec":{
    "$setElementOrder/containers":[{"name":"app"},{"name":"sidecar"}],
    "containers":[{"name":"app","image":"nginx:1.25",
                   "$setElementOrder/env":[{"name":"A"},{"name":"B"}],"env":[{"name":"B","value":"2"}],
                   "$setElementOrder/ports":[{"containerPort":443},{"containerPort":80}],
                   "ports":[{"containerPort":443,"name":"https"}]}]}}}})");
  const auto& app = containers(result).at(0);
  EXPECT_EQ(app.at("image"), "nginx:1.25");
  EXPECT_EQ(app.at("env"), json(R"([{"name":"A","value":"1"},{"name":"B","value":"2"}])"));
  EXPECT_EQ(app.at("ports"), json(R"([{"containerPort":443,"name":"https"},{"containerPort":80,"protocol":"TCP"}])"));
  EXPECT_EQ(names(containers(result)), (std::vector<std::string>{"app", "sidecar"}));
}

TEST(StrategicMergePatchKubectl, ApplyInsertsANewContainerWhereTheManifestHasIt) {
  auto result = patched(R"({"spec":{"template":{"spec":{
    "$setElementOrder/containers":[{"name":"app"},{"name":"logger"},{"name":"sidecar"}],
    "containers":[{"name":"logger","image":"fluentbit:2"}]}}}})");
  EXPECT_EQ(names(containers(result)), (std::vector<std::string>{"app", "logger", "sidecar"}));
}

TEST(StrategicMergePatchKubectl, APatchWithoutElementOrderPutsNewElementsFirst) {
  // strategicpatch's mergeSortedSlice: a patch item the server never had precedes the server's items.
  auto result = patched(R"({"spec":{"template":{"spec":{"containers":[{"name":"logger","image":"fluentbit:2"}]}}}})");
  EXPECT_EQ(names(containers(result)), (std::vector<std::string>{"logger", "app", "sidecar"}));
}

TEST(StrategicMergePatchKubectl, ApplyChangingAVolumeSourceRetainsOnlyTheListedKeys) {
  auto result = patched(R"({"spec":{"template":{"spec":{
    "$setElementOrder/volumes":[{"name":"data"}],
    "volumes":[{"$retainKeys":["configMap","name"],"configMap":{"name":"settings"},"emptyDir":null,"name":"data"}]}}}})");
  EXPECT_EQ(result.at("spec").at("template").at("spec").at("volumes"),
            json(R"([{"name":"data","configMap":{"name":"settings"}}])"));
}

TEST(StrategicMergePatchKubectl, ApplySwitchingToRecreateDropsRollingUpdate) {
  auto result = patched(R"({"spec":{"strategy":{"$retainKeys":["type"],"type":"Recreate","rollingUpdate":null}}})");
  EXPECT_EQ(result.at("spec").at("strategy"), json(R"({"type":"Recreate"})"));
}

TEST(StrategicMergePatchKubectl, ApplyAddingAMountAndAnArgument) {
  // args has no patch strategy: it is replaced whole; volumeMounts merge by mountPath.
  auto result = patched(R"({"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"app"},{"name":"sidecar"}],
    "containers":[{"name":"app","args":["-g","daemon off;","-q"],
                   "$setElementOrder/volumeMounts":[{"mountPath":"/data"},{"mountPath":"/cache"}],
                   "volumeMounts":[{"mountPath":"/cache","name":"cache"}]}]}}}})");
  const auto& app = containers(result).at(0);
  EXPECT_EQ(app.at("args"), json(R"(["-g","daemon off;","-q"])"));
  EXPECT_EQ(names(app.at("volumeMounts"), "mountPath"), (std::vector<std::string>{"/data", "/cache"}));
}

TEST(StrategicMergePatchKubectl, FinalizersMergeAsASet) {
  auto added = patched(R"({"metadata":{"finalizers":["b","c"]}})");
  EXPECT_EQ(added.at("metadata").at("finalizers"), json(R"(["a","b","c"])"));
  auto removed = patched(R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["a"]}})");
  EXPECT_EQ(removed.at("metadata").at("finalizers"), json(R"(["b"])"));
  auto replaced = patched(R"({"metadata":{"finalizers":null}})");
  EXPECT_FALSE(replaced.at("metadata").as_object().contains("finalizers"));
}

TEST(StrategicMergePatchKubectl, ReplaceDirectiveOnAListReplacesIt) {
  auto result = patched(R"({"spec":{"template":{"spec":{"containers":[{"$patch":"replace"},{"name":"only","image":"x"}]}}}})");
  EXPECT_EQ(containers(result), json(R"([{"name":"only","image":"x"}])"));
}

TEST(StrategicMergePatchKubectl, ReplaceDirectiveOnAnObjectReplacesIt) {
  auto result = patched(R"({"spec":{"selector":{"$patch":"replace","matchLabels":{"run":"web"}}}})");
  EXPECT_EQ(result.at("spec").at("selector"), json(R"({"matchLabels":{"run":"web"}})"));
}

TEST(StrategicMergePatchKubectl, FieldsWithoutSchemaMergeLikeAMergePatch) {
  const char* live = R"({"spec":{"replicas":1},"extra":{"keep":1,"drop":2,"nested":{"a":[1,2]}}})";
  auto result = patched(R"({"extra":{"drop":null,"nested":{"a":[3],"b":true}}})", live);
  EXPECT_EQ(result.at("extra"), json(R"({"keep":1,"nested":{"a":[3],"b":true}})"));
}

TEST(StrategicMergePatchKubectl, StatusIsAPlainMap) {
  auto result = patched(R"({"status":{"readyReplicas":2}})");
  EXPECT_EQ(result.at("status"), json(R"({"replicas":2,"readyReplicas":2})"));
}

TEST(StrategicMergePatchKubectl, AContainerWithoutANameIsRejected) {
  auto error = patch_error([] { patched(R"({"spec":{"template":{"spec":{"containers":[{"image":"x"}]}}}})"); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->status().code, 500);
  EXPECT_EQ(error->status().message, "map: map[image:x] does not contain declared merge key: name");
}

TEST(StrategicMergePatchKubectl, AnElementOrderThatContradictsThePatchIsRejected) {
  auto error = patch_error([] {
    patched(R"({"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"app"}],
                                             "containers":[{"name":"sidecar","image":"envoy:2"}]}}}})");
  });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->status().code, 500);
  EXPECT_EQ(error->status().message.rfind("the order in patch list:\n", 0), 0u) << error->status().message;
}

TEST(StrategicMergePatchKubectl, DeepPatchesDoNotExhaustTheStack) {
  constexpr int kDepth = 900;  // below kMaxNestingDepth
  std::string nested;
  for (int i = 0; i < kDepth; ++i) nested += R"({"a":)";
  std::string patch = R"({"extra":)" + nested + "1" + std::string(kDepth + 1, '}');
  EXPECT_EQ(patched(patch, patch), json(patch));
}

}  // namespace
}  // namespace kapi::patch::strategic_merge_apply_test
