// The sample extension API server (kapi-sample-apiserver) that the aggregator's tests proxy to, checked on its
// own over real HTTPS: it trusts only a front proxy's client certificate, serves the wardle.example.com discovery,
// objects, Tables, watches and OpenAPI documents, logs who the proxy said the user was, and restarts on its port.
#include "server/pki/pem_io.h"
#include "server/pki/x509_builder.h"
#include "tests/integration/kapi_suite.h"
#include "tests/support/command.h"
#include "tests/support/sample_apiserver_process.h"
#include "tests/support/temp_dir.h"

#include <fstream>

namespace kapi::integration::sample_apiserver_test {
namespace {

using namespace std::chrono_literals;
using test_support::SampleApiServerOptions;
using test_support::SampleApiServerProcess;
using test_support::TlsClientOptions;
using Headers = std::vector<std::pair<std::string, std::string>>;

// A front-proxy CA of the test's own with the proxy's client certificate, one whose CN is not allowed, and one
// with the proxy's CN from a CA nobody trusts: made with kapi's x509 builder, as kapi makes its own.
class FrontProxyPki {
 public:
  FrontProxyPki() {
    auto ca = make_ca("test-front-proxy-ca", "ca");
    auto stranger_ca = make_ca("stranger-ca", "stranger-ca");
    issue("front-proxy-client", "front-proxy-client", ca);
    issue("not-the-proxy", "not-the-proxy", ca);
    issue("front-proxy-client", "stranger", stranger_ca);
  }
  std::filesystem::path ca_cert() const { return dir_.path() / "ca.crt"; }
  std::filesystem::path cert(const std::string& name) const { return dir_.path() / (name + ".crt"); }
  std::filesystem::path key(const std::string& name) const { return dir_.path() / (name + ".key"); }

 private:
  struct Authority {
    pki::X509Ptr certificate;
    pki::EvpPkeyPtr key;
  };
  Authority make_ca(const std::string& common_name, const std::string& file) {
    Authority ca{nullptr, pki::generate_ecdsa_p256_key()};
    ca.certificate = pki::self_sign_certificate_authority(
        {.common_name = common_name, .usage = pki::CertificateUsage::certificate_authority, .validity_days = 1},
        ca.key.get());
    pki::write_file_atomically(dir_.path() / (file + ".crt"), pki::certificate_to_pem(ca.certificate.get()), 0644);
    return ca;
  }
  void issue(const std::string& common_name, const std::string& file, const Authority& ca) {
    auto key = pki::generate_ecdsa_p256_key();
    auto certificate = pki::issue_certificate(
        {.common_name = common_name, .usage = pki::CertificateUsage::client_auth, .validity_days = 1}, key.get(),
        {ca.certificate.get(), ca.key.get()});
    pki::write_file_atomically(cert(file), pki::certificate_to_pem(certificate.get()), 0644);
    pki::write_file_atomically(this->key(file), pki::private_key_to_pem(key.get()), 0600);
  }

  test_support::TempDir dir_{"kapi-sample-front-proxy"};
};

const FrontProxyPki& front_proxy() {
  static const FrontProxyPki pki;
  return pki;
}

SampleApiServerOptions trusting_front_proxy() {
  SampleApiServerOptions options;
  options.requestheader_client_ca_file = front_proxy().ca_cert();
  return options;
}

const Headers& as_alice() {
  static const Headers headers{{"X-Remote-User", "alice"}};
  return headers;
}

std::string text(const boost::json::value& value) { return value.is_string() ? std::string(value.as_string()) : ""; }

class SampleApiServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = std::make_unique<SampleApiServerProcess>(trusting_front_proxy()); }
  static void TearDownTestSuite() { server_.reset(); }
  void TearDown() override {
    if (HasFailure() && server_) std::cerr << server_->logs();
  }

  static SampleApiServerProcess& server() { return *server_; }
  static TlsClientOptions as_proxy(const std::string& name = "front-proxy-client") {
    return server().tls(front_proxy().cert(name), front_proxy().key(name));
  }
  // One GET as the front proxy, for alice unless `headers` say otherwise.
  static HttpResponse get(const std::string& target, Headers headers = as_alice()) {
    return test_support::https_request(server().port(), as_proxy(), "GET", target, headers);
  }

 private:
  static inline std::unique_ptr<SampleApiServerProcess> server_;
};

TEST_F(SampleApiServerTest, RefusesRequestsWithoutTheFrontProxysCertificate) {
  const std::string path = "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders";
  auto anonymous = test_support::https_request(server().port(), server().tls(), "GET", path, as_alice());
  EXPECT_TRUE(is_status(anonymous, 401, "Unauthorized"));
  EXPECT_EQ(status_message(anonymous), "Unauthorized");
  for (const std::string name : {"not-the-proxy", "stranger"}) {
    auto response = test_support::https_request(server().port(), as_proxy(name), "GET", path, as_alice());
    EXPECT_TRUE(is_status(response, 401, "Unauthorized")) << name;
  }
  // The proxy itself, without naming a user.
  EXPECT_TRUE(is_status(get(path, {}), 401, "Unauthorized"));
  EXPECT_EQ(get(path).status, 200);

  // Health checks need no credential.
  auto health = test_support::https_request(server().port(), server().tls(), "GET", "/healthz");
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(health.body, "ok");
}

TEST_F(SampleApiServerTest, ServesDiscovery) {
  auto groups = json_object(get("/apis").body);
  EXPECT_EQ(text(groups["kind"]), "APIGroupList");
  ASSERT_EQ(groups["groups"].as_array().size(), 1u);
  auto& group = groups["groups"].as_array()[0].as_object();
  EXPECT_EQ(text(group["name"]), "wardle.example.com");
  EXPECT_EQ(text(group["preferredVersion"].as_object()["groupVersion"]), "wardle.example.com/v1alpha1");

  auto single = json_object(get("/apis/wardle.example.com").body);
  EXPECT_EQ(text(single["kind"]), "APIGroup");
  EXPECT_EQ(text(single["name"]), "wardle.example.com");

  auto resources = json_object(get("/apis/wardle.example.com/v1alpha1").body);
  EXPECT_EQ(text(resources["kind"]), "APIResourceList");
  EXPECT_EQ(text(resources["groupVersion"]), "wardle.example.com/v1alpha1");
  ASSERT_EQ(resources["resources"].as_array().size(), 1u);
  auto& flunders = resources["resources"].as_array()[0].as_object();
  EXPECT_EQ(text(flunders["name"]), "flunders");
  EXPECT_EQ(text(flunders["kind"]), "Flunder");
  EXPECT_EQ(text(flunders["singularName"]), "flunder");
  EXPECT_EQ(flunders["namespaced"], true);
  EXPECT_EQ(flunders["verbs"], (boost::json::array{"get", "list", "watch"}));
  EXPECT_EQ(flunders["shortNames"], (boost::json::array{"fl"}));

  // Aggregated discovery, as kubectl and the aggregator ask for it.
  Headers aggregated = as_alice();
  aggregated.emplace_back("Accept",
                          "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
                          "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json");
  auto response = get("/apis", aggregated);
  ASSERT_EQ(response.status, 200) << response.body;
  EXPECT_EQ(response.header("Content-Type"), "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
  auto list = json_object(response.body);
  EXPECT_EQ(text(list["kind"]), "APIGroupDiscoveryList");
  EXPECT_EQ(text(list["apiVersion"]), "apidiscovery.k8s.io/v2");
  ASSERT_EQ(list["items"].as_array().size(), 1u);
  auto& item = list["items"].as_array()[0].as_object();
  EXPECT_EQ(text(item["metadata"].as_object()["name"]), "wardle.example.com");
  auto& version = item["versions"].as_array()[0].as_object();
  EXPECT_EQ(text(version["version"]), "v1alpha1");
  auto& resource = version["resources"].as_array()[0].as_object();
  EXPECT_EQ(text(resource["resource"]), "flunders");
  EXPECT_EQ(text(resource["scope"]), "Namespaced");
  EXPECT_EQ(text(resource["singularResource"]), "flunder");
  EXPECT_EQ(text(resource["responseKind"].as_object()["kind"]), "Flunder");
}

TEST_F(SampleApiServerTest, ListsAndGetsFlunders) {
  auto list = json_object(get("/apis/wardle.example.com/v1alpha1/namespaces/default/flunders").body);
  EXPECT_EQ(text(list["kind"]), "FlunderList");
  EXPECT_EQ(text(list["apiVersion"]), "wardle.example.com/v1alpha1");
  EXPECT_EQ(text(list["metadata"].as_object()["resourceVersion"]), "12");
  ASSERT_EQ(list["items"].as_array().size(), 2u);
  EXPECT_EQ(text(list["items"].as_array()[0].as_object()["metadata"].as_object()["name"]), "alpha");
  EXPECT_EQ(json_object(get("/apis/wardle.example.com/v1alpha1/flunders").body)["items"].as_array().size(), 2u);
  EXPECT_TRUE(json_object(get("/apis/wardle.example.com/v1alpha1/namespaces/other/flunders").body)["items"]
                  .as_array()
                  .empty());
  auto selected = json_object(
      get("/apis/wardle.example.com/v1alpha1/flunders?fieldSelector=metadata.name%3Dbeta").body);
  ASSERT_EQ(selected["items"].as_array().size(), 1u);

  auto alpha = json_object(get("/apis/wardle.example.com/v1alpha1/namespaces/default/flunders/alpha").body);
  EXPECT_EQ(text(alpha["kind"]), "Flunder");
  EXPECT_EQ(text(alpha["apiVersion"]), "wardle.example.com/v1alpha1");
  auto& metadata = alpha["metadata"].as_object();
  EXPECT_EQ(text(metadata["name"]), "alpha");
  EXPECT_EQ(text(metadata["namespace"]), "default");
  EXPECT_FALSE(text(metadata["uid"]).empty());
  EXPECT_EQ(text(metadata["resourceVersion"]), "11");
  EXPECT_TRUE(alpha["spec"].is_object());

  auto missing = get("/apis/wardle.example.com/v1alpha1/namespaces/default/flunders/nope");
  ASSERT_TRUE(is_status(missing, 404, "NotFound"));
  auto status = json_object(missing.body);
  EXPECT_EQ(text(status["message"]), "flunders.wardle.example.com \"nope\" not found");
  auto& details = status["details"].as_object();
  EXPECT_EQ(text(details["name"]), "nope");
  EXPECT_EQ(text(details["group"]), "wardle.example.com");
  EXPECT_EQ(text(details["kind"]), "flunders");

  EXPECT_TRUE(is_status(get("/apis/nothing/here"), 404, "NotFound"));
  EXPECT_TRUE(is_status(test_support::https_request(server().port(), as_proxy(), "POST",
                                                    "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders",
                                                    as_alice(), "{}"),
                        405, "MethodNotAllowed"));
}

TEST_F(SampleApiServerTest, AnswersTablesAsKubectlAsks) {
  Headers table = as_alice();
  table.emplace_back("Accept",
                     "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,"
                     "application/json");
  auto list = json_object(get("/apis/wardle.example.com/v1alpha1/namespaces/default/flunders?limit=500", table).body);
  EXPECT_EQ(text(list["kind"]), "Table");
  EXPECT_EQ(text(list["apiVersion"]), "meta.k8s.io/v1");
  EXPECT_EQ(text(list["metadata"].as_object()["resourceVersion"]), "12");
  auto& columns = list["columnDefinitions"].as_array();
  ASSERT_EQ(columns.size(), 2u);
  EXPECT_EQ(text(columns[0].as_object()["name"]), "Name");
  EXPECT_EQ(text(columns[0].as_object()["format"]), "name");
  EXPECT_EQ(text(columns[1].as_object()["name"]), "Age");
  auto& rows = list["rows"].as_array();
  ASSERT_EQ(rows.size(), 2u);
  auto& cells = rows[0].as_object()["cells"].as_array();
  ASSERT_EQ(cells.size(), 2u);
  EXPECT_EQ(text(cells[0]), "alpha");
  auto& object = rows[0].as_object()["object"].as_object();
  EXPECT_EQ(text(object["kind"]), "PartialObjectMetadata");
  EXPECT_EQ(text(object["metadata"].as_object()["namespace"]), "default");

  auto one = json_object(get("/apis/wardle.example.com/v1alpha1/namespaces/default/flunders/beta", table).body);
  EXPECT_EQ(text(one["kind"]), "Table");
  EXPECT_EQ(one["rows"].as_array().size(), 1u);
}

TEST_F(SampleApiServerTest, WatchStreamsAddedEventsUntilItsTimeout) {
  HttpConnection connection(server().port(), as_proxy());
  const auto start = std::chrono::steady_clock::now();
  connection.send(
      "GET /apis/wardle.example.com/v1alpha1/namespaces/default/flunders?watch=true&timeoutSeconds=2 HTTP/1.1\r\n"
      "Host: sample\r\nX-Remote-User: alice\r\n\r\n");
  auto head = connection.read_head(3s);
  ASSERT_EQ(head.status, 200);
  EXPECT_TRUE(head.chunked());
  EXPECT_EQ(head.header("Content-Type"), "application/json");
  std::string stream;
  while (auto chunk = connection.read_chunk(4s)) stream += *chunk;
  EXPECT_GE(seconds_since(start), 1.5) << "the watch stays open until timeoutSeconds";
  std::istringstream lines(stream);
  std::vector<std::string> names;
  for (std::string line; std::getline(lines, line);) {
    auto event = json_object(line);
    EXPECT_EQ(text(event["type"]), "ADDED");
    names.push_back(text(event["object"].as_object()["metadata"].as_object()["name"]));
  }
  EXPECT_EQ(names, (std::vector<std::string>{"alpha", "beta"}));

  // From the list's resourceVersion nothing is new (kubectl get -w); watch=1 is a watch too.
  HttpConnection later(server().port(), as_proxy());
  later.send("GET /apis/wardle.example.com/v1alpha1/flunders?watch=1&resourceVersion=12&timeoutSeconds=1 HTTP/1.1\r\n"
             "Host: sample\r\nX-Remote-User: alice\r\n\r\n");
  ASSERT_EQ(later.read_head(3s).status, 200);
  std::string rest;
  while (auto chunk = later.read_chunk(3s)) rest += *chunk;
  EXPECT_EQ(rest, "");
}

TEST_F(SampleApiServerTest, RequestLogRecordsWhoTheFrontProxyNamed) {
  const std::string path = "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders/beta";
  auto response = get(path + "?pretty=true", {{"X-Remote-User", "bob"},
                                              {"X-Remote-Group", "developers"},
                                              {"X-Remote-Group", "system:authenticated"},
                                              {"X-Remote-Extra-Scopes", "read"},
                                              {"X-Remote-Extra-Scopes", "write"},
                                              {"X-Remote-Extra-Acme.com%2Fproject", "kapi"}});
  ASSERT_EQ(response.status, 200);
  auto logged = server().requests_for(path);
  ASSERT_FALSE(logged.empty());
  auto& line = logged.back();
  EXPECT_EQ(text(line["method"]), "GET");
  EXPECT_EQ(text(line["query"]), "pretty=true");
  EXPECT_EQ(text(line["user"]), "bob");
  EXPECT_EQ(line["groups"], (boost::json::array{"developers", "system:authenticated"}));
  auto& extra = line["extra"].as_object();
  EXPECT_EQ(extra["scopes"], (boost::json::array{"read", "write"}));
  EXPECT_EQ(extra["acme.com/project"], (boost::json::array{"kapi"}));
  EXPECT_EQ(text(line["clientCN"]), "front-proxy-client");

  // A refused request is logged too, with nobody as its user.
  test_support::https_request(server().port(), server().tls(), "GET", path + "?refused=1", as_alice());
  auto refused = server().requests_for(path);
  ASSERT_FALSE(refused.empty());
  EXPECT_EQ(text(refused.back()["query"]), "refused=1");
  EXPECT_EQ(text(refused.back()["user"]), "");
  EXPECT_EQ(text(refused.back()["clientCN"]), "");
}

TEST_F(SampleApiServerTest, ServesOpenApi) {
  auto v2 = json_object(get("/openapi/v2").body);
  EXPECT_EQ(text(v2["swagger"]), "2.0");
  auto& flunder = v2["definitions"].as_object()["com.example.wardle.v1alpha1.Flunder"].as_object();
  auto& gvk = flunder["x-kubernetes-group-version-kind"].as_array()[0].as_object();
  EXPECT_EQ(text(gvk["group"]), "wardle.example.com");
  EXPECT_EQ(text(gvk["kind"]), "Flunder");

  auto index = json_object(get("/openapi/v3").body);
  auto url = text(index["paths"].as_object()["apis/wardle.example.com/v1alpha1"].as_object()["serverRelativeURL"]);
  EXPECT_TRUE(url.starts_with("/openapi/v3/apis/wardle.example.com/v1alpha1?hash=")) << url;
  auto v3 = json_object(get(url).body);
  EXPECT_TRUE(text(v3["openapi"]).starts_with("3.0"));
  EXPECT_TRUE(v3["components"].as_object()["schemas"].as_object().contains("com.example.wardle.v1alpha1.Flunder"));
}

TEST(SampleApiServerModesTest, RedirectsResourceRequestsWhenAsked) {
  SampleApiServerOptions options = trusting_front_proxy();
  options.redirect_resources = true;
  SampleApiServerProcess server(options);
  auto tls = server.tls(front_proxy().cert("front-proxy-client"), front_proxy().key("front-proxy-client"));
  auto redirected = test_support::https_request(
      server.port(), tls, "GET", "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders", as_alice());
  EXPECT_EQ(redirected.status, 302) << redirected.body;
  EXPECT_EQ(redirected.header("Location"), "https://example.invalid/elsewhere");
  // Discovery still answers.
  EXPECT_EQ(test_support::https_request(server.port(), tls, "GET", "/apis/wardle.example.com/v1alpha1", as_alice())
                .status,
            200);
}

TEST(SampleApiServerModesTest, RestartsOnTheSamePortWithTheSameCertificates) {
  SampleApiServerProcess server(trusting_front_proxy());
  const int port = server.port();
  const std::string ca = server.ca_bundle_pem();
  auto tls = server.tls(front_proxy().cert("front-proxy-client"), front_proxy().key("front-proxy-client"));

  // SIGTERM with a watch open still exits 0.
  HttpConnection watch(port, tls);
  watch.send("GET /apis/wardle.example.com/v1alpha1/flunders?watch=true HTTP/1.1\r\nHost: s\r\nX-Remote-User: a\r\n\r\n");
  ASSERT_EQ(watch.read_head(3s).status, 200);
  server.stop();
  EXPECT_EQ(server.exit_code(), 0) << server.logs();
  EXPECT_TRUE(watch.wait_for_close(2s));

  server.restart();
  EXPECT_EQ(server.port(), port);
  EXPECT_EQ(server.ca_bundle_pem(), ca);
  EXPECT_EQ(test_support::https_request(port, tls, "GET", "/apis/wardle.example.com", as_alice()).status, 200);
  EXPECT_FALSE(server.ca_bundle_base64().empty());

  server.kill();
  server.restart();
  EXPECT_EQ(server.port(), port);
  EXPECT_EQ(test_support::https_request(port, tls, "GET", "/healthz").body, "ok");
}

// kubectl 1.32 straight at the server (no front-proxy CA, so no credential is needed): discovery by aggregated
// /apis, then its Table printed as NAME and AGE.
TEST(SampleApiServerModesTest, KubectlPrintsItsTable) {
  SampleApiServerProcess server;
  test_support::TempDir home("kapi-sample-kubectl");
  const auto kubeconfig = home.path() / "kubeconfig";
  std::ofstream(kubeconfig) << "apiVersion: v1\nkind: Config\nclusters:\n- name: sample\n  cluster:\n"
                            << "    server: https://127.0.0.1:" << server.port() << "\n"
                            << "    certificate-authority: " << server.ca_cert().string() << "\n"
                            << "    tls-server-name: api.wardle-system.svc\n"
                            << "users:\n- name: nobody\n  user: {token: ignored-by-the-server}\n"
                            << "contexts:\n- name: sample\n  context: {cluster: sample, user: nobody}\n"
                            << "current-context: sample\n";
  auto result = test_support::run_command("env HOME='" + home.path().string() + "' KUBECONFIG='" +
                                          kubeconfig.string() + "' timeout 20 /usr/bin/kubectl get flunders -n default");
  ASSERT_EQ(result.exit_code, 0) << result.output << server.logs();
  EXPECT_NE(result.output.find("NAME"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("AGE"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("alpha"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("beta"), std::string::npos) << result.output;
}

}  // namespace
}  // namespace kapi::integration::sample_apiserver_test
