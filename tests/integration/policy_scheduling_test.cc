// policy/v1 PodDisruptionBudgets driven by kubectl on both stores, and pods/eviction honouring them as kube's
// EvictionREST does: 429 while a budget is unprocessed or allows no disruption, a disruption taken from the budget
// before the pod goes, 500 for a pod two budgets guard, unready and pending pods let go.
#include "server/schema/transcoder.h"
#include "tests/integration/kapi_suite.h"
#include "tests/integration/kubectl_runner.h"

#include <chrono>
#include <filesystem>
#include <thread>

namespace kapi::integration::policy_scheduling_test {
namespace {

using Headers = std::vector<std::pair<std::string, std::string>>;
namespace json = boost::json;
const Headers kJson{{"Content-Type", "application/json"}};
constexpr std::string_view kPods = "/api/v1/namespaces/default/pods";

class PolicySchedulingTest : public KapiSuite<PolicySchedulingTest> {
 protected:
  CommandResult kubectl(const std::string& arguments, int timeout_seconds = 60) {
    return run_kubectl(kapi(), arguments, timeout_seconds);
  }
  HttpResponse call(std::string_view method, std::string_view target, std::string_view body = {}) {
    return kapi().connect_admin().request(method, target, kJson, body);
  }
  static std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

  // A pod labelled app=`app`; running and ready unless `phase` says otherwise.
  void create_pod(const std::string& name, const std::string& app, const std::string& phase = "Running",
                  bool ready = true) {
    HttpResponse created = call("POST", kPods,
                                R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
                                    R"(","labels":{"app":")" + app +
                                    R"("}},"spec":{"containers":[{"name":"c","image":"nginx"}]}})");
    ASSERT_EQ(created.status, 201) << created.body;
    if (phase == "Pending") return;
    CommandResult status = kubectl("patch pod " + name + " --subresource=status --type=merge -p '{\"status\":{\"phase\":\"" +
                                   phase + "\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"" +
                                   (ready ? "True" : "False") + "\"}]}}'");
    ASSERT_EQ(status.output, "pod/" + name + " patched\n");
  }
  // What the disruption controller would write.
  void set_budget_status(const std::string& name, int allowed, int desired, int current) {
    CommandResult patched = kubectl(
        "patch pdb " + name + " --subresource=status --type=merge -p '{\"status\":{\"observedGeneration\":1," +
        "\"disruptionsAllowed\":" + std::to_string(allowed) + ",\"desiredHealthy\":" + std::to_string(desired) +
        ",\"currentHealthy\":" + std::to_string(current) + ",\"expectedPods\":1}}'");
    ASSERT_EQ(patched.output, "poddisruptionbudget.policy/" + name + " patched\n");
  }
  HttpResponse evict(const std::string& pod) {
    return call("POST", std::string(kPods) + "/" + pod + "/eviction",
                R"({"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":")" + pod + R"("}})");
  }
  static std::string first_cause(const HttpResponse& response) {
    auto status = json_object(response.body);
    const auto& causes = status["details"].as_object()["causes"].as_array();
    return causes.empty() ? "" : json::serialize(causes[0]);
  }
  bool pod_exists(const std::string& name) { return call("GET", std::string(kPods) + "/" + name).status == 200; }

  void SetUp() override {
    KapiSuite::SetUp();
    ASSERT_TRUE(std::filesystem::exists("/usr/bin/kubectl")) << "kubectl is not installed (scripts/install-deps)";
  }
};

TEST_F(PolicySchedulingTest, KubectlManagesAPodDisruptionBudget) {
  CommandResult listed = kubectl("api-resources --api-group=policy");
  EXPECT_NE(listed.output.find("poddisruptionbudgets   pdb          policy/v1    true         PodDisruptionBudget"),
            std::string::npos) << listed.output;
  ASSERT_EQ(kubectl("create pdb web --selector=app=web --min-available=50%").output,
            "poddisruptionbudget.policy/web created\n");
  CommandResult table = kubectl("get pdb");
  EXPECT_EQ(first_line(table.output), "NAME   MIN AVAILABLE   MAX UNAVAILABLE   ALLOWED DISRUPTIONS   AGE")
      << table.output;
  EXPECT_NE(table.output.find("web    50%             N/A               0"), std::string::npos) << table.output;
  EXPECT_EQ(kubectl("get pdb web -o jsonpath={.metadata.generation}").output, "1");

  EXPECT_EQ(kubectl("patch pdb web --type=merge -p '{\"spec\":{\"minAvailable\":null,\"maxUnavailable\":1}}'").output,
            "poddisruptionbudget.policy/web patched\n");
  EXPECT_EQ(kubectl("get pdb web -o jsonpath={.metadata.generation}/{.spec.maxUnavailable}").output, "2/1");
  // Status only through its subresource.
  kubectl("patch pdb web --type=merge -p '{\"status\":{\"disruptionsAllowed\":4}}'");
  EXPECT_EQ(kubectl("get pdb web -o jsonpath={.status.disruptionsAllowed}").output, "0");

  CommandResult watched = kubectl("get pdb -w", 3);
  EXPECT_EQ(watched.exit_code, 124) << watched.output;
  EXPECT_NE(watched.output.find("web"), std::string::npos) << watched.output;

  HttpResponse both = call("POST", "/apis/policy/v1/namespaces/default/poddisruptionbudgets",
                           R"({"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"bad"},
                               "spec":{"minAvailable":"150%","maxUnavailable":-1,"selector":{}}})");
  ASSERT_TRUE(is_status(both, 422, "Invalid")) << both.body;
  EXPECT_EQ(status_message(both),
            "PodDisruptionBudget.policy \"bad\" is invalid: [spec: Invalid value: policy.PodDisruptionBudgetSpec{...}: "
            "minAvailable and maxUnavailable cannot be both set, spec.minAvailable: Invalid value: "
            "intstr.IntOrString{Type:1, IntVal:0, StrVal:\"150%\"}: must not be greater than 100%, "
            "spec.maxUnavailable: Invalid value: -1: must be greater than or equal to 0]");
  EXPECT_EQ(kubectl("delete pdb web").output, "poddisruptionbudget.policy \"web\" deleted\n");
}

TEST_F(PolicySchedulingTest, EvictionHonoursTheDisruptionBudget) {
  ASSERT_EQ(kubectl("create pdb strict --selector=app=strict --min-available=1").output,
            "poddisruptionbudget.policy/strict created\n");
  create_pod("strict-pod", "strict");

  // The disruption controller has not seen the budget yet.
  HttpResponse unprocessed = evict("strict-pod");
  ASSERT_TRUE(is_status(unprocessed, 429, "TooManyRequests")) << unprocessed.body;
  EXPECT_EQ(status_message(unprocessed), "Cannot evict pod as it would violate the pod's disruption budget.");
  EXPECT_EQ(first_cause(unprocessed),
            R"({"reason":"DisruptionBudget","message":"The disruption budget strict is still being processed by the server."})");

  set_budget_status("strict", 0, 1, 1);
  HttpResponse refused = evict("strict-pod");
  ASSERT_TRUE(is_status(refused, 429, "TooManyRequests")) << refused.body;
  EXPECT_EQ(first_cause(refused),
            R"({"reason":"DisruptionBudget","message":"The disruption budget strict needs 1 healthy pods and has 1 currently"})");
  EXPECT_TRUE(pod_exists("strict-pod"));

  // Another budget allows one disruption: the eviction takes it, then deletes the pod.
  ASSERT_EQ(kubectl("create pdb loose --selector=app=loose --max-unavailable=1").output,
            "poddisruptionbudget.policy/loose created\n");
  set_budget_status("loose", 1, 1, 2);
  create_pod("loose-pod", "loose");
  HttpResponse allowed = evict("loose-pod");
  ASSERT_EQ(allowed.status, 201) << allowed.body;
  EXPECT_FALSE(pod_exists("loose-pod"));
  EXPECT_EQ(kubectl("get pdb loose -o jsonpath={.status.disruptionsAllowed}/{.status.conditions[0].type}="
                    "{.status.conditions[0].status}/{.status.conditions[0].reason}")
                .output,
            "0/DisruptionAllowed=False/InsufficientPods");
  EXPECT_NE(kubectl("get pdb loose -o jsonpath={.status.disruptedPods}").output.find("loose-pod"), std::string::npos);
  // The disruptedPods map of times travels as protobuf too.
  HttpResponse protobuf = kapi().connect_admin().request(
      "GET", "/apis/policy/v1/namespaces/default/poddisruptionbudgets/loose",
      {{"Accept", "application/vnd.kubernetes.protobuf"}});
  ASSERT_EQ(protobuf.status, 200);
  const schema::Catalog catalog = schema::Catalog::builtin();
  json::object decoded = schema::Transcoder(catalog).decode(protobuf.body);
  EXPECT_TRUE(decoded["status"].as_object()["disruptedPods"].as_object()["loose-pod"].is_string())
      << json::serialize(decoded);
  create_pod("loose-pod-2", "loose");
  EXPECT_TRUE(is_status(evict("loose-pod-2"), 429, "TooManyRequests"));

  // A pod a node runs is deleted gracefully, and says why it goes first.
  create_pod("loose-on-node", "loose");
  kubectl("patch pdb loose --subresource=status --type=merge -p '{\"status\":{\"disruptionsAllowed\":1}}'");
  ASSERT_EQ(call("POST", std::string(kPods) + "/loose-on-node/binding",
                 R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":"loose-on-node"},"target":{"kind":"Node","name":"n1"}})")
                .status,
            201);
  ASSERT_EQ(evict("loose-on-node").status, 201);
  EXPECT_EQ(kubectl("get pod loose-on-node -o 'jsonpath={.status.conditions[?(@.type==\"DisruptionTarget\")].reason}/"
                    "{.metadata.deletionGracePeriodSeconds}'")
                .output,
            "EvictionByEvictionAPI/30");

  // kubectl drain's eviction path: a pending pod disrupts nothing and goes whatever the budget says.
  create_pod("strict-pending", "strict", "Pending");
  EXPECT_EQ(evict("strict-pending").status, 201);
  EXPECT_FALSE(pod_exists("strict-pending"));
  // An unready pod goes when the budget is met without it, and takes no disruption from it.
  create_pod("strict-unready", "strict", "Running", false);
  EXPECT_EQ(evict("strict-unready").status, 201);
  EXPECT_EQ(kubectl("get pdb strict -o jsonpath={.status.disruptionsAllowed}").output, "0");

  // Two budgets over one pod: kube's 500.
  ASSERT_EQ(kubectl("create pdb strict-too --selector=app=strict --max-unavailable=0").output,
            "poddisruptionbudget.policy/strict-too created\n");
  HttpResponse ambiguous = evict("strict-pod");
  EXPECT_EQ(ambiguous.status, 500) << ambiguous.body;
  EXPECT_EQ(status_message(ambiguous),
            "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.");
  kubectl("delete pdb strict strict-too loose");
  kubectl("delete pod strict-pod loose-pod-2 loose-on-node --grace-period=0 --force");
}

TEST_F(PolicySchedulingTest, KubectlDrainWaitsForTheDisruptionBudget) {
  ASSERT_EQ(call("POST", "/api/v1/nodes", R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"guarded-node"}})").status,
            201);
  ASSERT_EQ(kubectl("create pdb drain-guard --selector=app=drained --min-available=1").output,
            "poddisruptionbudget.policy/drain-guard created\n");
  set_budget_status("drain-guard", 0, 1, 1);
  create_pod("drained", "drained");
  ASSERT_EQ(call("POST", std::string(kPods) + "/drained/binding",
                 R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":"drained"},"target":{"kind":"Node","name":"guarded-node"}})")
                .status,
            201);
  // kubectl retries a 429 until its timeout, saying why.
  CommandResult refused = kubectl("drain guarded-node --force --grace-period=0 --timeout=2s");
  EXPECT_NE(refused.exit_code, 0) << refused.output;
  EXPECT_NE(refused.output.find("error when evicting pods/\"drained\" -n \"default\" (will retry after 5s): Cannot "
                                "evict pod as it would violate the pod's disruption budget."),
            std::string::npos) << refused.output;
  EXPECT_TRUE(pod_exists("drained"));

  set_budget_status("drain-guard", 1, 1, 2);
  CommandResult drained = kubectl("drain guarded-node --force --grace-period=0 --timeout=30s");
  EXPECT_EQ(drained.exit_code, 0) << drained.output;
  EXPECT_NE(drained.output.find("pod/drained evicted"), std::string::npos) << drained.output;
  EXPECT_FALSE(pod_exists("drained"));
  kubectl("delete pdb drain-guard");
}

TEST_F(PolicySchedulingTest, SystemPriorityClassesAreBootstrappedAndKept) {
  CommandResult listed = kubectl("get priorityclasses");
  EXPECT_EQ(first_line(listed.output), "NAME                      VALUE        GLOBAL-DEFAULT   AGE   PREEMPTIONPOLICY")
      << listed.output;
  EXPECT_NE(listed.output.find("system-cluster-critical   2000000000   false"), std::string::npos) << listed.output;
  EXPECT_NE(listed.output.find("system-node-critical      2000001000   false"), std::string::npos) << listed.output;
  EXPECT_NE(listed.output.find("PreemptLowerPriority"), std::string::npos) << listed.output;
  EXPECT_EQ(kubectl("get pc system-node-critical -o jsonpath={.description}").output,
            "Used for system critical pods that must not be moved from their current node.");
  CommandResult deleted = kubectl("delete pc system-node-critical");
  EXPECT_NE(deleted.output.find("priorityclasses.scheduling.k8s.io \"system-node-critical\" is forbidden: this is a "
                                "system priority class and cannot be deleted"),
            std::string::npos) << deleted.output;
  HttpResponse health = call("GET", "/readyz?verbose");
  EXPECT_NE(health.body.find("[+]poststarthook/scheduling/bootstrap-system-priority-classes ok"), std::string::npos)
      << health.body;
}

TEST_F(PolicySchedulingTest, KubectlManagesAPriorityClass) {
  CommandResult listed = kubectl("api-resources --api-group=scheduling.k8s.io");
  EXPECT_NE(listed.output.find("priorityclasses   pc           scheduling.k8s.io/v1   false        PriorityClass"),
            std::string::npos) << listed.output;
  ASSERT_EQ(kubectl("create priorityclass high --value=1000 --description=important --preemption-policy=Never").output,
            "priorityclass.scheduling.k8s.io/high created\n");
  EXPECT_NE(kubectl("get pc high").output.find("high   1000    false            "), std::string::npos);
  EXPECT_EQ(kubectl("patch pc high --type=merge -p '{\"description\":\"very important\"}'").output,
            "priorityclass.scheduling.k8s.io/high patched\n");
  CommandResult value = kubectl("patch pc high --type=merge -p '{\"value\":2000}'");
  EXPECT_NE(value.output.find("value: Forbidden: may not be changed in an update."), std::string::npos) << value.output;
  CommandResult policy = kubectl("patch pc high --type=merge -p '{\"preemptionPolicy\":\"PreemptLowerPriority\"}'");
  EXPECT_NE(policy.output.find("preemptionPolicy: Invalid value: \"PreemptLowerPriority\": field is immutable"),
            std::string::npos) << policy.output;
  CommandResult watched = kubectl("get pc -w", 3);
  EXPECT_EQ(watched.exit_code, 124) << watched.output;
  EXPECT_NE(watched.output.find("high"), std::string::npos) << watched.output;

  CommandResult too_high = kubectl("create priorityclass huge --value=1000000001");
  EXPECT_NE(too_high.output.find("PriorityClass.scheduling.k8s.io \"huge\" is invalid: value: Forbidden: maximum "
                                 "allowed value of a user defined priority is 1000000000"),
            std::string::npos) << too_high.output;
  CommandResult reserved = kubectl("create priorityclass system-mine --value=10");
  EXPECT_NE(reserved.output.find("metadata.name: Forbidden: priority class names with 'system-' prefix are reserved "
                                 "for system use only. error: system-mine is not a known system priority class"),
            std::string::npos) << reserved.output;
  EXPECT_EQ(kubectl("delete pc high").output, "priorityclass.scheduling.k8s.io \"high\" deleted\n");
}

TEST_F(PolicySchedulingTest, OnlyOnePriorityClassIsTheGlobalDefault) {
  ASSERT_EQ(kubectl("create priorityclass default-one --value=10 --global-default").output,
            "priorityclass.scheduling.k8s.io/default-one created\n");
  // The Priority admission plugin reads an informer, which sees the new default a moment later.
  std::string refused;
  for (int attempt = 0; attempt < 50; ++attempt) {
    refused = kubectl("create priorityclass default-two --value=5 --global-default --dry-run=server").output;
    if (refused.find("is forbidden") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(refused,
            "error: failed to create priorityclass: priorityclasses.scheduling.k8s.io \"default-two\" is forbidden: "
            "PriorityClass default-one is already marked as default. Only one default can exist\n");
  // The default itself stays writable, and another class without the mark is no trouble.
  EXPECT_EQ(kubectl("patch pc default-one --type=merge -p '{\"description\":\"the default\"}'").output,
            "priorityclass.scheduling.k8s.io/default-one patched\n");
  EXPECT_EQ(kubectl("create priorityclass plain --value=5").output, "priorityclass.scheduling.k8s.io/plain created\n");
  CommandResult marked = kubectl("patch pc plain --type=merge -p '{\"globalDefault\":true}'");
  EXPECT_NE(marked.output.find("PriorityClass default-one is already marked as default"), std::string::npos)
      << marked.output;
  kubectl("delete pc default-one plain");
}

TEST_F(PolicySchedulingTest, KubectlManagesARuntimeClass) {
  CommandResult listed = kubectl("api-resources --api-group=node.k8s.io -o wide");
  EXPECT_NE(listed.output.find("runtimeclasses                node.k8s.io/v1   false        RuntimeClass"),
            std::string::npos) << listed.output;
  const std::string manifest = write_manifest(kapi(), "gvisor.yaml", R"(apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata:
  name: gvisor
handler: runsc
overhead:
  podFixed:
    cpu: 250m
    memory: 120Mi
scheduling:
  nodeSelector:
    runtime: gvisor
)");
  ASSERT_EQ(kubectl("apply -f " + manifest).output, "runtimeclass.node.k8s.io/gvisor created\n");
  CommandResult table = kubectl("get runtimeclasses");
  EXPECT_EQ(first_line(table.output), "NAME     HANDLER   AGE") << table.output;
  EXPECT_NE(table.output.find("gvisor   runsc"), std::string::npos) << table.output;
  EXPECT_EQ(kubectl("get runtimeclass gvisor -o jsonpath={.overhead.podFixed.cpu}/{.scheduling.nodeSelector.runtime}")
                .output,
            "250m/gvisor");
  EXPECT_EQ(kubectl("label runtimeclass gvisor tier=sandbox").output, "runtimeclass.node.k8s.io/gvisor labeled\n");
  CommandResult handler = kubectl("patch runtimeclass gvisor --type=merge -p '{\"handler\":\"kata\"}'");
  EXPECT_NE(handler.output.find("handler: Invalid value: \"kata\": field is immutable"), std::string::npos)
      << handler.output;
  HttpResponse bad = call("POST", "/apis/node.k8s.io/v1/runtimeclasses",
                          R"({"apiVersion":"node.k8s.io/v1","kind":"RuntimeClass","metadata":{"name":"bad"},"handler":"Not_A_Label"})");
  ASSERT_TRUE(is_status(bad, 422, "Invalid")) << bad.body;
  EXPECT_NE(status_message(bad).find("RuntimeClass.node.k8s.io \"bad\" is invalid: handler: Invalid value: "
                                     "\"Not_A_Label\": a lowercase RFC 1123 label must consist of"),
            std::string::npos) << bad.body;
  CommandResult watched = kubectl("get runtimeclasses -w", 3);
  EXPECT_EQ(watched.exit_code, 124) << watched.output;
  EXPECT_EQ(kubectl("delete runtimeclass gvisor").output, "runtimeclass.node.k8s.io \"gvisor\" deleted\n");
}

}  // namespace
}  // namespace kapi::integration::policy_scheduling_test
