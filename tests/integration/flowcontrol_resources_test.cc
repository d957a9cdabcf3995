// flowcontrol.apiserver.k8s.io/v1 served as kube-apiserver serves it, driven by the real kubectl 1.32: kube's
// bootstrap FlowSchemas and PriorityLevelConfigurations listed with the printers' columns and order, discovery and
// the config producer's readiness check, kube's validation messages, the status subresource, and the config
// producer keeping the bootstrap objects across a restart on etcd (a deleted one comes back, one whose
// apf.kubernetes.io/autoupdate-spec is "false" is left as its owner made it).
#include "tests/integration/kapi_suite.h"
#include "tests/integration/kubectl_runner.h"
#include "tests/support/etcd_process.h"

#include <boost/json.hpp>

#include <cstdio>
#include <filesystem>
#include <regex>
#include <thread>

namespace kapi::integration::flowcontrol_resources_test {
namespace {

using namespace std::chrono_literals;
namespace json = boost::json;

// The lines of `output` with runs of spaces collapsed and ages written as AGE, so widths and timing do not matter.
std::string squeezed(const std::string& output) {
  std::string out = std::regex_replace(output, std::regex(" {2,}"), "  ");
  return std::regex_replace(out, std::regex("  [0-9]+[smhdy]([0-9]+[smhd])?(  |\n)"), "  AGE$2");
}

class FlowcontrolResourcesTest : public KapiSuite<FlowcontrolResourcesTest> {
 protected:
  CommandResult kubectl(const std::string& arguments) { return run_kubectl(kapi(), arguments); }

  void SetUp() override {
    KapiSuite::SetUp();
    ASSERT_TRUE(std::filesystem::exists("/usr/bin/kubectl")) << "kubectl is not installed (scripts/install-deps)";
  }

  std::string manifest(const std::string& name, const std::string& text) { return write_manifest(kapi(), name, text); }
};

TEST_F(FlowcontrolResourcesTest, KubesDefaultsListedWithKubesColumns) {
  // MISSINGPL is the Dangling condition the APF controller writes: "?" until it has. The controller follows levels
  // and schemas with two watches, as kube's informers, so a schema bootstrapped just after its level may be marked
  // dangling for a moment; what is checked is the state it settles on.
  CommandResult schemas;
  for (auto deadline = std::chrono::steady_clock::now() + 10s; std::chrono::steady_clock::now() < deadline;) {
    schemas = kubectl("get flowschemas");
    ASSERT_EQ(schemas.exit_code, 0) << schemas.output;
    if (schemas.output.find(" True\n") == std::string::npos) break;
    std::this_thread::sleep_for(100ms);
  }
  const std::string listed = std::regex_replace(squeezed(schemas.output), std::regex("  (\\?|False)\n"), "  -\n");
  EXPECT_EQ(listed,
            "NAME  PRIORITYLEVEL  MATCHINGPRECEDENCE  DISTINGUISHERMETHOD  AGE  MISSINGPL\n"
            "exempt  exempt  1  <none>  AGE  -\n"
            "probes  exempt  2  <none>  AGE  -\n"
            "system-leader-election  leader-election  100  ByUser  AGE  -\n"
            "endpoint-controller  workload-high  150  ByUser  AGE  -\n"
            "workload-leader-election  leader-election  200  ByUser  AGE  -\n"
            "system-node-high  node-high  400  ByUser  AGE  -\n"
            "system-nodes  system  500  ByUser  AGE  -\n"
            "kube-controller-manager  workload-high  800  ByNamespace  AGE  -\n"
            "kube-scheduler  workload-high  800  ByNamespace  AGE  -\n"
            "kube-system-service-accounts  workload-high  900  ByNamespace  AGE  -\n"
            "service-accounts  workload-low  9000  ByUser  AGE  -\n"
            "global-default  global-default  9900  ByUser  AGE  -\n"
            "catch-all  catch-all  10000  ByUser  AGE  -\n")
      << schemas.output;

  CommandResult levels = kubectl("get prioritylevelconfigurations");
  ASSERT_EQ(levels.exit_code, 0) << levels.output;
  EXPECT_EQ(squeezed(levels.output),
            "NAME  TYPE  NOMINALCONCURRENCYSHARES  QUEUES  HANDSIZE  QUEUELENGTHLIMIT  AGE\n"
            "catch-all  Limited  5  <none>  <none>  <none>  AGE\n"
            "exempt  Exempt  <none>  <none>  <none>  <none>  AGE\n"
            "global-default  Limited  20  128  6  50  AGE\n"
            "leader-election  Limited  10  16  4  50  AGE\n"
            "node-high  Limited  40  64  6  50  AGE\n"
            "system  Limited  30  64  6  50  AGE\n"
            "workload-high  Limited  40  128  6  50  AGE\n"
            "workload-low  Limited  100  128  6  50  AGE\n")
      << levels.output;

  CommandResult stored = kubectl("get prioritylevelconfiguration workload-low -o json");
  ASSERT_EQ(stored.exit_code, 0) << stored.output;
  const json::object level = json::parse(stored.output).as_object();
  EXPECT_EQ(level.at("metadata").at("annotations").at("apf.kubernetes.io/autoupdate-spec"), "true");
  EXPECT_EQ(level.at("metadata").at("generation"), 1);
  EXPECT_EQ(level.at("spec"), json::parse(R"({"type":"Limited","limited":{"nominalConcurrencyShares":100,
      "limitResponse":{"type":"Queue","queuing":{"queues":128,"handSize":6,"queueLengthLimit":50}},"lendablePercent":90}})"));

  CommandResult resources = kubectl("api-resources --api-group=flowcontrol.apiserver.k8s.io");
  EXPECT_EQ(squeezed(resources.output),
            "NAME  SHORTNAMES  APIVERSION  NAMESPACED  KIND\n"
            "flowschemas  flowcontrol.apiserver.k8s.io/v1  false  FlowSchema\n"
            "prioritylevelconfigurations  flowcontrol.apiserver.k8s.io/v1  false  PriorityLevelConfiguration\n")
      << resources.output;
  CommandResult ready = kubectl("get --raw /readyz?verbose");
  EXPECT_NE(ready.output.find("[+]poststarthook/priority-and-fairness-config-producer ok\n"), std::string::npos)
      << ready.output;
  EXPECT_NE(ready.output.find("[+]poststarthook/priority-and-fairness-config-consumer ok\n"), std::string::npos)
      << ready.output;
}

TEST_F(FlowcontrolResourcesTest, InvalidObjectsRefusedWithKubesMessages) {
  CommandResult schema = kubectl("create -f " + manifest("bad-schema.yaml", R"(apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata:
  name: bad
spec:
  matchingPrecedence: 20000
  priorityLevelConfiguration:
    name: workload-low
  distinguisherMethod:
    type: ByTeam
  rules:
  - subjects:
    - kind: User
      user:
        name: jane
    nonResourceRules:
    - verbs: ["get"]
      nonResourceURLs: ["/hea*"]
)"));
  EXPECT_NE(schema.exit_code, 0);
  EXPECT_EQ(schema.output,
            "The FlowSchema \"bad\" is invalid: \n"
            "* spec.matchingPrecedence: Invalid value: 20000: must not be greater than 10000\n"
            "* spec.distinguisherMethod.type: Unsupported value: flowcontrol.FlowDistinguisherMethod{Type:\"ByTeam\"}: "
            "supported values: \"ByNamespace\", \"ByUser\"\n"
            "* spec.rules[0].nonResourceRules[0].nonResourceURLs[0]: Invalid value: \"/hea*\": wildcard can only do "
            "suffix matching\n");

  CommandResult level = kubectl("create -f " + manifest("bad-level.yaml", R"(apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata:
  name: bad-level
spec:
  type: Limited
  limited:
    nominalConcurrencyShares: 10
    limitResponse:
      type: Queue
      queuing:
        queues: 128
        handSize: 10
)"));
  EXPECT_NE(level.exit_code, 0);
  EXPECT_EQ(level.output,
            "The PriorityLevelConfiguration \"bad-level\" is invalid: spec.limited.limitResponse.queuing.handSize: "
            "Invalid value: 10: required entropy bits of deckSize 128 and handSize 10 should not be greater than 60\n");

  // The mandatory objects: catch-all is fixed; of exempt, only spec.exempt may change.
  CommandResult catch_all = kubectl("patch flowschema catch-all --type=merge -p '{\"spec\":{\"matchingPrecedence\":9000}}'");
  EXPECT_NE(catch_all.exit_code, 0);
  EXPECT_NE(catch_all.output.find("The FlowSchema \"catch-all\" is invalid: spec: Invalid value: "
                                  "flowcontrol.FlowSchemaSpec{PriorityLevelConfiguration:"
                                  "flowcontrol.PriorityLevelConfigurationReference{Name:\"catch-all\"}, "
                                  "MatchingPrecedence:9000, "),
            std::string::npos)
      << catch_all.output;
  EXPECT_NE(catch_all.output.find(": spec of 'catch-all' must equal the fixed value\n"), std::string::npos)
      << catch_all.output;
  CommandResult tuned = kubectl("patch prioritylevelconfiguration exempt --type=merge "
                                "-p '{\"spec\":{\"exempt\":{\"nominalConcurrencyShares\":3}}}'");
  EXPECT_EQ(tuned.output, "prioritylevelconfiguration.flowcontrol.apiserver.k8s.io/exempt patched\n");
  CommandResult limited = kubectl("patch prioritylevelconfiguration exempt --type=merge "
                                  "-p '{\"spec\":{\"type\":\"Limited\"}}'");
  EXPECT_NE(limited.output.find("* spec.type: Invalid value: \"Limited\": type must be 'Exempt' if and only if name "
                                "is 'exempt'\n"),
            std::string::npos)
      << limited.output;
  EXPECT_NE(limited.output.find("spec of 'exempt' except the 'spec.exempt' field must equal the fixed value"),
            std::string::npos)
      << limited.output;
}

TEST_F(FlowcontrolResourcesTest, DefaultsAndStatusSubresource) {
  CommandResult created = kubectl("create -f " + manifest("team.yaml", R"(apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata:
  name: team
spec:
  type: Limited
  limited:
    limitResponse:
      type: Queue
      queuing: {}
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata:
  name: team
spec:
  priorityLevelConfiguration:
    name: team
  rules:
  - subjects:
    - kind: Group
      group:
        name: team
    resourceRules:
    - verbs: ["*"]
      apiGroups: ["*"]
      resources: ["*"]
      namespaces: ["team"]
)"));
  ASSERT_EQ(created.exit_code, 0) << created.output;
  // kube's v1 defaults.
  EXPECT_EQ(kubectl("get prioritylevelconfiguration team -o jsonpath='{.spec.limited}'").output,
            R"({"lendablePercent":0,"limitResponse":{"queuing":{"handSize":8,"queueLengthLimit":50,"queues":64},)"
            R"("type":"Queue"},"nominalConcurrencyShares":30})");
  EXPECT_EQ(kubectl("get flowschema team -o jsonpath='{.spec.matchingPrecedence}'").output, "1000");

  // The main resource does not write status; /status writes only status (and keeps the generation). kapi's APF
  // controller may meanwhile keep the Dangling condition, so these tests use a condition type of their own.
  auto reviewed = [this] {
    return kubectl("get flowschema team -o jsonpath='{.spec.matchingPrecedence}/{.metadata.generation}/"
                   "{.status.conditions[?(@.type==\"Reviewed\")].reason}'").output;
  };
  kubectl("patch flowschema team --type=merge -p '{\"status\":{\"conditions\":[{\"type\":\"Reviewed\","
          "\"status\":\"True\",\"reason\":\"Main\"}]}}'");
  EXPECT_EQ(reviewed(), "1000/1/");
  CommandResult status = kubectl("patch flowschema team --subresource=status --type=merge -p "
                                 "'{\"status\":{\"conditions\":[{\"type\":\"Reviewed\",\"status\":\"True\","
                                 "\"reason\":\"Checked\",\"message\":\"looked at \\\"team\\\"\"}]},"
                                 "\"spec\":{\"matchingPrecedence\":7}}'");
  ASSERT_EQ(status.exit_code, 0) << status.output;
  EXPECT_EQ(reviewed(), "1000/1/Checked");
  EXPECT_TRUE(std::regex_match(squeezed(kubectl("get flowschema team").output),
                               std::regex("NAME  PRIORITYLEVEL  MATCHINGPRECEDENCE  DISTINGUISHERMETHOD  AGE  MISSINGPL\n"
                                          "team  team  1000  <none>  AGE  (\\?|False)\n")));
  CommandResult duplicate = kubectl("patch flowschema team --subresource=status --type=json -p "
                                    "'[{\"op\":\"add\",\"path\":\"/status/conditions/-\",\"value\":{\"type\":\"Reviewed\"}}]'");
  EXPECT_TRUE(std::regex_match(duplicate.output,
                               std::regex("The FlowSchema \"team\" is invalid: status\\.conditions\\[[0-9]\\]\\.type: "
                                          "Duplicate value: \"Reviewed\"\n")))
      << duplicate.output;
  // A spec change is a new generation, and keeps the status.
  ASSERT_EQ(kubectl("patch flowschema team --type=merge -p '{\"spec\":{\"matchingPrecedence\":700}}'").exit_code, 0);
  EXPECT_EQ(reviewed(), "700/2/Checked");

  CommandResult level_status = kubectl("patch prioritylevelconfiguration team --subresource=status --type=merge -p "
                                       "'{\"status\":{\"conditions\":[{\"type\":\"Reviewed\",\"status\":\"True\"}]},"
                                       "\"spec\":{\"limited\":{\"nominalConcurrencyShares\":1}}}'");
  ASSERT_EQ(level_status.exit_code, 0) << level_status.output;
  EXPECT_EQ(kubectl("get prioritylevelconfiguration team -o jsonpath='{.spec.limited.nominalConcurrencyShares}/"
                    "{.metadata.generation}/{.status.conditions[0].type}'").output,
            "30/1/Reviewed");
  // The user's own objects are theirs: the config producer neither annotates nor removes them.
  EXPECT_EQ(kubectl("get flowschema team -o jsonpath='{.metadata.annotations}'").output, "");
  ASSERT_EQ(kubectl("delete flowschema team").exit_code, 0);
  ASSERT_EQ(kubectl("delete prioritylevelconfiguration team").exit_code, 0);
}

// The config producer runs when kapi starts: a second kapi on the same etcd restores what the first one's users
// took or changed, except what they opted out of.
TEST(FlowcontrolBootstrapRestartTest, StartRestoresTheBootstrapConfigurationUnlessAutoupdateIsFalse) {
  test_support::EtcdProcess etcd;
  const std::string etcd_flag = "--etcd-servers=" + etcd.endpoint();
  {
    KapiProcess kapi({.extra_flags = {etcd_flag}});
    auto kubectl = [&kapi](const std::string& arguments) { return run_kubectl(kapi, arguments); };
    ASSERT_EQ(kubectl("delete flowschema global-default").exit_code, 0);
    ASSERT_EQ(kubectl("delete prioritylevelconfiguration node-high").exit_code, 0);
    ASSERT_EQ(kubectl("annotate --overwrite flowschema service-accounts apf.kubernetes.io/autoupdate-spec=false")
                  .exit_code, 0);
    ASSERT_EQ(kubectl("patch flowschema service-accounts --type=merge -p '{\"spec\":{\"matchingPrecedence\":8000}}'")
                  .exit_code, 0);
    ASSERT_EQ(kubectl("patch prioritylevelconfiguration workload-low --type=merge "
                      "-p '{\"spec\":{\"limited\":{\"nominalConcurrencyShares\":7}}}'").exit_code, 0);
    ASSERT_EQ(kubectl("annotate --overwrite flowschema exempt apf.kubernetes.io/autoupdate-spec=false").exit_code, 0);
    ASSERT_EQ(kapi.shut_down(20s), 0) << kapi.logs();
  }
  KapiProcess kapi({.extra_flags = {etcd_flag}});
  auto get = [&kapi](const std::string& what, const std::string& path) {
    CommandResult result = run_kubectl(kapi, "get " + what + " -o jsonpath='" + path + "'");
    EXPECT_EQ(result.exit_code, 0) << result.output;
    return result.output;
  };
  // Deleted suggested objects are created again, as new objects.
  EXPECT_EQ(get("flowschema global-default", "{.spec.matchingPrecedence}/{.metadata.generation}"), "9900/1");
  EXPECT_EQ(get("prioritylevelconfiguration node-high", "{.spec.limited.nominalConcurrencyShares}"), "40");
  // Opted out: the owner's spec stays.
  EXPECT_EQ(get("flowschema service-accounts",
                "{.spec.matchingPrecedence}/{.metadata.annotations.apf\\.kubernetes\\.io/autoupdate-spec}"),
            "8000/false");
  // Still auto-updated: the bootstrap spec comes back.
  EXPECT_EQ(get("prioritylevelconfiguration workload-low", "{.spec.limited.nominalConcurrencyShares}/{.metadata.generation}"),
            "100/3");
  // A mandatory object cannot opt out.
  EXPECT_EQ(get("flowschema exempt", "{.metadata.annotations.apf\\.kubernetes\\.io/autoupdate-spec}"), "true");
  EXPECT_EQ(kapi.shut_down(20s), 0) << kapi.logs();
  EXPECT_EQ(kapi.sanitizer_reports(), "");
}

}  // namespace
}  // namespace kapi::integration::flowcontrol_resources_test
