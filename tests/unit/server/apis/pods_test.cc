// The pod strategy as kube-apiserver's: code defaults, the status a new pod starts with, ValidatePod and
// ValidatePodUpdate's paths and messages, the field selector values and printPod's cells.
#include "base/go_time.h"
#include "base/quantity.h"
#include "server/apis/core/pod_defaults.h"
#include "server/apis/resource_storage.h"
#include "server/registry/object_meta.h"
#include "tests/unit/server/apis/strategy_testing.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <chrono>

namespace kapi::apis::pods_test {
namespace {

namespace json = boost::json;

using strategy_testing::parse;

// A pod as decoding leaves it (the static +default markers applied).
json::object pod(std::string_view containers = R"([{"name":"web","image":"nginx"}])") {
  json::object object = parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default",
      "creationTimestamp":"2020-01-01T00:00:00Z"},"spec":{"restartPolicy":"Always","dnsPolicy":"ClusterFirst",
      "terminationGracePeriodSeconds":30,"schedulerName":"default-scheduler","securityContext":{}}})");
  object["spec"].as_object()["containers"] = json::parse(containers);
  return object;
}

using strategy_testing::messages;

std::string rfc3339_ago(std::chrono::seconds ago) {
  return base::format_rfc3339(base::unix_time(std::chrono::system_clock::now() - ago).seconds);
}

class PodStrategyTest : public ::testing::Test {
 protected:
  json::object created(json::object object) const {
    storage_.strategy->prepare_for_create(object);
    return object;
  }
  json::array cells(const json::object& object) const { return storage_.strategy->table_cells(object); }

  ResourceStorage storage_ = pods({}, nullptr);
};

TEST_F(PodStrategyTest, IsServedAsKubeServesPods) {
  EXPECT_EQ(storage_.definition.storage_resource, "pods");
  EXPECT_EQ(storage_.definition.short_names, std::vector<std::string>{"po"});
  EXPECT_EQ(storage_.definition.subresources,
            (std::vector<std::string>{"attach", "binding", "ephemeralcontainers", "eviction", "exec", "log",
                                      "portforward", "proxy", "status"}));
  EXPECT_FALSE(storage_.strategy->tracks_generation());
}

TEST_F(PodStrategyTest, ImagePullPolicyFollowsTheTag) {
  EXPECT_EQ(core::default_image_pull_policy("nginx"), "Always");
  EXPECT_EQ(core::default_image_pull_policy("nginx:latest"), "Always");
  EXPECT_EQ(core::default_image_pull_policy("nginx:1.27"), "IfNotPresent");
  EXPECT_EQ(core::default_image_pull_policy("nginx@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"),
            "IfNotPresent");
  EXPECT_EQ(core::default_image_pull_policy("localhost:5000/team/app"), "Always");
  EXPECT_EQ(core::default_image_pull_policy("localhost:5000/team/app:v2"), "IfNotPresent");
  EXPECT_EQ(core::default_image_pull_policy("registry.example.com/app:latest"), "Always");
  EXPECT_EQ(core::default_image_pull_policy("Upper/Case"), "IfNotPresent");  // does not parse
}

TEST_F(PodStrategyTest, CreateDefaultsAndStartsPending) {
  json::object object = pod(R"([{"name":"web","image":"nginx","resources":{"limits":{"cpu":"1","memory":"1Gi"}}},
                                 {"name":"side","image":"busybox:1.36"}])");
  object["spec"].as_object()["volumes"] = json::parse(R"([{"name":"scratch"}])");
  object["status"] = parse(R"({"phase":"Running","podIP":"10.1.1.1"})");
  json::object result = created(std::move(object));
  const auto& spec = result["spec"].as_object();
  const auto& containers = spec.at("containers").as_array();
  EXPECT_EQ(containers[0].at("imagePullPolicy"), "Always");
  EXPECT_EQ(containers[1].at("imagePullPolicy"), "IfNotPresent");
  EXPECT_EQ(containers[0].at("resources").at("requests"), parse(R"({"cpu":"1","memory":"1Gi"})"));
  EXPECT_EQ(spec.at("enableServiceLinks"), true);
  EXPECT_EQ(spec.at("volumes").at(0).at("emptyDir"), json::object());
  // Whatever status the client sent, a pod starts Pending; one container without limits makes it Burstable.
  EXPECT_EQ(result["status"], parse(R"({"phase":"Pending","qosClass":"Burstable"})"));
  EXPECT_FALSE(result["metadata"].as_object().contains("generation"));
}

TEST_F(PodStrategyTest, QosClassAsKubeComputesIt) {
  EXPECT_EQ(core::pod_qos_class(pod()), "BestEffort");
  json::object guaranteed = created(pod(R"([{"name":"a","image":"x","resources":{"limits":{"cpu":"500m","memory":"128Mi"}}}])"));
  EXPECT_EQ(guaranteed["status"].at("qosClass"), "Guaranteed");
  json::object equal_forms = pod(R"([{"name":"a","image":"x","resources":{"limits":{"cpu":"0.5","memory":"134217728"},
                                       "requests":{"cpu":"500m","memory":"128Mi"}}}])");
  EXPECT_EQ(core::pod_qos_class(equal_forms), "Guaranteed");
  json::object burstable = pod(R"([{"name":"a","image":"x","resources":{"requests":{"cpu":"100m"}}}])");
  EXPECT_EQ(core::pod_qos_class(burstable), "Burstable");
  json::object zero = pod(R"([{"name":"a","image":"x","resources":{"requests":{"cpu":"0"}}}])");
  EXPECT_EQ(core::pod_qos_class(zero), "BestEffort");
}

TEST_F(PodStrategyTest, QuantitiesParseExactly) {
  EXPECT_EQ(parse_quantity("500m"), parse_quantity("0.5"));
  EXPECT_EQ(parse_quantity("1Ki"), parse_quantity("1024"));
  EXPECT_EQ(parse_quantity("1k"), parse_quantity("1e3"));
  EXPECT_EQ(parse_quantity("1"), QuantityNanos{1'000'000'000});
  EXPECT_EQ(parse_quantity("1n"), QuantityNanos{1});
  EXPECT_FALSE(parse_quantity("abc"));
  EXPECT_FALSE(parse_quantity("1Qi"));
  EXPECT_FALSE(parse_quantity(""));
}

TEST_F(PodStrategyTest, SchedulingGatesHoldThePod) {
  json::object object = pod();
  object["spec"].as_object()["schedulingGates"] = json::parse(R"([{"name":"example.com/wait"}])");
  json::object result = created(std::move(object));
  const auto& condition = result["status"].at("conditions").at(0).as_object();
  EXPECT_EQ(condition.at("type"), "PodScheduled");
  EXPECT_EQ(condition.at("reason"), "SchedulingGated");
  EXPECT_EQ(cells(result)[2], "SchedulingGated");
}

TEST_F(PodStrategyTest, HostNetworkPortsDefaultToTheContainerPort) {
  json::object object = pod(R"([{"name":"a","image":"x","ports":[{"containerPort":8080,"protocol":"TCP"}]}])");
  object["spec"].as_object()["hostNetwork"] = true;
  json::object result = created(std::move(object));
  EXPECT_EQ(result["spec"].at("containers").at(0).at("ports").at(0).at("hostPort"), 8080);
  EXPECT_TRUE(storage_.strategy->validate(result).empty()) << messages(storage_.strategy->validate(result));
}

TEST_F(PodStrategyTest, ValidationReportsKubesPathsAndMessages) {
  EXPECT_EQ(messages(storage_.strategy->validate(created(pod("[]")))), "spec.containers: Required value\n");
  json::object object = created(pod(R"([{"name":"Web","image":""},{"name":"db","image":"postgres",
      "ports":[{"containerPort":70000,"protocol":"TCP"},{"containerPort":5432,"protocol":"XTP"}],
      "volumeMounts":[{"name":"data","mountPath":"/var/lib"}]},{"name":"db","image":" postgres"}])"));
  object["spec"].as_object()["restartPolicy"] = "Sometimes";
  EXPECT_EQ(messages(storage_.strategy->validate(object)),
            "spec.containers[0].name: Invalid value: \"Web\": a lowercase RFC 1123 label must consist of lower case "
            "alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  "
            "or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')\n"
            "spec.containers[1].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive\n"
            "spec.containers[1].ports[1].protocol: Unsupported value: \"XTP\": supported values: \"SCTP\", \"TCP\", \"UDP\"\n"
            "spec.containers[1].volumeMounts[0].name: Not found: \"data\"\n"
            "spec.containers[2].image: Invalid value: \" postgres\": must not have leading or trailing whitespace\n"
            "spec.containers[2].name: Duplicate value: \"db\"\n"
            "spec.restartPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", \"OnFailure\", \"Never\"\n"
            "spec.containers[0].image: Required value\n");
}

TEST_F(PodStrategyTest, RequestsMayNotExceedLimits) {
  json::object object = created(pod(R"([{"name":"a","image":"x","resources":{"limits":{"cpu":"1"},"requests":{"cpu":"2"}}}])"));
  EXPECT_EQ(messages(storage_.strategy->validate(object)),
            "spec.containers[0].resources.requests[cpu]: Invalid value: \"2\": must be less than or equal to cpu "
            "limit of 1\n");
}

TEST_F(PodStrategyTest, UpdatesChangeOnlyWhatKubeAllows) {
  const json::object old = created(pod());
  json::object image_change = old;
  image_change["spec"].as_object()["containers"].as_array()[0].as_object()["image"] = "nginx:1.27";
  image_change["spec"].as_object()["activeDeadlineSeconds"] = 60;
  image_change["spec"].as_object()["tolerations"] =
      json::parse(R"([{"key":"k","operator":"Exists","effect":"NoSchedule"}])");
  EXPECT_EQ(messages(storage_.strategy->validate_update(image_change, old)), "");

  json::object other = old;
  other["spec"].as_object()["nodeSelector"] = parse(R"({"disk":"ssd"})");
  auto errors = storage_.strategy->validate_update(other, old);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].field, "spec");
  EXPECT_EQ(errors[0].type, validation::ErrorType::Forbidden);
  EXPECT_TRUE(errors[0].detail.starts_with(
      "pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,"
      "`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),"
      "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n"))
      << errors[0].detail;
  EXPECT_NE(errors[0].detail.find("nodeSelector"), std::string::npos);

  json::object added = old;
  added["spec"].as_object()["containers"].as_array().push_back(parse(R"({"name":"b","image":"x","imagePullPolicy":"Always"})"));
  EXPECT_EQ(messages(storage_.strategy->validate_update(added, old)),
            "spec.containers: Forbidden: pod updates may not add or remove containers\n");

  json::object deadline = image_change;
  deadline["spec"].as_object()["activeDeadlineSeconds"] = 120;
  EXPECT_EQ(messages(storage_.strategy->validate_update(deadline, image_change)),
            "spec.activeDeadlineSeconds: Invalid value: 120: must be less than or equal to previous value\n");

  json::object changed_toleration = image_change;
  changed_toleration["spec"].as_object()["tolerations"] = json::parse(R"([{"key":"k","operator":"Exists","effect":"NoExecute"}])");
  EXPECT_EQ(messages(storage_.strategy->validate_update(changed_toleration, image_change)),
            "spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds\n");
}

TEST_F(PodStrategyTest, FieldSelectorsAsKubeOffersThem) {
  json::object object = created(pod());
  object["spec"].as_object()["nodeName"] = "node-1";
  object["status"].as_object()["podIPs"] = json::parse(R"([{"ip":"10.1.2.3"}])");
  registry::SelectableFields fields;
  storage_.strategy->selectable_fields(object, fields);
  EXPECT_EQ(fields["spec.nodeName"], "node-1");
  EXPECT_EQ(fields["spec.restartPolicy"], "Always");
  EXPECT_EQ(fields["spec.schedulerName"], "default-scheduler");
  EXPECT_EQ(fields["spec.hostNetwork"], "false");
  EXPECT_EQ(fields["status.phase"], "Pending");
  EXPECT_EQ(fields["status.podIP"], "10.1.2.3");
  EXPECT_EQ(fields["status.nominatedNodeName"], "");
  auto names = storage_.strategy->selectable_field_names();
  EXPECT_EQ(names.size(), 8u);
}

TEST_F(PodStrategyTest, TableColumnsAreKubes) {
  auto columns = storage_.strategy->table_columns();
  std::vector<std::string> names;
  std::vector<int> priorities;
  for (const auto& column : columns) {
    names.push_back(column.name);
    priorities.push_back(column.priority);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"Name", "Ready", "Status", "Restarts", "Age", "IP", "Node",
                                             "Nominated Node", "Readiness Gates"}));
  EXPECT_EQ(priorities, (std::vector<int>{0, 0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(columns[3].type, "string");
}

TEST_F(PodStrategyTest, NewPodPrintsPending) {
  json::array row = cells(created(pod()));
  ASSERT_EQ(row.size(), 9u);
  EXPECT_EQ(row[0], "p");
  EXPECT_EQ(row[1], "0/1");
  EXPECT_EQ(row[2], "Pending");
  EXPECT_EQ(row[3], "0");
  EXPECT_TRUE(row[4].as_string().ends_with("d")) << row[4];
  EXPECT_EQ(row[5], "<none>");
  EXPECT_EQ(row[6], "<none>");
  EXPECT_EQ(row[7], "<none>");
  EXPECT_EQ(row[8], "<none>");
}

TEST_F(PodStrategyTest, RunningPodPrintsReadinessAndRestarts) {
  json::object object = created(pod(R"([{"name":"a","image":"x"},{"name":"b","image":"y"}])"));
  object["spec"].as_object()["nodeName"] = "node-1";
  object["spec"].as_object()["readinessGates"] = json::parse(R"([{"conditionType":"example.com/lb"},{"conditionType":"example.com/dns"}])");
  json::object status = parse(R"({"phase":"Running","podIPs":[{"ip":"10.1.2.3"}],
      "conditions":[{"type":"Ready","status":"True"},{"type":"example.com/lb","status":"True"}],
      "containerStatuses":[
        {"name":"a","ready":true,"restartCount":2,"state":{"running":{}},"lastState":{"terminated":{"exitCode":1}}},
        {"name":"b","ready":false,"restartCount":0,"state":{"running":{}}}]})");
  status["containerStatuses"].as_array()[0].as_object()["lastState"].as_object()["terminated"].as_object()["finishedAt"] =
      rfc3339_ago(std::chrono::minutes(5));
  object["status"] = status;
  json::array row = cells(object);
  EXPECT_EQ(row[1], "1/2");
  EXPECT_EQ(row[2], "Running");
  EXPECT_EQ(row[3], "2 (5m ago)");
  EXPECT_EQ(row[5], "10.1.2.3");
  EXPECT_EQ(row[6], "node-1");
  EXPECT_EQ(row[8], "1/2");
}

TEST_F(PodStrategyTest, StatusCellFollowsPrintPod) {
  json::object object = created(pod(R"([{"name":"a","image":"x"}])"));
  auto status_cell = [&](std::string_view status) {
    object["status"] = parse(status);
    return std::string(cells(object)[2].as_string());
  };
  EXPECT_EQ(status_cell(R"({"phase":"Pending","containerStatuses":[{"name":"a","state":{"waiting":{"reason":"ContainerCreating"}}}]})"),
            "ContainerCreating");
  EXPECT_EQ(status_cell(R"({"phase":"Running","containerStatuses":[{"name":"a","restartCount":3,"state":{"waiting":{"reason":"CrashLoopBackOff"}}}]})"),
            "CrashLoopBackOff");
  EXPECT_EQ(status_cell(R"({"phase":"Failed","containerStatuses":[{"name":"a","state":{"terminated":{"exitCode":137,"signal":9}}}]})"),
            "Signal:9");
  EXPECT_EQ(status_cell(R"({"phase":"Failed","containerStatuses":[{"name":"a","state":{"terminated":{"exitCode":2}}}]})"),
            "ExitCode:2");
  EXPECT_EQ(status_cell(R"({"phase":"Failed","reason":"Evicted"})"), "Evicted");

  object["spec"].as_object()["initContainers"] = json::parse(R"([{"name":"init","image":"x"},{"name":"init2","image":"x"}])");
  EXPECT_EQ(status_cell(R"({"phase":"Pending","initContainerStatuses":[{"name":"init","state":{"running":{}}}]})"), "Init:0/2");
  EXPECT_EQ(status_cell(R"({"phase":"Pending","initContainerStatuses":[{"name":"init","state":{"terminated":{"exitCode":0}}},
      {"name":"init2","state":{"waiting":{"reason":"ImagePullBackOff"}}}]})"),
            "Init:ImagePullBackOff");
  EXPECT_EQ(status_cell(R"({"phase":"Pending","initContainerStatuses":[{"name":"init","state":{"terminated":{"exitCode":1,"reason":"Error"}}}]})"),
            "Init:Error");

  object["metadata"].as_object()["deletionTimestamp"] = "2020-01-01T00:00:00Z";
  EXPECT_EQ(status_cell(R"({"phase":"Running"})"), "Terminating");
  EXPECT_EQ(status_cell(R"({"phase":"Running","reason":"NodeLost"})"), "Unknown");
  EXPECT_EQ(status_cell(R"({"phase":"Succeeded"})"), "Succeeded");
}

TEST_F(PodStrategyTest, FinishedPodsRowsCarryTheCompletedCondition) {
  json::object object = created(pod(R"([{"name":"a","image":"x"}])"));
  EXPECT_TRUE(storage_.strategy->table_row_conditions(object).empty()) << "a pending pod has none";
  object["status"] = parse(R"({"phase":"Succeeded"})");
  EXPECT_EQ(storage_.strategy->table_row_conditions(object),
            json::parse(R"([{"type":"Completed","status":"True","reason":"Succeeded",
                             "message":"The pod has completed successfully."}])"));
  object["status"] = parse(R"({"phase":"Failed"})");
  EXPECT_EQ(storage_.strategy->table_row_conditions(object),
            json::parse(R"([{"type":"Completed","status":"True","reason":"Failed","message":"The pod failed."}])"));
}

}  // namespace
}  // namespace kapi::apis::pods_test
