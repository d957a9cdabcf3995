// Audit end to end: kapi started with --audit-policy-file and --audit-log-path, requests over HTTPS, and the
// events read back from the log: one RequestReceived and one ResponseComplete per audited request at the policy's
// level, ResponseStarted for a watch, the failed authentication's event, both users of an impersonated request,
// the authorization decision, and no secret data at the Metadata level.
#include "tests/integration/kapi_suite.h"
#include "tests/support/temp_dir.h"

#include <fstream>
#include <sstream>
#include <thread>

namespace kapi::integration::audit_test {
namespace {

using namespace std::chrono_literals;
namespace json = boost::json;
using Headers = std::vector<std::pair<std::string, std::string>>;

constexpr std::string_view kPolicy = R"(apiVersion: audit.k8s.io/v1
kind: Policy
rules:
  - level: None
    nonResourceURLs: ["/healthz*", "/readyz*", "/livez*"]
  - level: Metadata
    resources: [{group: "", resources: ["secrets"]}]
  - level: RequestResponse
    resources: [{group: "", resources: ["configmaps"]}]
  - level: Request
    resources: [{group: "", resources: ["pods"]}]
  - level: Metadata
)";

class AuditTest : public KapiSuite<AuditTest> {
 public:
  static const test_support::TempDir& dir() {
    static const test_support::TempDir dir{"kapi-audit-suite"};
    return dir;
  }
  static std::filesystem::path log_path() { return dir().path() / "logs" / "audit.log"; }

  static KapiOptions kapi_options() {
    std::ofstream(dir().path() / "policy.yaml") << kPolicy;
    std::ofstream(dir().path() / "tokens.csv") << "jane-token,jane,1001\n";
    KapiOptions options;
    options.extra_flags = {"--audit-policy-file=" + (dir().path() / "policy.yaml").string(),
                           "--audit-log-path=" + log_path().string(),
                           "--token-auth-file=" + (dir().path() / "tokens.csv").string(),
                           "--authorization-mode=RBAC"};
    return options;
  }

 protected:
  static HttpResponse admin(std::string_view method, std::string_view target, const std::string& audit_id,
                            Headers headers = {}, std::string_view body = {}) {
    headers.emplace_back("Audit-ID", audit_id);
    if (!body.empty()) headers.emplace_back("Content-Type", "application/json");
    return kapi().connect_admin().request(method, target, headers, body);
  }

  // The events of one request, in the order written; waits (bounded) until `count` are there.
  static std::vector<json::object> events(const std::string& audit_id, std::size_t count) {
    std::vector<json::object> found;
    for (auto deadline = std::chrono::steady_clock::now() + 10s; std::chrono::steady_clock::now() < deadline;
         std::this_thread::sleep_for(20ms)) {
      found.clear();
      std::ifstream in(log_path());
      for (std::string line; std::getline(in, line);) {
        if (line.find("\"auditID\":\"" + audit_id + "\"") == std::string::npos) continue;
        boost::system::error_code error;
        json::value event = json::parse(line, error);
        if (error) break;  // the writer is in the middle of this line: read again
        found.push_back(std::move(event.as_object()));
      }
      if (found.size() >= count) break;
    }
    return found;
  }
  static std::string log_text() {
    std::ifstream in(log_path());
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  static std::string text(const json::object& object, std::string_view path) {
    const json::value* value = &object.at(path.substr(0, path.find('.')));
    if (auto dot = path.find('.'); dot != std::string_view::npos) return text(value->as_object(), path.substr(dot + 1));
    return value->is_string() ? std::string(value->as_string()) : json::serialize(*value);
  }
};

TEST_F(AuditTest, ConfigMapsAtRequestResponse) {
  HttpResponse created = admin("POST", "/api/v1/namespaces/default/configmaps", "audit-cm-create", {},
                               R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"audited"},"data":{"k":"v"}})");
  ASSERT_EQ(created.status, 201) << created.body;
  auto found = events("audit-cm-create", 2);
  ASSERT_EQ(found.size(), 2u) << log_text();
  const json::object& received = found[0];
  const json::object& complete = found[1];
  EXPECT_EQ(text(received, "stage"), "RequestReceived");
  EXPECT_EQ(text(complete, "stage"), "ResponseComplete");
  for (const auto* event : {&received, &complete}) {
    EXPECT_EQ(text(*event, "kind"), "Event");
    EXPECT_EQ(text(*event, "apiVersion"), "audit.k8s.io/v1");
    EXPECT_EQ(text(*event, "level"), "RequestResponse");
    EXPECT_EQ(text(*event, "verb"), "create");
    EXPECT_EQ(text(*event, "requestURI"), "/api/v1/namespaces/default/configmaps");
    EXPECT_EQ(text(*event, "user.username"), "kapi-admin");
    EXPECT_EQ(text(*event, "sourceIPs"), R"(["127.0.0.1"])");
    EXPECT_EQ(text(*event, "objectRef.resource"), "configmaps");
    EXPECT_EQ(text(*event, "objectRef.namespace"), "default");
    EXPECT_EQ(text(*event, "objectRef.apiVersion"), "v1");
  }
  EXPECT_FALSE(received.contains("annotations"));  // authorization has not run yet
  EXPECT_FALSE(received.contains("requestObject"));
  EXPECT_FALSE(received.contains("responseStatus"));
  EXPECT_EQ(text(received, "requestReceivedTimestamp"), text(received, "stageTimestamp"));
  EXPECT_EQ(text(complete, "objectRef.name"), "audited");  // from the request's object
  EXPECT_EQ(text(complete, "responseStatus"), R"({"metadata":{},"code":201})");
  EXPECT_EQ(complete.at("annotations").as_object().at("authorization.k8s.io/decision"), "allow");
  EXPECT_EQ(text(complete, "requestObject.data.k"), "v");
  EXPECT_EQ(text(complete, "responseObject.metadata.name"), "audited");
  // metav1.MicroTime: 2006-01-02T15:04:05.000000Z
  EXPECT_EQ(text(complete, "stageTimestamp").size(), 27u);
  EXPECT_EQ(text(complete, "stageTimestamp").back(), 'Z');

  HttpResponse missing = admin("GET", "/api/v1/namespaces/default/configmaps/absent", "audit-cm-missing");
  ASSERT_EQ(missing.status, 404);
  auto not_found = events("audit-cm-missing", 2);
  ASSERT_EQ(not_found.size(), 2u);
  EXPECT_EQ(text(not_found[1], "verb"), "get");
  EXPECT_EQ(text(not_found[1], "responseStatus.code"), "404");
  EXPECT_EQ(text(not_found[1], "responseStatus.status"), "Failure");
  EXPECT_EQ(text(not_found[1], "responseStatus.reason"), "NotFound");
  EXPECT_EQ(text(not_found[1], "responseStatus.message"), R"(configmaps "absent" not found)");
}

TEST_F(AuditTest, SecretsAtMetadataNeverShowTheirData) {
  HttpResponse created = admin("POST", "/api/v1/namespaces/default/secrets", "audit-secret-create", {},
                               R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"data":{"password":"aHVudGVyMg=="}})");
  ASSERT_EQ(created.status, 201) << created.body;
  HttpResponse read = admin("GET", "/api/v1/namespaces/default/secrets/s", "audit-secret-get");
  ASSERT_EQ(read.status, 200);
  auto found = events("audit-secret-get", 2);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(text(found[1], "level"), "Metadata");
  EXPECT_EQ(text(found[1], "objectRef.name"), "s");
  EXPECT_FALSE(found[1].contains("responseObject"));
  ASSERT_EQ(events("audit-secret-create", 2).size(), 2u);
  EXPECT_EQ(log_text().find("aHVudGVyMg=="), std::string::npos);
}

TEST_F(AuditTest, NoneLevelIsNotLogged) {
  ASSERT_EQ(admin("GET", "/healthz", "audit-healthz").status, 200);
  ASSERT_EQ(admin("GET", "/version", "audit-version").status, 200);
  auto version = events("audit-version", 2);  // written after the health check's would have been
  ASSERT_EQ(version.size(), 2u);
  EXPECT_EQ(text(version[1], "verb"), "get");
  EXPECT_FALSE(version[1].contains("objectRef"));
  EXPECT_EQ(events("audit-healthz", 0).size(), 0u);
}

TEST_F(AuditTest, WatchHasResponseStarted) {
  HttpResponse watch = admin("GET", "/api/v1/namespaces/default/pods?watch=1&timeoutSeconds=1", "audit-watch");
  EXPECT_EQ(watch.status, 200);
  auto found = events("audit-watch", 3);
  ASSERT_EQ(found.size(), 3u) << log_text();
  EXPECT_EQ(text(found[0], "stage"), "RequestReceived");
  EXPECT_EQ(text(found[1], "stage"), "ResponseStarted");
  EXPECT_EQ(text(found[2], "stage"), "ResponseComplete");
  EXPECT_EQ(text(found[1], "verb"), "watch");
  EXPECT_EQ(text(found[1], "level"), "Request");
  EXPECT_EQ(text(found[1], "responseStatus.code"), "200");
}

TEST_F(AuditTest, FailedAuthenticationIsAudited) {
  HttpResponse refused = kapi().connect_anonymous().request(
      "GET", "/api/v1/namespaces/default/pods", {{"Authorization", "Bearer wrong"}, {"Audit-ID", "audit-401"}});
  ASSERT_EQ(refused.status, 401);
  auto found = events("audit-401", 1);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(text(found[0], "stage"), "ResponseStarted");  // kube's WithFailedAuthenticationAudit
  EXPECT_EQ(text(found[0], "level"), "Request");
  EXPECT_EQ(text(found[0], "user"), "{}");
  EXPECT_EQ(text(found[0], "verb"), "list");
  EXPECT_EQ(text(found[0], "responseStatus.code"), "401");
}

TEST_F(AuditTest, ForbiddenDecisionIsAnnotated) {
  HttpResponse denied = kapi().connect_anonymous().request(
      "GET", "/api/v1/namespaces/default/secrets", {{"Authorization", "Bearer jane-token"}, {"Audit-ID", "audit-403"}});
  ASSERT_EQ(denied.status, 403);
  auto found = events("audit-403", 2);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(text(found[1], "user.username"), "jane");
  EXPECT_EQ(text(found[1], "responseStatus.code"), "403");
  EXPECT_EQ(text(found[1], "responseStatus.reason"), "Forbidden");
  EXPECT_EQ(found[1].at("annotations").as_object().at("authorization.k8s.io/decision"), "forbid");
}

TEST_F(AuditTest, ImpersonationRecordsBothUsers) {
  HttpResponse listed = admin("GET", "/api/v1/namespaces/default/configmaps", "audit-impersonated",
                              {{"Impersonate-User", "bob"}, {"Impersonate-Group", "system:masters"}});
  ASSERT_EQ(listed.status, 200) << listed.body;
  auto found = events("audit-impersonated", 2);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(text(found[0], "user.username"), "kapi-admin");
  EXPECT_FALSE(found[0].contains("impersonatedUser"));
  EXPECT_EQ(text(found[1], "user.username"), "kapi-admin");
  EXPECT_EQ(text(found[1], "impersonatedUser.username"), "bob");
  EXPECT_EQ(text(found[1], "impersonatedUser.groups"), R"(["system:masters","system:authenticated"])");
}

TEST_F(AuditTest, MetricsCountEventsAndLevels) {
  HttpResponse metrics = admin("GET", "/metrics", "audit-metrics");
  ASSERT_EQ(metrics.status, 200);
  EXPECT_NE(metrics.body.find("apiserver_audit_event_total "), std::string::npos);
  EXPECT_NE(metrics.body.find("apiserver_audit_level_total{level=\"Metadata\"}"), std::string::npos);
  EXPECT_NE(metrics.body.find("apiserver_audit_level_total{level=\"None\"}"), std::string::npos);
}

}  // namespace
}  // namespace kapi::integration::audit_test
