// Deployments as kube's registry keeps them: definition, code defaults, validation messages and printDeployment.
#include "server/apis/apps/apps.h"
#include "tests/unit/server/apis/strategy_testing.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace kapi::apis {
namespace {

namespace json = boost::json;

using strategy_testing::parse;

using strategy_testing::messages;

constexpr std::string_view kWeb = R"({"metadata":{"name":"web","namespace":"default"},
  "spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},
   "template":{"metadata":{"labels":{"app":"web"}},
    "spec":{"containers":[{"name":"nginx","image":"nginx:1.25"},{"name":"side","image":"busybox"}]}}},
  "status":{"replicas":5}})";

TEST(DeploymentsTest, ServedAsKubeNamesThem) {
  ResourceStorage storage = deployments();
  EXPECT_EQ(storage.definition.qualified_resource(), "deployments.apps");
  EXPECT_EQ(storage.definition.short_names, (std::vector<std::string>{"deploy"}));
  EXPECT_EQ(storage.definition.categories, (std::vector<std::string>{"all"}));
  EXPECT_EQ(storage.definition.subresources, (std::vector<std::string>{"status", "scale"}));
  EXPECT_TRUE(storage.strategy->tracks_generation());
}

TEST(DeploymentsTest, CreateResetsStatusAndAppliesConditionalDefaults) {
  ResourceStorage storage = deployments();
  json::object object = parse(kWeb);
  storage.strategy->prepare_for_create(object);
  EXPECT_EQ(object["status"], json::object());
  auto& spec = object["spec"].as_object();
  EXPECT_EQ(spec["strategy"], parse(R"({"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":"25%","maxSurge":"25%"}})"));
  auto& containers = spec["template"].as_object()["spec"].as_object()["containers"].as_array();
  EXPECT_EQ(containers[0].as_object()["imagePullPolicy"], "IfNotPresent");
  EXPECT_EQ(containers[1].as_object()["imagePullPolicy"], "Always");
  EXPECT_EQ(messages(storage.strategy->validate(object)), "");

  json::object recreate = parse(kWeb);
  recreate["spec"].as_object()["strategy"] = parse(R"({"type":"Recreate"})");
  storage.strategy->prepare_for_create(recreate);
  EXPECT_FALSE(recreate["spec"].as_object()["strategy"].as_object().contains("rollingUpdate"));
}

TEST(DeploymentsTest, ValidatesSelectorTemplateAndReplicasAsKube) {
  ResourceStorage storage = deployments();
  json::object object = parse(kWeb);
  auto& spec = object["spec"].as_object();
  spec["replicas"] = -1;
  spec["template"].as_object()["metadata"] = parse(R"({"labels":{"app":"other"}})");
  spec["template"].as_object()["spec"].as_object()["containers"] = json::array();
  EXPECT_EQ(messages(storage.strategy->validate(object)),
            "spec.replicas: Invalid value: -1: must be greater than or equal to 0\n"
            "spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"other\"}: `selector` does not "
            "match template `labels`\n"
            "spec.template.spec.containers: Required value\n");
  spec.erase("selector");
  spec["replicas"] = 1;
  spec["template"].as_object()["spec"].as_object()["containers"] = parse(R"({"c":[{"name":"a","image":"x"}]})")["c"];
  EXPECT_EQ(messages(storage.strategy->validate(object)), "spec.selector: Required value\n");
}

TEST(DeploymentsTest, SelectorIsImmutable) {
  ResourceStorage storage = deployments();
  json::object old = parse(kWeb);
  json::object changed = parse(kWeb);
  auto& spec = changed["spec"].as_object();
  spec["selector"] = parse(R"({"matchLabels":{"app":"web","tier":"front"}})");
  spec["template"].as_object()["metadata"] = parse(R"({"labels":{"app":"web","tier":"front"}})");
  EXPECT_EQ(messages(storage.strategy->validate_update(changed, old)),
            "spec.selector: Invalid value: &LabelSelector{MatchLabels:map[string]string{app: web,tier: front,},"
            "MatchExpressions:[]LabelSelectorRequirement{},}: field is immutable\n");
  EXPECT_EQ(messages(storage.strategy->validate_update(old, old)), "");
}

TEST(DeploymentsTest, PrintsAsPrintDeployment) {
  ResourceStorage storage = deployments();
  std::vector<std::string> names;
  for (const auto& column : storage.strategy->table_columns()) names.push_back(column.name + (column.priority ? "*" : ""));
  EXPECT_EQ(names, (std::vector<std::string>{"Name", "Ready", "Up-to-date", "Available", "Age", "Containers*",
                                             "Images*", "Selector*"}));
  json::object object = parse(kWeb);
  object["status"] = parse(R"({"readyReplicas":1,"updatedReplicas":2,"availableReplicas":1})");
  json::array cells = storage.strategy->table_cells(object);
  ASSERT_EQ(cells.size(), 8u);
  EXPECT_EQ(cells[0], "web");
  EXPECT_EQ(cells[1], "1/2");
  EXPECT_EQ(cells[2], 2);
  EXPECT_EQ(cells[3], 1);
  EXPECT_EQ(cells[5], "nginx,side");
  EXPECT_EQ(cells[6], "nginx:1.25,busybox");
  EXPECT_EQ(cells[7], "app=web");
}

}  // namespace
}  // namespace kapi::apis

namespace kapi::apis {
namespace {

TEST(ReplicaSetsTest, ValidatedAndPrintedAsKube) {
  ResourceStorage storage = replicasets();
  EXPECT_EQ(storage.definition.short_names, (std::vector<std::string>{"rs"}));
  EXPECT_TRUE(storage.strategy->tracks_generation());
  json::object object = parse(kWeb);
  storage.strategy->prepare_for_create(object);
  EXPECT_EQ(object["status"], json::object());
  EXPECT_EQ(messages(storage.strategy->validate(object)), "");
  object["status"] = parse(R"({"replicas":3,"readyReplicas":1})");
  json::array cells = storage.strategy->table_cells(object);
  ASSERT_EQ(cells.size(), 8u);
  EXPECT_EQ(cells[1], 2);
  EXPECT_EQ(cells[2], 3);
  EXPECT_EQ(cells[3], 1);
  EXPECT_EQ(cells[7], "app=web");
  object["spec"].as_object()["selector"] = json::object();
  EXPECT_EQ(messages(storage.strategy->validate(object)),
            "spec.selector: Invalid value: &LabelSelector{MatchLabels:map[string]string{},MatchExpressions:[]"
            "LabelSelectorRequirement{},}: empty selector is invalid for deployment\n");
}

}  // namespace
}  // namespace kapi::apis

namespace kapi::apis {
namespace {

TEST(StatefulSetsTest, DefaultsPartitionAndForbidsOtherSpecUpdates) {
  ResourceStorage storage = statefulsets();
  json::object object = parse(kWeb);
  storage.strategy->prepare_for_create(object);
  auto& spec = object["spec"].as_object();
  EXPECT_EQ(spec["updateStrategy"], parse(R"({"type":"RollingUpdate","rollingUpdate":{"partition":0}})"));
  EXPECT_EQ(spec["podManagementPolicy"], "OrderedReady");
  EXPECT_EQ(messages(storage.strategy->validate(object)), "");
  json::object changed = object;
  changed["spec"].as_object()["serviceName"] = "other";
  changed["spec"].as_object()["replicas"] = 4;
  EXPECT_EQ(messages(storage.strategy->validate_update(changed, object)),
            "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', "
            "'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden\n");
  object["status"] = parse(R"({"readyReplicas":1})");
  json::array cells = storage.strategy->table_cells(object);
  ASSERT_EQ(cells.size(), 5u);
  EXPECT_EQ(cells[1], "1/2");
}

TEST(DaemonSetsTest, DefaultsRollingUpdateAndPrintsNodeSelector) {
  ResourceStorage storage = daemonsets();
  EXPECT_EQ(storage.definition.subresources, (std::vector<std::string>{"status"}));
  json::object object = parse(kWeb);
  object["spec"].as_object().erase("replicas");
  storage.strategy->prepare_for_create(object);
  EXPECT_EQ(object["spec"].as_object()["updateStrategy"],
            parse(R"({"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":1,"maxSurge":0}})"));
  EXPECT_EQ(messages(storage.strategy->validate(object)), "");
  EXPECT_EQ(storage.strategy->table_cells(object)[6], "<none>");
  object["spec"].as_object()["template"].as_object()["spec"].as_object()["nodeSelector"] =
      parse(R"({"zone":"a","disk":"ssd"})");
  json::array cells = storage.strategy->table_cells(object);
  ASSERT_EQ(cells.size(), 11u);
  EXPECT_EQ(cells[6], "disk=ssd,zone=a");
}

}  // namespace
}  // namespace kapi::apis

namespace kapi::apis {
namespace {

TEST(ControllerRevisionsTest, PrintsTheControllerAndKeepsDataImmutable) {
  ResourceStorage storage = controllerrevisions();
  EXPECT_TRUE(storage.definition.subresources.empty());
  json::object revision = parse(R"({"metadata":{"name":"web-6d4b","ownerReferences":[
      {"apiVersion":"apps/v1","kind":"StatefulSet","name":"web","uid":"1","controller":true}]},
      "data":{"spec":{}},"revision":2})");
  json::array cells = storage.strategy->table_cells(revision);
  EXPECT_EQ(cells[1], "statefulset.apps/web");
  EXPECT_EQ(cells[2], 2);
  EXPECT_EQ(storage.strategy->table_cells(parse(R"({"metadata":{"name":"x"}})"))[1], "<none>");
  json::object changed = revision;
  changed["data"] = parse(R"({"spec":{"a":1}})");
  EXPECT_EQ(messages(storage.strategy->validate_update(changed, revision)),
            "data: Invalid value: {\"spec\":{\"a\":1}}: field is immutable\n");
  changed = revision;
  changed["revision"] = -1;
  EXPECT_EQ(messages(storage.strategy->validate(changed)),
            "revision: Invalid value: -1: must be greater than or equal to 0\n");
}

}  // namespace
}  // namespace kapi::apis
