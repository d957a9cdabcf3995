// API priority and fairness against the real server: responses name their FlowSchema and priority level by UID;
// a level with one seat and a one-request queue serves one flood request, queues the next and refuses the one
// after (429, Retry-After) while exempt and other users' requests pass; a request that waits past a quarter of its
// deadline is refused; with kube's suggested configuration, an overloaded workload-low refuses service accounts
// while nodes pass; FlowSchemas whose level is missing are marked Dangling.
#include "tests/integration/kapi_suite.h"

#include <thread>

namespace kapi::integration::priority_and_fairness_test {
namespace {

using namespace std::chrono_literals;

class PriorityAndFairnessTest : public KapiSuite<PriorityAndFairnessTest> {
 public:
  static KapiOptions kapi_options() {
    // 20 seats in all: a level with one share of kube's 245 plus its own gets one seat.
    return with_token_users("apf",
                            "flood-token,flood,2001\njane-token,jane,2002\n"
                            "builder-token,system:serviceaccount:team:builder,2003,system:serviceaccounts\n"
                            "node-token,system:node:n1,2004,system:nodes\n",
                            {"--max-requests-inflight=10", "--max-mutating-requests-inflight=10",
                             "--authorization-mode=AlwaysAllow"});  // the users may call the testing endpoints
  }

 protected:
  static HttpResponse admin(std::string_view method, std::string_view target, std::string_view body = {}) {
    std::vector<std::pair<std::string, std::string>> headers;
    if (!body.empty()) headers.emplace_back("Content-Type", "application/json");
    return kapi().connect_admin().request(method, target, headers, body);
  }

  static HttpResponse as(std::string_view user, std::string_view target) {
    return kapi().connect_anonymous().request("GET", target, {{"Authorization", "Bearer " + std::string(user) + "-token"}});
  }

  static std::string uid_of(std::string_view resource, std::string_view name) {
    HttpResponse response =
        admin("GET", "/apis/flowcontrol.apiserver.k8s.io/v1/" + std::string(resource) + "/" + std::string(name));
    EXPECT_EQ(response.status, 200) << response.body;
    auto object = json_object(response.body);
    return std::string(object["metadata"].as_object()["uid"].as_string());
  }

  // Sends until the answer names `level_uid` (the controller follows the stored configuration a moment later).
  static HttpResponse until_classified(const std::function<HttpResponse()>& send, const std::string& level_uid) {
    HttpResponse response;
    auto give_up = std::chrono::steady_clock::now() + 15s;
    do {
      response = send();
      if (response.header("X-Kubernetes-PF-PriorityLevel-UID") == level_uid) break;
      std::this_thread::sleep_for(100ms);
    } while (std::chrono::steady_clock::now() < give_up);
    return response;
  }

  static double metric(std::string_view series) {
    HttpResponse metrics = admin("GET", "/metrics");
    auto at = metrics.body.find(std::string(series) + " ");
    if (at == std::string::npos) return -1;
    return std::stod(metrics.body.substr(at + series.size() + 1));
  }

  // A level with one seat and a queue of one, and a FlowSchema sending user flood's /debug/kapi calls to it.
  static std::string create_tiny_level() {
    HttpResponse level = admin("POST", "/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations", R"({
      "apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "PriorityLevelConfiguration",
      "metadata": {"name": "tiny"},
      "spec": {"type": "Limited", "limited": {"nominalConcurrencyShares": 1, "lendablePercent": 0,
               "borrowingLimitPercent": 0,
               "limitResponse": {"type": "Queue", "queuing": {"queues": 1, "handSize": 1, "queueLengthLimit": 1}}}}})");
    EXPECT_EQ(level.status, 201) << level.body;
    HttpResponse schema = admin("POST", "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas", R"({
      "apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "FlowSchema",
      "metadata": {"name": "flood"},
      "spec": {"priorityLevelConfiguration": {"name": "tiny"}, "matchingPrecedence": 100,
               "distinguisherMethod": {"type": "ByUser"},
               "rules": [{"subjects": [{"kind": "User", "user": {"name": "flood"}}],
                          "nonResourceRules": [{"verbs": ["get"], "nonResourceURLs": ["/debug/kapi/*"]}]}]}})");
    EXPECT_EQ(schema.status, 201) << schema.body;
    return uid_of("prioritylevelconfigurations", "tiny");
  }
};

TEST_F(PriorityAndFairnessTest, ResponsesNameTheirFlowSchemaAndPriorityLevel) {
  const std::string exempt_level = uid_of("prioritylevelconfigurations", "exempt");
  HttpResponse masters = until_classified([] { return admin("GET", "/api/v1/namespaces"); }, exempt_level);
  EXPECT_EQ(masters.status, 200);
  EXPECT_EQ(masters.header("X-Kubernetes-PF-FlowSchema-UID"), uid_of("flowschemas", "exempt"));

  HttpResponse jane = as("jane", "/api/v1/namespaces/default/configmaps");
  EXPECT_EQ(jane.header("X-Kubernetes-PF-FlowSchema-UID"), uid_of("flowschemas", "global-default"));
  EXPECT_EQ(jane.header("X-Kubernetes-PF-PriorityLevel-UID"), uid_of("prioritylevelconfigurations", "global-default"));

  HttpResponse probe = kapi().connect_anonymous().request("GET", "/healthz");
  EXPECT_EQ(probe.status, 200);
  EXPECT_EQ(probe.header("X-Kubernetes-PF-FlowSchema-UID"), uid_of("flowschemas", "probes"));
  EXPECT_EQ(probe.header("X-Kubernetes-PF-PriorityLevel-UID"), exempt_level);

  EXPECT_EQ(metric("apiserver_flowcontrol_nominal_limit_seats{priority_level=\"workload-low\"}"), 9);
  EXPECT_GE(metric("apiserver_flowcontrol_dispatched_requests_total{flow_schema=\"global-default\","
                   "priority_level=\"global-default\"}"),
            1);
}

TEST_F(PriorityAndFairnessTest, AFullLevelQueuesThenRefusesWhileOthersPass) {
  const std::string tiny = create_tiny_level();
  HttpResponse classified = until_classified([] { return as("flood", "/debug/kapi/sleep?duration=0s"); }, tiny);
  ASSERT_EQ(classified.header("X-Kubernetes-PF-PriorityLevel-UID"), tiny);
  EXPECT_EQ(metric("apiserver_flowcontrol_nominal_limit_seats{priority_level=\"tiny\"}"), 1);

  const std::string hold = "GET /debug/kapi/sleep?duration=3s HTTP/1.1\r\nHost: kapi\r\nAuthorization: Bearer flood-token\r\n\r\n";
  const std::string quick = "GET /debug/kapi/sleep?duration=0s HTTP/1.1\r\nHost: kapi\r\nAuthorization: Bearer flood-token\r\n\r\n";
  HttpConnection running = kapi().connect_anonymous();
  running.send(hold);
  std::this_thread::sleep_for(300ms);
  HttpConnection queued = kapi().connect_anonymous();
  const auto queued_at = std::chrono::steady_clock::now();
  queued.send(quick);
  std::this_thread::sleep_for(300ms);

  HttpResponse refused = as("flood", "/debug/kapi/sleep?duration=0s");
  EXPECT_TRUE(is_status(refused, 429, "TooManyRequests"));
  EXPECT_EQ(status_message(refused), "Too many requests, please try again later.");
  EXPECT_EQ(refused.header("Retry-After"), "1");
  EXPECT_EQ(refused.header("X-Kubernetes-PF-PriorityLevel-UID"), tiny);
  EXPECT_EQ(refused.header("X-Kubernetes-PF-FlowSchema-UID"), uid_of("flowschemas", "flood"));

  // Other levels are not held up.
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(admin("GET", "/api/v1/namespaces").status, 200);
  EXPECT_EQ(as("jane", "/debug/kapi/sleep?duration=0s").status, 200);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);

  EXPECT_EQ(running.read_response().status, 200);
  HttpResponse served = queued.read_response();
  EXPECT_EQ(served.status, 200) << "the queued request is served once the seat is free";
  EXPECT_GE(std::chrono::steady_clock::now() - queued_at, 2s);
  EXPECT_EQ(metric("apiserver_flowcontrol_rejected_requests_total{flow_schema=\"flood\",priority_level=\"tiny\","
                   "reason=\"queue-full\"}"),
            1);
  EXPECT_EQ(metric("apiserver_flowcontrol_current_inqueue_requests{flow_schema=\"flood\",priority_level=\"tiny\"}"), 0);

  // A request may wait a quarter of its deadline: with ?timeout=2s, half a second.
  running.send(hold);
  std::this_thread::sleep_for(300ms);
  start = std::chrono::steady_clock::now();
  HttpResponse timed_out = as("flood", "/debug/kapi/sleep?duration=0s&timeout=2s");
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_TRUE(is_status(timed_out, 429, "TooManyRequests"));
  EXPECT_GE(waited, 400ms);
  EXPECT_LT(waited, 2s);
  EXPECT_EQ(running.read_response().status, 200);
  EXPECT_EQ(metric("apiserver_flowcontrol_rejected_requests_total{flow_schema=\"flood\",priority_level=\"tiny\","
                   "reason=\"time-out\"}"),
            1);
}

// kube's suggested configuration: service accounts' requests go to workload-low, the nodes' to system. With
// workload-low narrowed to one seat and one queue place (and marked so that the config producer leaves it), a
// service account that floods it gets 429s while a node's requests pass.
TEST_F(PriorityAndFairnessTest, OverloadedWorkloadLowRefusesWhileSystemPasses) {
  HttpResponse narrowed = kapi().connect_admin().request(
      "PATCH", "/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations/workload-low",
      {{"Content-Type", "application/merge-patch+json"}}, R"({
      "metadata": {"annotations": {"apf.kubernetes.io/autoupdate-spec": "false"}},
      "spec": {"limited": {"nominalConcurrencyShares": 1, "lendablePercent": 0, "borrowingLimitPercent": 0,
               "limitResponse": {"queuing": {"queues": 1, "handSize": 1, "queueLengthLimit": 1}}}}})");
  ASSERT_EQ(narrowed.status, 200) << narrowed.body;
  const std::string workload_low = uid_of("prioritylevelconfigurations", "workload-low");
  HttpResponse classified = until_classified([] { return as("builder", "/debug/kapi/sleep?duration=0s"); }, workload_low);
  ASSERT_EQ(classified.header("X-Kubernetes-PF-FlowSchema-UID"), uid_of("flowschemas", "service-accounts"));
  auto give_up = std::chrono::steady_clock::now() + 15s;
  while (metric("apiserver_flowcontrol_nominal_limit_seats{priority_level=\"workload-low\"}") != 1 &&
         std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(100ms);

  const std::string hold =
      "GET /debug/kapi/sleep?duration=3s HTTP/1.1\r\nHost: kapi\r\nAuthorization: Bearer builder-token\r\n\r\n";
  HttpConnection running = kapi().connect_anonymous();
  running.send(hold);
  std::this_thread::sleep_for(300ms);
  HttpConnection queued = kapi().connect_anonymous();
  queued.send(hold);
  std::this_thread::sleep_for(300ms);
  HttpResponse refused = as("builder", "/api/v1/namespaces/team/configmaps");
  EXPECT_TRUE(is_status(refused, 429, "TooManyRequests"));
  EXPECT_EQ(refused.header("X-Kubernetes-PF-PriorityLevel-UID"), workload_low);

  const auto start = std::chrono::steady_clock::now();
  HttpResponse node = as("node", "/api/v1/namespaces/team/configmaps");
  EXPECT_EQ(node.status, 200) << node.body;
  EXPECT_EQ(node.header("X-Kubernetes-PF-PriorityLevel-UID"), uid_of("prioritylevelconfigurations", "system"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
  EXPECT_EQ(running.read_response().status, 200);
  EXPECT_EQ(queued.read_response().status, 200);
}

TEST_F(PriorityAndFairnessTest, FlowSchemasWithoutTheirLevelAreDangling) {
  HttpResponse created = admin("POST", "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas", R"({
    "apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "FlowSchema", "metadata": {"name": "orphan"},
    "spec": {"priorityLevelConfiguration": {"name": "later"}, "matchingPrecedence": 5000}})");
  ASSERT_EQ(created.status, 201) << created.body;

  auto dangling = [](std::string_view want_status) -> boost::json::object {
    boost::json::object condition;
    auto give_up = std::chrono::steady_clock::now() + 15s;
    while (std::chrono::steady_clock::now() < give_up) {
      auto object = json_object(admin("GET", "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/orphan").body);
      if (auto* status = object.if_contains("status"); status && status->is_object())
        if (auto* conditions = status->as_object().if_contains("conditions"); conditions && conditions->is_array())
          for (const auto& c : conditions->as_array())
            if (c.as_object().at("type").as_string() == "Dangling") condition = c.as_object();
      if (!condition.empty() && condition.at("status").as_string() == want_status) break;
      std::this_thread::sleep_for(100ms);
    }
    return condition;
  };
  boost::json::object missing = dangling("True");
  ASSERT_FALSE(missing.empty());
  EXPECT_EQ(missing.at("status").as_string(), "True");
  EXPECT_EQ(missing.at("reason").as_string(), "NotFound");
  EXPECT_EQ(missing.at("message").as_string(),
            "This FlowSchema references the PriorityLevelConfiguration object named \"later\" but there is no such "
            "object");

  HttpResponse level = admin("POST", "/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations", R"({
    "apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "PriorityLevelConfiguration", "metadata": {"name": "later"},
    "spec": {"type": "Limited", "limited": {"limitResponse": {"type": "Reject"}}}})");
  ASSERT_EQ(level.status, 201) << level.body;
  boost::json::object found = dangling("False");
  EXPECT_EQ(found.at("status").as_string(), "False");
  EXPECT_EQ(found.at("reason").as_string(), "Found");
  EXPECT_EQ(found.at("message").as_string(),
            "This FlowSchema references the PriorityLevelConfiguration object named \"later\" and it exists");

  // The bootstrap schemas are all found.
  auto object = json_object(admin("GET", "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/exempt").body);
  EXPECT_EQ(boost::json::serialize(object["status"]).find("\"Found\"") != std::string::npos, true) << object;
}

}  // namespace
}  // namespace kapi::integration::priority_and_fairness_test
