// A pod's /binding and /eviction over real HTTPS and through `kubectl drain`: a scheduler's binding writes the
// node once and marks the pod scheduled; an eviction deletes the pod (gracefully when a node runs it), as
// kube-apiserver does when no PodDisruptionBudget guards it.
#include "tests/integration/kapi_suite.h"
#include "tests/integration/kubectl_runner.h"

namespace kapi::integration::pod_subresources_test {
namespace {

using Headers = std::vector<std::pair<std::string, std::string>>;
namespace json = boost::json;

const Headers kJson{{"Content-Type", "application/json"}};
constexpr std::string_view kPods = "/api/v1/namespaces/default/pods";

std::string pod_body(std::string_view name, std::string_view node = "") {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + std::string(name) + R"("},"spec":{)" +
         (node.empty() ? "" : R"("nodeName":")" + std::string(node) + R"(",)") +
         R"("containers":[{"name":"c","image":"nginx"}]}})";
}

std::string binding_body(std::string_view name, std::string_view node) {
  return R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":")" + std::string(name) +
         R"(","annotations":{"scheduler.example.com/score":"7"}},"target":{"apiVersion":"v1","kind":"Node","name":")" +
         std::string(node) + R"("}})";
}

std::string eviction_body(std::string_view name, std::string_view delete_options = "") {
  return R"({"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":")" + std::string(name) + R"("})" +
         (delete_options.empty() ? "" : R"(,"deleteOptions":)" + std::string(delete_options)) + "}";
}

class PodSubresourcesTest : public KapiSuite<PodSubresourcesTest> {
 protected:
  HttpResponse call(std::string_view method, std::string_view target, std::string_view body = {}) {
    return kapi().connect_admin().request(method, target, kJson, body);
  }
  static std::string pod(std::string_view name) { return std::string(kPods) + "/" + std::string(name); }
};

TEST_F(PodSubresourcesTest, BindingAssignsTheNodeOnceAndMarksThePodScheduled) {
  ASSERT_EQ(call("POST", kPods, pod_body("bind-me")).status, 201);
  HttpResponse bound = call("POST", pod("bind-me") + "/binding", binding_body("bind-me", "node-1"));
  ASSERT_EQ(bound.status, 201) << bound.body;
  auto status = json_object(bound.body);
  EXPECT_EQ(status["kind"], "Status");
  EXPECT_EQ(status["status"], "Success");
  EXPECT_EQ(status["code"], 201);

  auto stored = json_object(call("GET", pod("bind-me")).body);
  EXPECT_EQ(stored["spec"].as_object()["nodeName"], "node-1");
  EXPECT_EQ(stored["metadata"].as_object()["annotations"].as_object()["scheduler.example.com/score"], "7");
  bool scheduled = false;
  for (const auto& condition : stored["status"].as_object()["conditions"].as_array())
    scheduled = scheduled || (condition.at("type") == "PodScheduled" && condition.at("status") == "True");
  EXPECT_TRUE(scheduled) << json::serialize(stored);

  HttpResponse again = call("POST", pod("bind-me") + "/binding", binding_body("bind-me", "node-2"));
  ASSERT_TRUE(is_status(again, 409, "Conflict")) << again.body;
  EXPECT_EQ(status_message(again),
            "Operation cannot be fulfilled on pods/binding \"bind-me\": pod bind-me is already assigned to node "
            "\"node-1\"");
}

TEST_F(PodSubresourcesTest, BindingErrorsAreKubes) {
  ASSERT_EQ(call("POST", kPods, pod_body("bind-errors")).status, 201);
  HttpResponse renamed = call("POST", pod("bind-errors") + "/binding", binding_body("other", "node-1"));
  ASSERT_TRUE(is_status(renamed, 400, "BadRequest")) << renamed.body;
  EXPECT_EQ(status_message(renamed), "name in URL does not match name in Binding object");

  HttpResponse no_target = call("POST", pod("bind-errors") + "/binding",
                                R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":"bind-errors"},"target":{}})");
  ASSERT_TRUE(is_status(no_target, 422, "Invalid")) << no_target.body;
  EXPECT_EQ(status_message(no_target), "Binding \"bind-errors\" is invalid: target.name: Required value");

  HttpResponse missing = call("POST", pod("nowhere") + "/binding", binding_body("nowhere", "node-1"));
  ASSERT_TRUE(is_status(missing, 404, "NotFound")) << missing.body;
  EXPECT_EQ(status_message(missing), "pods \"nowhere\" not found");

  HttpResponse get = call("GET", pod("bind-errors") + "/binding");
  EXPECT_TRUE(is_status(get, 405, "MethodNotAllowed")) << get.body;
}

TEST_F(PodSubresourcesTest, EvictionDeletesThePodGracefullyWhenANodeRunsIt) {
  ASSERT_EQ(call("POST", kPods, pod_body("evict-pending")).status, 201);
  HttpResponse evicted = call("POST", pod("evict-pending") + "/eviction", eviction_body("evict-pending"));
  ASSERT_EQ(evicted.status, 201) << evicted.body;
  EXPECT_EQ(json_object(evicted.body)["status"], "Success");
  EXPECT_TRUE(is_status(call("GET", pod("evict-pending")), 404, "NotFound"));

  ASSERT_EQ(call("POST", kPods, pod_body("evict-running", "node-1")).status, 201);
  ASSERT_EQ(call("POST", pod("evict-running") + "/eviction", eviction_body("evict-running")).status, 201);
  auto marked = json_object(call("GET", pod("evict-running")).body);
  EXPECT_TRUE(marked["metadata"].as_object().contains("deletionTimestamp")) << json::serialize(marked);
  ASSERT_EQ(call("POST", pod("evict-running") + "/eviction",
                 eviction_body("evict-running", R"({"gracePeriodSeconds":0})"))
                .status,
            201);
  EXPECT_TRUE(is_status(call("GET", pod("evict-running")), 404, "NotFound"));

  HttpResponse missing = call("POST", pod("gone") + "/eviction", eviction_body("gone"));
  ASSERT_TRUE(is_status(missing, 404, "NotFound")) << missing.body;
  EXPECT_EQ(status_message(missing), "pods \"gone\" not found");
}

TEST_F(PodSubresourcesTest, DiscoveryListsBindingAndEviction) {
  auto list = json_object(call("GET", "/api/v1").body);
  json::object binding, eviction;
  for (const auto& resource : list["resources"].as_array()) {
    if (resource.at("name") == "pods/binding") binding = resource.as_object();
    if (resource.at("name") == "pods/eviction") eviction = resource.as_object();
  }
  EXPECT_EQ(binding["kind"], "Binding");
  EXPECT_EQ(binding["verbs"], json::array{"create"});
  EXPECT_FALSE(binding.contains("group"));
  EXPECT_EQ(eviction["kind"], "Eviction");
  EXPECT_EQ(eviction["group"], "policy");
  EXPECT_EQ(eviction["version"], "v1");
  EXPECT_EQ(eviction["verbs"], json::array{"create"});
}

TEST_F(PodSubresourcesTest, KubectlDrainCordonsTheNodeAndEvictsItsPods) {
  const std::string node = R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"drain-me"}})";
  ASSERT_EQ(call("POST", "/api/v1/nodes", node).status, 201);
  ASSERT_EQ(call("POST", kPods, pod_body("on-drained-node", "drain-me")).status, 201);

  CommandResult drained = run_kubectl(kapi(), "drain drain-me --force --grace-period=0 --timeout=30s");
  EXPECT_EQ(drained.exit_code, 0) << drained.output;
  EXPECT_NE(drained.output.find("node/drain-me cordoned"), std::string::npos) << drained.output;
  EXPECT_NE(drained.output.find("evicting pod default/on-drained-node"), std::string::npos) << drained.output;
  EXPECT_NE(drained.output.find("pod/on-drained-node evicted"), std::string::npos) << drained.output;
  EXPECT_NE(drained.output.find("node/drain-me drained"), std::string::npos) << drained.output;
  EXPECT_TRUE(is_status(call("GET", pod("on-drained-node")), 404, "NotFound"));
  auto cordoned = json_object(call("GET", "/api/v1/nodes/drain-me").body);
  EXPECT_EQ(cordoned["spec"].as_object()["unschedulable"], true);
}

}  // namespace
}  // namespace kapi::integration::pod_subresources_test
