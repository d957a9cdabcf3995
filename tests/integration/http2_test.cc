// The secure port over HTTP/2 (--disable-http2-serving=false), as kube-apiserver serves client-go: ALPN picks h2
// when the client offers it, every request runs the same filters and handlers as over HTTP/1.1, streams of one
// connection are served at once (a watch holds no other request back), and clients that speak only HTTP/1.1 keep
// it. HTTP/2 is served unless --disable-http2-serving, as by kube-apiserver.
#include "tests/integration/kapi_suite.h"
#include "tests/integration/kubectl_runner.h"

#include "tests/support/command.h"
#include "tests/support/h2_client.h"

#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

namespace kapi::integration::http2_test {
namespace {

using namespace std::chrono_literals;
using test_support::run_command;

// curl with the admin certificate; `arguments` end with the URLs (paths on kapi's secure port, each followed by
// its own options as curl reads them).
std::string curl(const KapiProcess& kapi, const std::string& arguments) {
  return run_command("timeout 30 curl -sS --cacert '" + kapi.ca_cert().string() + "' --cert '" +
                     kapi.admin_cert().string() + "' --key '" + kapi.admin_key().string() + "' " + arguments)
      .output;
}

std::string url(const KapiProcess& kapi, const std::string& path) {
  return "'https://127.0.0.1:" + std::to_string(kapi.port()) + path + "'";
}

TEST(Http2Test, CurlGetsOverHttp2WhatHttp11Gets) {
  KapiProcess kapi;
  const std::string got = curl(kapi, "--http2 -i " + url(kapi, "/api/v1/namespaces/default"));
  EXPECT_TRUE(got.starts_with("HTTP/2 200")) << got;
  EXPECT_NE(got.find("content-type: application/json"), std::string::npos) << got;
  EXPECT_NE(got.find("audit-id: "), std::string::npos) << got;
  EXPECT_NE(got.find(R"("name":"default")"), std::string::npos) << got;

  const std::string created =
      curl(kapi, "--http2 -i -X POST -H 'Content-Type: application/json' --data "
                 R"('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"over-h2"},"data":{"a":"b"}}' )" +
                     url(kapi, "/api/v1/namespaces/default/configmaps"));
  EXPECT_TRUE(created.starts_with("HTTP/2 201")) << created;
  const std::string missing = curl(kapi, "--http2 -i " + url(kapi, "/api/v1/namespaces/default/configmaps/nope"));
  EXPECT_TRUE(missing.starts_with("HTTP/2 404")) << missing;
  EXPECT_NE(missing.find(R"("reason":"NotFound")"), std::string::npos) << missing;
  const std::string head = curl(kapi, "--http2 -I " + url(kapi, "/api/v1/namespaces/default/configmaps/over-h2"));
  EXPECT_TRUE(head.starts_with("HTTP/2 200")) << head;

  // A client that asks for HTTP/1.1 gets it.
  const std::string http11 = curl(kapi, "--http1.1 -i " + url(kapi, "/api/v1/namespaces/default"));
  EXPECT_TRUE(http11.starts_with("HTTP/1.1 200")) << http11;
}

TEST(Http2Test, AWatchStreamDoesNotHoldBackTheOtherStreamsOfItsConnection) {
  KapiProcess kapi;
  // One connection, three streams at once: a watch that lasts 3 s and two GETs, which finish first.
  const std::string out = curl(
      kapi, "--http2 --no-progress-meter --parallel --parallel-immediate --parallel-max 3 "
            "-w '%{http_version} %{response_code} %{time_total}\\n' -o /dev/null " +
                url(kapi, "/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=3") + " -o /dev/null " +
                url(kapi, "/api/v1/namespaces") + " -o /dev/null " + url(kapi, "/api/v1/namespaces/kube-system"));
  std::istringstream lines(out);
  std::vector<std::pair<std::string, double>> transfers;  // "2 200", seconds
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string version, code;
    double seconds = 0;
    if (words >> version >> code >> seconds) transfers.emplace_back(version + " " + code, seconds);
  }
  ASSERT_EQ(transfers.size(), 3u) << out;
  for (const auto& [status, seconds] : transfers) EXPECT_EQ(status, "2 200") << out;
  // curl reports transfers as they end: the GETs, then the watch.
  EXPECT_LT(transfers[0].second, 2.0) << out;
  EXPECT_LT(transfers[1].second, 2.0) << out;
  EXPECT_GE(transfers[2].second, 2.5) << out;
}

TEST(Http2Test, KubectlTalksHttp2) {
  KapiProcess kapi;
  // Go's HTTP/2 transport says what it does when GODEBUG asks it to.
  const CommandResult listed = run_kubectl(kapi, "get namespaces", 60, "GODEBUG=http2debug=1");
  EXPECT_EQ(listed.exit_code, 0) << listed.output;
  EXPECT_NE(listed.output.find("http2: Transport"), std::string::npos) << listed.output;
  EXPECT_NE(listed.output.find("kube-system"), std::string::npos) << listed.output;
  const std::string manifest = write_manifest(
      kapi, "cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied-over-h2\ndata:\n  a: b\n");
  const CommandResult applied = run_kubectl(kapi, "apply --server-side -f " + manifest);
  EXPECT_EQ(applied.exit_code, 0) << applied.output;
  const CommandResult got = run_kubectl(kapi, "get configmap applied-over-h2 -o jsonpath={.data.a}");
  EXPECT_EQ(got.output, "b");
}

// --goaway-chance: a request drawn at random is answered whole, its connection gets a graceful GOAWAY (NO_ERROR)
// and closes once its streams are done, so the client reconnects, perhaps to another server.
TEST(Http2Test, GoawayChanceEndsConnectionsGracefully) {
  namespace h2 = test_support::h2;
  KapiProcess kapi(KapiOptions{.extra_flags = {"--goaway-chance=0.02"}});
  h2::Client client(kapi.port(), kapi.admin_tls());
  int answered = 0;
  bool goaway = false;
  for (int i = 0; i < 2000 && !goaway; ++i) {
    const std::uint32_t stream = client.get("/api/v1/namespaces/default");
    for (bool ended = false; !ended;) {
      h2::Frame frame = client.read();
      if (frame.type == h2::FrameType::GoAway) {
        goaway = true;
        EXPECT_EQ(frame.error_code(), h2::kNoError);
      }
      ended = frame.stream == stream && (frame.flags & h2::flags::kEndStream);
      if (ended && frame.type == h2::FrameType::Data) ++answered;
    }
  }
  ASSERT_TRUE(goaway) << "no GOAWAY in 2000 requests at a chance of 1/50";
  EXPECT_GE(answered, 1);
  EXPECT_THROW(client.read(5s), test_support::ConnectionClosed);
}

// Shutdown over HTTP/2, as Go's server does it: GOAWAY (NO_ERROR) on every connection, the open streams finish (a
// watch ends cleanly, END_STREAM after its last event), then the connection closes and kapi exits 0.
TEST(Http2Test, ShutdownSendsGoawayAndEndsWatchesCleanly) {
  namespace h2 = test_support::h2;
  KapiProcess kapi;
  h2::Client client(kapi.port(), kapi.admin_tls());
  const std::uint32_t watch = client.get("/api/v1/namespaces/default/configmaps?watch=true");
  while (client.read().type != h2::FrameType::Headers) {
  }
  kapi.terminate();
  bool goaway = false;
  bool watch_ended = false;
  try {
    for (;;) {
      h2::Frame frame = client.read(20s);
      if (frame.type == h2::FrameType::GoAway) {
        goaway = true;
        EXPECT_EQ(frame.error_code(), h2::kNoError);
      }
      if (frame.stream == watch && frame.type == h2::FrameType::RstStream) ADD_FAILURE() << "the watch was reset";
      watch_ended = watch_ended || (frame.stream == watch && (frame.flags & h2::flags::kEndStream));
    }
  } catch (const test_support::ConnectionClosed&) {
  }
  EXPECT_TRUE(goaway);
  EXPECT_TRUE(watch_ended);
  EXPECT_EQ(kapi.wait_for_exit(std::chrono::seconds(20)), 0);
}

TEST(Http2Test, DisableHttp2ServingLeavesHttp11) {
  KapiProcess kapi(KapiOptions{.extra_flags = {"--disable-http2-serving"}});
  const std::string got = curl(kapi, "--http2 -i " + url(kapi, "/api/v1/namespaces/default"));
  EXPECT_TRUE(got.starts_with("HTTP/1.1 200")) << got;
}

// Each real client as it talks to kube-apiserver, read off kapi's request log: the Go clients (kubectl, helm)
// choose HTTP/2; the Python client (urllib3) and the JavaScript one (node-fetch over Node's https) offer only
// HTTP/1.1.
TEST(Http2Test, RealClientsChooseTheirProtocol) {
  KapiProcess kapi(KapiOptions{.extra_flags = {"-v=3"}});
  const std::string kubeconfig = kapi.admin_kubeconfig().string();
  const auto home = kapi.work_dir() / "client-home";
  std::filesystem::create_directories(home);
  const std::vector<std::pair<std::string, std::string>> clients = {
      {"kubectl", "KUBECONFIG='" + kubeconfig + "' timeout 60 /usr/bin/kubectl get namespaces"},
      {"helm", "HOME='" + home.string() + "' HELM_CACHE_HOME='" + (home / "cache").string() + "' HELM_CONFIG_HOME='" +
                   (home / "config").string() + "' HELM_DATA_HOME='" + (home / "data").string() + "' KUBECONFIG='" +
                   kubeconfig + "' timeout 60 /usr/local/bin/helm list --all-namespaces"},
      {"python", "timeout 60 /usr/bin/python3 -c \"import sys; from kubernetes import client, config; "
                 "config.load_kube_config(sys.argv[1]); client.CoreV1Api().list_namespace()\" '" + kubeconfig + "'"},
      {"javascript",
       "NODE_PATH=/usr/local/lib/kapi-test-clients/node_modules timeout 60 node -e \"const k8s = "
       "require('@kubernetes/client-node'); const kc = new k8s.KubeConfig(); kc.loadFromFile(process.argv[1]); "
       "kc.makeApiClient(k8s.CoreV1Api).listNamespace().then(() => process.exit(0), e => { console.error(e); "
       "process.exit(1); })\" '" + kubeconfig + "'"},
  };
  for (const auto& [client, command] : clients) {
    const CommandResult ran = run_command(command + " 2>&1");
    ASSERT_EQ(ran.exit_code, 0) << client << ": " << ran.output;
  }
  // Each client's requests by its User-Agent (kubectl's dispatcher says "kubectl-dispatcher", the Python client
  // "OpenAPI-Generator/…/python", the JavaScript one node-fetch's), once every line is in the log.
  const std::vector<std::pair<std::string, std::string>> agents = {{"kubectl", "HTTP/2.0"},
                                                                   {"Helm/", "HTTP/2.0"},
                                                                   {"OpenAPI-Generator/", "HTTP/1.1"},
                                                                   {"node-fetch/", "HTTP/1.1"}};
  std::map<std::string, std::set<std::string>> protocols;
  EXPECT_TRUE(eventually([&] {
    protocols.clear();
    std::istringstream lines(kapi.stderr_text());
    for (std::string line; std::getline(lines, line);) {
      const auto agent = line.find(" userAgent=\"");
      const auto protocol = line.find(" protocol=\"");
      if (line.find("\"HTTP\" verb=") == std::string::npos || agent == std::string::npos || protocol == std::string::npos)
        continue;
      for (const auto& [prefix, expected] : agents)
        if (line.compare(agent + 12, prefix.size(), prefix) == 0)
          protocols[prefix].insert(line.substr(protocol + 11, line.find('"', protocol + 11) - protocol - 11));
    }
    return protocols.size() == agents.size();
  }));
  for (const auto& [prefix, expected] : agents) EXPECT_EQ(protocols[prefix], std::set<std::string>{expected}) << prefix;
}

}  // namespace
}  // namespace kapi::integration::http2_test
