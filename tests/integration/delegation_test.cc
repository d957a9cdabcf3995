// The delegation chain (aggregator → kube → extensions → NotFound) and the non-API endpoints every
// kube-apiserver serves: health checks, /version, /metrics.
#include "tests/integration/kapi_suite.h"

#include <sstream>

namespace kapi::integration::delegation_test {
namespace {

class DelegationTest : public KapiSuite<DelegationTest> {
 protected:
  HttpResponse get(std::string_view target) { return kapi().connect_admin().request("GET", target); }
};

TEST_F(DelegationTest, UnknownPathsFallThroughEveryServerTo404Status) {
  for (const char* path : {"/apis/does.not.exist/v1/things", "/nope", "/api/v1/nosuchresource"}) {
    HttpResponse response = get(path);
    EXPECT_TRUE(is_status(response, 404, "NotFound")) << path;
    EXPECT_EQ(status_message(response), "the server could not find the requested resource") << path;
  }
}

TEST_F(DelegationTest, HealthEndpointsAnswerOk) {
  for (const char* path : {"/healthz", "/livez", "/readyz", "/readyz/ping", "/healthz/ping", "/livez/ping"}) {
    HttpResponse response = get(path);
    EXPECT_EQ(response.status, 200) << path;
    EXPECT_EQ(response.body, "ok") << path;
  }
}

TEST_F(DelegationTest, VerboseReadyzListsEveryCheck) {
  HttpResponse response = get("/readyz?verbose");
  ASSERT_EQ(response.status, 200);
  EXPECT_NE(response.body.find("[+]ping ok\n"), std::string::npos) << response.body;
  EXPECT_NE(response.body.find("[+]shutdown ok\n"), std::string::npos) << response.body;
  EXPECT_NE(response.body.find("readyz check passed"), std::string::npos) << response.body;
}

TEST_F(DelegationTest, UnknownHealthCheckIs404) {
  EXPECT_EQ(get("/readyz/no-such-check").status, 404);
}

TEST_F(DelegationTest, VersionLooksLikeKubernetes132) {
  HttpResponse response = get("/version");
  ASSERT_EQ(response.status, 200);
  EXPECT_NE(response.header("Content-Type").value_or("").find("application/json"), std::string::npos);
  auto version = json_object(response.body);
  EXPECT_EQ(version["major"], "1");
  EXPECT_EQ(version["minor"], "32");
  ASSERT_TRUE(version["gitVersion"].is_string());
  EXPECT_TRUE(std::string(version["gitVersion"].as_string()).starts_with("v1.32.")) << response.body;
  EXPECT_TRUE(version.contains("platform"));
}

TEST_F(DelegationTest, MetricsCountEarlierRequests) {
  ASSERT_EQ(get("/version").status, 200);
  HttpResponse response = get("/metrics");
  ASSERT_EQ(response.status, 200);
  EXPECT_NE(response.header("Content-Type").value_or("").find("text/plain"), std::string::npos);
  std::istringstream lines(response.body);
  bool counted = false;
  for (std::string line; std::getline(lines, line);)
    counted = counted || (line.starts_with("apiserver_request_total{") && line.find("code=\"200\"") != std::string::npos &&
                          line.find("verb=\"GET\"") != std::string::npos);
  EXPECT_TRUE(counted) << response.body.substr(0, 4000);
  EXPECT_NE(response.body.find("apiserver_current_inflight_requests{"), std::string::npos);
  EXPECT_NE(response.body.find("apiserver_request_duration_seconds_bucket{"), std::string::npos);
}

// A watch hands its stream off once begun (the stages that admitted it are gone while it streams); it is still
// counted, as kube counts it, when it ends, with its status.
TEST_F(DelegationTest, MetricsCountAWatchWhenItEnds) {
  HttpResponse watch = get("/api/v1/namespaces/kube-system/configmaps?watch=1&timeoutSeconds=1");
  ASSERT_EQ(watch.status, 200);
  HttpResponse response = get("/metrics");
  ASSERT_EQ(response.status, 200);
  std::istringstream lines(response.body);
  bool counted = false;
  for (std::string line; std::getline(lines, line);)
    counted = counted || (line.starts_with("apiserver_request_total{") && line.find("code=\"200\"") != std::string::npos &&
                          line.find("resource=\"configmaps\"") != std::string::npos &&
                          line.find("verb=\"WATCH\"") != std::string::npos);
  EXPECT_TRUE(counted) << response.body.substr(0, 4000);
}

}  // namespace
}  // namespace kapi::integration::delegation_test
