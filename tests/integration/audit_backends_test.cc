// The audit backends' modes and options end to end: a blocking webhook has the event before the request goes on,
// with truncation of large events; the legacy log format; a blocking-strict webhook that cannot store events
// fails the requests it audits (500, apiserver_audit_requests_rejected_total); a batching webhook's queue is
// sent when kapi shuts down; and kube's refusals of bad options.
#include "tests/integration/auth_webhook_support.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace kapi::integration::audit_backends_test {
namespace {

namespace json = boost::json;

// Configmaps at RequestResponse, nothing else: the server's own traffic and the tests' readiness checks stay out.
std::string configmaps_policy() {
  static test_support::TempDir dir("kapi-audit-backends-policy");
  const auto path = dir.path() / "policy.yaml";
  std::ofstream(path) << "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n"
                         "- level: RequestResponse\n  resources: [{group: \"\", resources: [\"configmaps\"]}]\n"
                         "- level: None\n";
  return path.string();
}

// The events the collector received on `path` for `uri`.
std::vector<json::object> collected(std::string_view path, std::string_view uri) {
  std::vector<json::object> events;
  for (const auto& request : shared_sample_webhook().requests_for(path))
    for (const json::value& item : request.at("review").at("items").as_array())
      if (item.at("requestURI").as_string() == uri) events.push_back(item.as_object());
  return events;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class BlockingAuditTest : public KapiSuite<BlockingAuditTest> {
 public:
  static const test_support::TempDir& logs() {
    static const test_support::TempDir dir("kapi-audit-legacy-log");
    return dir;
  }
  static KapiOptions kapi_options() {
    KapiOptions options;
    options.extra_flags = {"--audit-policy-file=" + configmaps_policy(),
                           "--audit-log-path=" + (logs().path() / "audit.log").string(),
                           "--audit-log-format=legacy",
                           "--audit-webhook-config-file=" + webhook_config_for("audit-blocking", "/audit"),
                           "--audit-webhook-mode=blocking",
                           "--audit-webhook-truncate-enabled",
                           "--audit-webhook-truncate-max-event-size=4096"};
    return options;
  }
};

TEST_F(BlockingAuditTest, TheCollectorHasTheEventBeforeTheResponse) {
  const std::string uri = "/api/v1/namespaces/default/configmaps?labelSelector=audit-blocking-test";
  ASSERT_EQ(kapi().connect_admin().request("GET", uri).status, 200);
  // No waiting: the webhook had answered before the request went on.
  const std::vector<json::object> events = collected("/audit", uri);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.front().at("stage"), "RequestReceived");
}

TEST_F(BlockingAuditTest, ALargeEventLosesItsObjectsAndSaysSo) {
  const std::string body = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"audit-large"},"data":{"big":")" +
                           std::string(8000, 'x') + R"("}})";
  const std::string uri = "/api/v1/namespaces/default/configmaps";
  ASSERT_EQ(kapi().connect_admin().request("POST", uri, {{"Content-Type", "application/json"}}, body).status, 201);
  ASSERT_TRUE(eventually([&] { return collected("/audit", uri).size() >= 2; }));
  std::size_t truncated = 0;
  for (const json::object& event : collected("/audit", uri)) {
    // The completed event knows the name (RequestReceived comes before the body is read, and is small).
    const json::value* name = event.at("objectRef").as_object().if_contains("name");
    if (!name || *name != "audit-large") continue;
    ++truncated;
    EXPECT_FALSE(event.contains("requestObject")) << json::serialize(event);
    EXPECT_FALSE(event.contains("responseObject")) << json::serialize(event);
    EXPECT_EQ(event.at("annotations").at("audit.k8s.io/truncated"), "true");
  }
  EXPECT_EQ(truncated, 1u);
  // The log is not truncated: the option is the webhook's.
  EXPECT_NE(read_file(logs().path() / "audit.log").find("uri=\"/api/v1/namespaces/default/configmaps\""),
            std::string::npos);
}

TEST_F(BlockingAuditTest, TheLegacyLogIsOneLineOfTextPerEvent) {
  const std::string uri = "/api/v1/namespaces/default/configmaps?labelSelector=audit-legacy-test";
  ASSERT_EQ(kapi().connect_admin().request("GET", uri).status, 200);
  std::vector<std::string> lines;
  ASSERT_TRUE(eventually([&] {
    lines.clear();
    std::istringstream log(read_file(logs().path() / "audit.log"));
    for (std::string line; std::getline(log, line);)
      if (line.find("uri=\"" + uri + "\"") != std::string::npos) lines.push_back(line);
    return lines.size() >= 2;
  }));
  EXPECT_NE(lines[0].find(" AUDIT: id=\""), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("stage=\"RequestReceived\""), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("method=\"list\" user=\"kapi-admin\""), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("namespace=\"default\""), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("response=\"<deferred>\""), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("stage=\"ResponseComplete\""), std::string::npos) << lines[1];
  EXPECT_NE(lines[1].find("response=\"200\""), std::string::npos) << lines[1];
}

class StrictAuditTest : public KapiSuite<StrictAuditTest> {
 public:
  static KapiOptions kapi_options() {
    KapiOptions options;
    options.extra_flags = {"--audit-policy-file=" + configmaps_policy(),
                           "--audit-webhook-config-file=" + webhook_config_for("audit-strict", "/audit-fail"),
                           "--audit-webhook-mode=blocking-strict", "--audit-webhook-initial-backoff=10ms"};
    return options;
  }
};

TEST_F(StrictAuditTest, ARequestWhoseEventCannotBeStoredFails) {
  const std::string uri = "/api/v1/namespaces/default/configmaps?labelSelector=audit-strict-test";
  const HttpResponse refused = kapi().connect_admin().request("GET", uri);
  EXPECT_EQ(refused.status, 500);
  EXPECT_EQ(refused.body, "Internal Server Error: \"" + uri + "\": failed to store audit event\n");
  EXPECT_FALSE(collected("/audit-fail", uri).empty());  // it was tried
  // What the policy does not audit is served.
  EXPECT_EQ(kapi().connect_admin().request("GET", "/api/v1/namespaces/default/secrets").status, 200);
  const std::string metrics = kapi().connect_admin().request("GET", "/metrics").body;
  EXPECT_NE(metrics.find("apiserver_audit_requests_rejected_total 1"), std::string::npos);
  EXPECT_NE(metrics.find("apiserver_audit_error_total{plugin=\"webhook\"} 1"), std::string::npos);
}

// Batches wait an hour; stopping kapi sends them.
TEST(AuditShutdownTest, QueuedEventsAreSentWhenKapiStops) {
  KapiOptions options;
  options.extra_flags = {"--audit-policy-file=" + configmaps_policy(),
                         "--audit-webhook-config-file=" + webhook_config_for("audit-shutdown", "/audit"),
                         "--audit-webhook-batch-max-wait=1h"};
  KapiProcess kapi(options);
  const std::string uri = "/api/v1/namespaces/default/configmaps?labelSelector=audit-shutdown-test";
  ASSERT_EQ(kapi.connect_admin().request("GET", uri).status, 200);
  EXPECT_TRUE(collected("/audit", uri).empty());
  EXPECT_EQ(kapi.shut_down(std::chrono::seconds(20)), 0) << kapi.logs();
  std::vector<std::string> stages;
  for (const json::object& event : collected("/audit", uri)) stages.emplace_back(event.at("stage").as_string());
  EXPECT_EQ(stages, (std::vector<std::string>{"RequestReceived", "ResponseComplete"}));
}

TEST(AuditOptionsStartupTest, KubesRefusalsOfTheLogFlags) {
  test_support::TempDir dir("kapi-audit-options-startup");
  const CommandResult result = test_support::run_command(
      "timeout 60 " + std::string(std::getenv("KAPI_BINARY")) + " --data-dir=" + (dir.path() / "data").string() +
      " --secure-port=" + std::to_string(test_support::pick_free_port()) + " --audit-policy-file=" +
      configmaps_policy() + " --audit-log-path=" + (dir.path() / "audit.log").string() +
      " --audit-log-format=xml --audit-log-mode=batch --audit-log-batch-throttle-enable --audit-log-batch-throttle-qps=0");
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("[invalid audit batch log throttle QPS 0, must be a positive number, invalid audit log "
                               "format xml, allowed formats are \"legacy,json\"]"),
            std::string::npos)
      << result.output;
}

}  // namespace
}  // namespace kapi::integration::audit_backends_test
