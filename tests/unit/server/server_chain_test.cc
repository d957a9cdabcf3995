// The delegation chain: aggregator → Kube API server → API extensions server → NotFound.
#include "server/chain/server_chain.h"

#include "tests/unit/support/recording_writer.h"

#include <gtest/gtest.h>

#include <regex>

namespace kapi::server::chain::server_chain_test {
namespace {

using test_support::make_request;
using test_support::RecordingWriter;
using test_support::run_sync;

struct Served {
  int status;
  std::string body;
};

request::Handler answer(std::string who) {
  return [who](request::Exchange& exchange) -> asio::awaitable<void> {
    co_await exchange.response->write(200, who);
  };
}

Served get(request::Handler& handler, std::string target) {
  auto request = make_request("GET", std::move(target));
  RecordingWriter writer;
  request::Exchange exchange{request, &writer, {}};
  run_sync(handler(exchange));
  return {writer.status(), writer.body()};
}

struct ChainFixture : ::testing::Test {
  metrics::Registry metrics;
  Lifecycle lifecycle;
  ServerChain servers{{metrics, lifecycle, VersionInfo{}, false}};
};

TEST_F(ChainFixture, EachServerServesItsOwnRoutesAndDelegatesTheRest) {
  servers.aggregator().generic().director.routes().add("/apis/metrics.k8s.io/v1beta1", answer("aggregator"));
  servers.kube().generic().director.routes().add("/apis/apps/v1", answer("kube"));
  servers.extensions().generic().director.routes().add("/apis/example.com/v1", answer("extensions"));
  // A route the kube server also claims must never reach the extensions server.
  servers.extensions().generic().director.routes().add("/apis/apps/v1", answer("extensions-shadowed"));
  auto handler = servers.handler();

  EXPECT_EQ(get(handler, "/apis/metrics.k8s.io/v1beta1/nodes").body, "aggregator");
  EXPECT_EQ(get(handler, "/apis/apps/v1/namespaces/d/deployments").body, "kube");
  EXPECT_EQ(get(handler, "/apis/apps/v1").body, "kube");
  EXPECT_EQ(get(handler, "/apis/example.com/v1/widgets").body, "extensions");
  EXPECT_EQ(get(handler, "/apis/apps/v1beta").status, 404);  // a root matches whole path segments only
}

TEST_F(ChainFixture, WhatNoServerServesIsANotFoundStatus) {
  auto handler = servers.handler();
  auto served = get(handler, "/apis/does.not.exist/v1/things");
  EXPECT_EQ(served.status, 404);
  EXPECT_EQ(served.body,
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404})");
}

TEST_F(ChainFixture, NonApiEndpointsGatherEveryServersHealthChecks) {
  bool storage_ready = false;
  servers.kube().generic().readiness_checks.push_back(
      {"storage", [&]() -> std::optional<std::string> { return storage_ready ? std::nullopt : std::optional<std::string>("not synced"); }});
  servers.extensions().generic().health_checks.push_back({"crd-informer-synced", [] { return std::optional<std::string>(); }});
  auto handler = servers.handler();

  EXPECT_EQ(get(handler, "/healthz").body, "ok");
  auto not_ready = get(handler, "/readyz");
  EXPECT_EQ(not_ready.status, 500);
  EXPECT_EQ(not_ready.body, "[+]ping ok\n[+]crd-informer-synced ok\n[-]storage failed: reason withheld\n[+]shutdown ok\nreadyz check failed\n");
  EXPECT_EQ(get(handler, "/readyz/storage").status, 500);
  EXPECT_EQ(get(handler, "/readyz?exclude=storage").body, "ok");
  storage_ready = true;
  EXPECT_EQ(get(handler, "/readyz?verbose").body,
            "[+]ping ok\n[+]crd-informer-synced ok\n[+]storage ok\n[+]shutdown ok\nreadyz check passed\n");
  EXPECT_EQ(get(handler, "/livez/ping").body, "ok");
  EXPECT_EQ(get(handler, "/livez/nope").status, 404);

  lifecycle.initiate_shutdown();
  EXPECT_EQ(get(handler, "/readyz").status, 500);
  EXPECT_EQ(get(handler, "/livez").status, 200);
}

TEST(BuildDate, IsRfc3339AsKubePrintsIt) {
  EXPECT_EQ(rfc3339_build_date("Dec 10 2024", "11:33:43"), "2024-12-10T11:33:43Z");
  EXPECT_EQ(rfc3339_build_date("Jan  1 2026", "00:00:05"), "2026-01-01T00:00:05Z");
}

TEST_F(ChainFixture, ServesVersionAndMetrics) {
  auto handler = servers.handler();
  auto version = get(handler, "/version");
  EXPECT_NE(version.body.find("\"major\":\"1\""), std::string::npos);
  EXPECT_NE(version.body.find("\"minor\":\"32\""), std::string::npos);
  EXPECT_NE(version.body.find("\"gitVersion\":\"v1.32."), std::string::npos);
  EXPECT_TRUE(std::regex_search(version.body, std::regex(R"("buildDate":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")")))
      << version.body;
  auto with_slash = get(handler, "/version/");  // as the Python client's VersionApi().get_code() asks
  EXPECT_EQ(with_slash.status, 200);
  EXPECT_EQ(with_slash.body, version.body);
  metrics.request_total.inc({"200", "apiserver", "", "", "pods", "namespace", "", "LIST", "v1"});
  auto exposition = get(handler, "/metrics").body;
  EXPECT_NE(exposition.find("apiserver_request_total{code=\"200\",component=\"apiserver\",dry_run=\"\",group=\"\","
                            "resource=\"pods\",scope=\"namespace\",subresource=\"\",verb=\"LIST\",version=\"v1\"} 1"),
            std::string::npos);
  EXPECT_NE(exposition.find("apiserver_current_inflight_requests{request_kind=\"mutating\"} 0"), std::string::npos);
}

}  // namespace
}  // namespace kapi::server::chain::server_chain_test
