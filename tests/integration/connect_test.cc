// The connect subresources end to end (kube's pkg/registry/core/pod/rest/log.go and subresources.go,
// node/rest/proxy.go, service/proxy.go): kubectl logs, exec and port-forward, pods/proxy, services/proxy and
// nodes/proxy through kapi to a fake kubelet (tests/support/fake_kubelet/fake_kubelet.py) that requires kapi's
// --kubelet-client-certificate and is trusted through --kubelet-certificate-authority.
#include "server/pki/pem_io.h"
#include "server/pki/x509_builder.h"
#include "tests/integration/kapi_suite.h"
#include "tests/integration/kubectl_runner.h"
#include "tests/support/command.h"
#include "tests/support/temp_dir.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace kapi::integration::connect_test {
namespace {

using namespace std::chrono_literals;
using Headers = std::vector<std::pair<std::string, std::string>>;

const Headers kJson{{"Content-Type", "application/json"}};

// $KAPI_FAKE_KUBELET, else the script in the source tree the build directory lives in (scripts/build's build/).
std::filesystem::path fake_kubelet_script() {
  if (const char* path = std::getenv("KAPI_FAKE_KUBELET")) return path;
  auto binary = std::filesystem::read_symlink("/proc/self/exe");
  return binary.parent_path().parent_path().parent_path() / "tests/support/fake_kubelet/fake_kubelet.py";
}

// The kubelet's serving certificate (for 127.0.0.1) and kapi's client certificate, each from its own CA.
class KubeletPki {
 public:
  KubeletPki() {
    auto serving_ca = make_ca("kubelet-ca");
    issue("kubelet", pki::CertificateUsage::server_auth, serving_ca, {pki::parse_subject_alt_name("127.0.0.1")});
    auto client_ca = make_ca("kubelet-client-ca");
    issue("apiserver-kubelet-client", pki::CertificateUsage::client_auth, client_ca, {});
  }
  std::filesystem::path path(const std::string& file) const { return dir_.path() / file; }

 private:
  struct Authority {
    pki::X509Ptr certificate;
    pki::EvpPkeyPtr key;
  };
  Authority make_ca(const std::string& name) {
    Authority ca{nullptr, pki::generate_ecdsa_p256_key()};
    ca.certificate = pki::self_sign_certificate_authority(
        {.common_name = name, .usage = pki::CertificateUsage::certificate_authority, .validity_days = 1}, ca.key.get());
    pki::write_file_atomically(path(name + ".crt"), pki::certificate_to_pem(ca.certificate.get()), 0644);
    return ca;
  }
  void issue(const std::string& name, pki::CertificateUsage usage, const Authority& ca,
             std::vector<pki::SubjectAltName> sans) {
    auto key = pki::generate_ecdsa_p256_key();
    auto certificate = pki::issue_certificate(
        {.common_name = name, .usage = usage, .validity_days = 1, .subject_alt_names = std::move(sans)}, key.get(),
        {ca.certificate.get(), ca.key.get()});
    pki::write_file_atomically(path(name + ".crt"), pki::certificate_to_pem(certificate.get()), 0644);
    pki::write_file_atomically(path(name + ".key"), pki::private_key_to_pem(key.get()), 0600);
  }

  test_support::TempDir dir_{"kapi-kubelet-pki"};
};

// The fake kubelet as a child process; its ports come from its first two lines of output.
class FakeKubelet {
 public:
  explicit FakeKubelet(const KubeletPki& pki) {
    int out[2];
    if (::pipe(out) != 0) throw std::runtime_error("pipe");
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(out[1], 1);
      ::close(out[0]);
      ::close(out[1]);
      const std::string script = fake_kubelet_script().string();
      const std::string cert = pki.path("kubelet.crt").string(), key = pki.path("kubelet.key").string(),
                        client_ca = pki.path("kubelet-client-ca.crt").string();
      ::execlp("python3", "python3", script.c_str(), cert.c_str(), key.c_str(), client_ca.c_str(), nullptr);
      ::_exit(127);
    }
    ::close(out[1]);
    std::string text;
    char buffer[256];
    while (std::count(text.begin(), text.end(), '\n') < 3) {
      const auto n = ::read(out[0], buffer, sizeof buffer);
      if (n <= 0) break;
      text.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(out[0]);
    std::istringstream lines(text);
    lines >> port_ >> pod_port_ >> silent_port_;
    if (port_ == 0) throw std::runtime_error("the fake kubelet did not start: " + text);
  }
  ~FakeKubelet() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  int port() const { return port_; }
  int pod_port() const { return pod_port_; }
  int silent_port() const { return silent_port_; }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  int pod_port_ = 0;
  int silent_port_ = 0;
};

class ConnectTest : public KapiSuite<ConnectTest> {
 public:
  static KapiOptions kapi_options() {
    pki_ = std::make_unique<KubeletPki>();
    kubelet_ = std::make_unique<FakeKubelet>(*pki_);
    KapiOptions options;
    options.extra_flags = {"--kubelet-certificate-authority=" + pki_->path("kubelet-ca.crt").string(),
                           "--kubelet-client-certificate=" + pki_->path("apiserver-kubelet-client.crt").string(),
                           "--kubelet-client-key=" + pki_->path("apiserver-kubelet-client.key").string(),
                           "--kubelet-preferred-address-types=InternalIP", "--kubelet-timeout=2s"};
    return options;
  }
  static void SetUpTestSuite() {
    KapiSuite<ConnectTest>::SetUpTestSuite();
    create_objects();
  }
  static void TearDownTestSuite() {
    KapiSuite<ConnectTest>::TearDownTestSuite();
    kubelet_.reset();
    pki_.reset();
  }

 protected:
  static HttpResponse call(std::string_view method, std::string_view target, std::string_view body = {},
                           const Headers& headers = kJson) {
    return kapi().connect_admin().request(method, target, headers, body);
  }

  // kube's 400 BadRequest Status with `message`, for `method` of `target`.
  static void expect_bad_request(std::string_view method, std::string_view target, std::string_view message) {
    HttpResponse answer = call(method, target);
    ASSERT_TRUE(is_status(answer, 400, "BadRequest")) << target << ": " << answer.body;
    EXPECT_EQ(status_message(answer), message) << target;
  }

  static void create_node(const std::string& name, int port) {
    const std::string node = R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")" + name +
                             R"("},"status":{"addresses":[{"type":"InternalIP","address":"127.0.0.1"}],)"
                             R"("daemonEndpoints":{"kubeletEndpoint":{"Port":)" + std::to_string(port) + "}}}}";
    auto created = call("POST", "/api/v1/nodes", node);
    ASSERT_EQ(created.status, 201) << created.body;
  }

  // A pod on `node` with `containers` (comma-separated names), made Running (kubectl port-forward insists).
  static void create_pod(const std::string& name, const std::string& node, const std::string& containers,
                         const std::string& pod_ip = "") {
    std::string list;
    std::stringstream names(containers);
    for (std::string container; std::getline(names, container, ',');)
      list += std::string(list.empty() ? "" : ",") + R"({"name":")" + container +
              R"(","image":"busybox","ports":[{"containerPort":)" + std::to_string(kubelet_->pod_port()) + "}]}";
    const std::string pod = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name + R"("},"spec":{)" +
                            (node.empty() ? "" : R"("nodeName":")" + node + R"(",)") + R"("containers":[)" + list +
                            "]}}";
    auto created = call("POST", "/api/v1/namespaces/default/pods", pod);
    ASSERT_EQ(created.status, 201) << created.body;
    auto object = json_object(created.body);
    auto& status = object["status"].as_object();
    status["phase"] = "Running";
    if (!pod_ip.empty()) {
      status["podIP"] = pod_ip;
      status["podIPs"] = boost::json::array{boost::json::object{{"ip", pod_ip}}};
    }
    auto updated = call("PUT", "/api/v1/namespaces/default/pods/" + name + "/status", boost::json::serialize(object));
    ASSERT_EQ(updated.status, 200) << updated.body;
  }

  // A global unicast address of this machine (pods/proxy refuses loopback ones, as kube does); empty when none.
  static std::string host_ip() {
    auto result = test_support::run_command("hostname -I");
    std::istringstream words(result.output);
    std::string ip;
    while (words >> ip)
      if (ip.find(':') == std::string::npos && ip.rfind("127.", 0) != 0 && ip.rfind("169.254.", 0) != 0) return ip;
    return {};
  }

  static void create_objects() {
    create_node("kubelet-node", kubelet_->port());
    create_node("dead-node", 1);  // nothing listens on port 1
    create_node("silent-node", kubelet_->silent_port());
    pod_ip_ = host_ip();
    create_pod("web", "kubelet-node", "app", pod_ip_);
    create_pod("two", "kubelet-node", "a,b");
    create_pod("unscheduled", "", "app");
    create_pod("old", "kubelet-node", "legacy");
    create_pod("stranded", "dead-node", "app");
    create_pod("hung", "silent-node", "app");
    auto service = call("POST", "/api/v1/namespaces/default/services",
                        R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"web-svc"},)"
                        R"("spec":{"ports":[{"name":"http","port":80}]}})");
    ASSERT_EQ(service.status, 201) << service.body;
    if (pod_ip_.empty()) return;  // Endpoints refuse loopback addresses, as kube's validation does
    // kube uses an address only when it targets its pod and the pod has that IP: the second one is skipped.
    auto endpoints = call("POST", "/api/v1/namespaces/default/endpoints",
                          R"({"apiVersion":"v1","kind":"Endpoints","metadata":{"name":"web-svc"},"subsets":[)"
                          R"({"addresses":[{"ip":"10.255.255.1"},{"ip":")" + pod_ip_ +
                              R"(","targetRef":{"kind":"Pod","namespace":"default","name":"web"}}],)"
                              R"("ports":[{"name":"http","port":)" + std::to_string(kubelet_->pod_port()) + "}]}]}");
    ASSERT_EQ(endpoints.status, 201) << endpoints.body;
  }

  static inline std::unique_ptr<KubeletPki> pki_;
  static inline std::unique_ptr<FakeKubelet> kubelet_;
  static inline std::string pod_ip_;
};

TEST_F(ConnectTest, KubectlLogsReadsTheKubeletsContainerLogs) {
  auto logs = run_kubectl(kapi(), "logs web");
  EXPECT_EQ(logs.exit_code, 0) << logs.output;
  EXPECT_EQ(logs.output, "app line 1\napp line 2\napp line 3\napp line 4\napp line 5\n");

  auto tail = run_kubectl(kapi(), "logs two -c b --tail=2");
  EXPECT_EQ(tail.exit_code, 0) << tail.output;
  EXPECT_EQ(tail.output, "b line 4\nb line 5\n");

  // Following streams what the kubelet sends as it comes, until the kubelet ends the log.
  auto followed = run_kubectl(kapi(), "logs -f web", 30);
  EXPECT_EQ(followed.exit_code, 0) << followed.output;
  EXPECT_NE(followed.output.find("app line 5\napp followed 1\napp followed 2\napp followed 3\n"), std::string::npos)
      << followed.output;
}

TEST_F(ConnectTest, LogsChecksTheContainerAsKubeDoes) {
  expect_bad_request("GET", "/api/v1/namespaces/default/pods/two/log",
                     "a container name must be specified for pod two, choose one of: [a b]");
  expect_bad_request("GET", "/api/v1/namespaces/default/pods/web/log?container=nope",
                     "container nope is not valid for pod web");

  auto negative = call("GET", "/api/v1/namespaces/default/pods/web/log?tailLines=-1&limitBytes=0");
  ASSERT_TRUE(is_status(negative, 422, "Invalid")) << negative.body;
  EXPECT_EQ(status_message(negative),
            "PodLogOptions \"web\" is invalid: [tailLines: Invalid value: -1: must be greater than or equal to 0, "
            "limitBytes: Invalid value: 0: must be greater than 0]");

  // A pod on no node has no log yet: an empty one, as kube's LocationStreamer without a location answers.
  auto empty = call("GET", "/api/v1/namespaces/default/pods/unscheduled/log");
  EXPECT_EQ(empty.status, 200) << empty.body;
  EXPECT_EQ(empty.body, "");
}

TEST_F(ConnectTest, KubectlExecRunsTheCommandAndRelaysItsExitCode) {
  auto echoed = run_kubectl(kapi(), "exec web -- echo hi");
  EXPECT_EQ(echoed.exit_code, 0) << echoed.output;
  EXPECT_EQ(echoed.output, "hi\n");

  auto failed = run_kubectl(kapi(), "exec web -- exit 3");
  EXPECT_EQ(failed.exit_code, 3) << failed.output;

  auto chosen = run_kubectl(kapi(), "exec two -c b -- echo from b");
  EXPECT_EQ(chosen.exit_code, 0) << chosen.output;
  EXPECT_EQ(chosen.output, "from b\n");
}

// A kubelet that refuses the WebSocket upgrade answers 400 through kapi, and kubectl falls back to SPDY/3.1,
// which kapi relays as well.
TEST_F(ConnectTest, KubectlExecFallsBackToSpdyWhenTheKubeletRefusesWebSockets) {
  auto echoed = run_kubectl(kapi(), "exec old -- echo via spdy");
  EXPECT_EQ(echoed.exit_code, 0) << echoed.output;
  EXPECT_EQ(echoed.output, "via spdy\n");

  auto failed = run_kubectl(kapi(), "exec old -- exit 4");
  EXPECT_EQ(failed.exit_code, 4) << failed.output;
}

TEST_F(ConnectTest, KubectlAttachRelaysTheContainersOutput) {
  auto attached = run_kubectl(kapi(), "attach web");
  EXPECT_EQ(attached.exit_code, 0) << attached.output;
  EXPECT_NE(attached.output.find("attached\n"), std::string::npos) << attached.output;
}

TEST_F(ConnectTest, ExecRefusesWhatKubeRefuses) {
  expect_bad_request("POST", "/api/v1/namespaces/default/pods/unscheduled/exec?command=ls&stdout=true",
                     "pod unscheduled does not have a host assigned");
  expect_bad_request("POST", "/api/v1/namespaces/default/pods/two/exec?command=ls&stdout=true",
                     "a container name must be specified for pod two, choose one of: [a b]");
  expect_bad_request("POST", "/api/v1/namespaces/default/pods/web/exec?command=ls&stdout=true",
                     "Upgrade request required");
  // ConnectResource refuses a dry run before anything else, and options that do not decode before admission.
  expect_bad_request("POST", "/api/v1/namespaces/default/pods/web/exec?command=ls&stdout=true&dryRun=All",
                     "dryRun is not supported");
  expect_bad_request("POST", "/api/v1/namespaces/default/pods/web/portforward?ports=80,http",
                     "cannot convert to []int32: strconv.ParseUint: parsing \"http\": invalid syntax");
  expect_bad_request("POST", "/api/v1/namespaces/default/pods/web/portforward?ports=70000",
                     "cannot convert to []int32: strconv.ParseUint: parsing \"70000\": value out of range");
}

TEST_F(ConnectTest, KubectlPortForwardReachesThePodsPort) {
  const auto output = kapi().work_dir() / "port-forward.out";
  const auto home = kapi().work_dir() / "kubectl-home";
  std::filesystem::create_directories(home);
  const pid_t kubectl = ::fork();
  if (kubectl == 0) {
    const int file = ::open(output.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(file, 1);
    ::dup2(file, 2);
    ::setenv("HOME", home.c_str(), 1);
    ::setenv("KUBECACHEDIR", (home / "cache").c_str(), 1);
    const std::string kubeconfig = kapi().admin_kubeconfig().string();
    ::execl("/usr/bin/kubectl", "kubectl", "--kubeconfig", kubeconfig.c_str(), "port-forward", "pod/web", "0:80",
            nullptr);
    ::_exit(127);
  }
  // "Forwarding from 127.0.0.1:<port> -> 80"
  int local_port = 0;
  std::string text;
  for (auto give_up = std::chrono::steady_clock::now() + 20s; std::chrono::steady_clock::now() < give_up && !local_port;) {
    std::this_thread::sleep_for(100ms);
    std::ifstream in(output);
    text.assign(std::istreambuf_iterator<char>(in), {});
    if (auto at = text.find("Forwarding from 127.0.0.1:"); at != std::string::npos)
      local_port = std::atoi(text.c_str() + at + 26);
  }
  std::string answer;
  if (local_port) {
    try {
      HttpConnection forwarded(local_port);
      forwarded.send("GET / HTTP/1.1\r\nHost: pod\r\n\r\n");
      answer = forwarded.read_until_close(10s);
    } catch (const std::exception& error) {
      answer = error.what();
    }
  }
  ::kill(kubectl, SIGKILL);
  ::waitpid(kubectl, nullptr, 0);
  ASSERT_NE(local_port, 0) << text;
  EXPECT_NE(answer.find("forwarded through the kubelet"), std::string::npos) << answer << "\n" << text;
}

TEST_F(ConnectTest, NodeProxyReachesTheKubelet) {
  auto healthz = call("GET", "/api/v1/nodes/kubelet-node/proxy/healthz");
  EXPECT_EQ(healthz.status, 200) << healthz.body;
  EXPECT_EQ(healthz.body, "kubelet saw GET /healthz\n");
}

TEST_F(ConnectTest, ServiceProxyReachesAnEndpoint) {
  ASSERT_FALSE(pod_ip_.empty()) << "this machine has no global unicast IPv4 address for an endpoint";
  auto named = call("GET", "/api/v1/namespaces/default/services/web-svc:http/proxy/hello?x=1");
  EXPECT_EQ(named.status, 200) << named.body;
  EXPECT_EQ(named.body, "pod server saw GET /hello?x=1\n");

  auto numbered = call("GET", "/api/v1/namespaces/default/services/http:web-svc:80/proxy/");
  EXPECT_EQ(numbered.status, 200) << numbered.body;
  EXPECT_EQ(numbered.body, "pod server saw GET /\n");

  auto missing_port = call("GET", "/api/v1/namespaces/default/services/web-svc:81/proxy/");
  ASSERT_TRUE(is_status(missing_port, 503, "ServiceUnavailable")) << missing_port.body;
  EXPECT_EQ(status_message(missing_port), "no service port 81 found for service \"web-svc\"");

  auto unnamed_port = call("GET", "/api/v1/namespaces/default/services/web-svc:other/proxy/");
  ASSERT_TRUE(is_status(unnamed_port, 503, "ServiceUnavailable")) << unnamed_port.body;
  EXPECT_EQ(status_message(unnamed_port), "no endpoints available for service \"web-svc:other\"");
}

TEST_F(ConnectTest, PodProxyReachesThePod) {
  ASSERT_FALSE(pod_ip_.empty()) << "this machine has no global unicast IPv4 address for a pod IP";
  auto proxied = call("POST", "/api/v1/namespaces/default/pods/web/proxy/submit", "payload");
  EXPECT_EQ(proxied.status, 200) << proxied.body;
  EXPECT_EQ(proxied.body, "pod server saw POST /submit\n");
}

TEST_F(ConnectTest, AKubeletThatIsDownIsAnErrorStatusAtOnce) {
  const auto start = std::chrono::steady_clock::now();
  auto logs = call("GET", "/api/v1/namespaces/default/pods/stranded/log");
  ASSERT_TRUE(is_status(logs, 500, "")) << logs.body;
  EXPECT_EQ(status_message(logs),
            "Get \"https://127.0.0.1:1/containerLogs/default/stranded/app\": dial tcp 127.0.0.1:1: connect: "
            "connection refused");

  auto exec = call("POST", "/api/v1/namespaces/default/pods/stranded/exec?command=ls&stdout=true", {},
                   {{"Connection", "Upgrade"}, {"Upgrade", "SPDY/3.1"}, {"X-Stream-Protocol-Version", "v4.channel.k8s.io"}});
  ASSERT_TRUE(is_status(exec, 500, "")) << exec.body;
  EXPECT_EQ(status_message(exec), "error dialing backend: dial tcp 127.0.0.1:1: connect: connection refused");
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
}

// A kubelet that accepts the connection and then says nothing is given --kubelet-timeout (2s here) to finish the
// TLS handshake, as Go's transport gives its TLSHandshakeTimeout.
TEST_F(ConnectTest, AKubeletThatHangsIsAnErrorStatusAfterTheKubeletTimeout) {
  const auto start = std::chrono::steady_clock::now();
  auto logs = call("GET", "/api/v1/namespaces/default/pods/hung/log");
  ASSERT_TRUE(is_status(logs, 500, "")) << logs.body;
  EXPECT_EQ(status_message(logs), "Get \"https://127.0.0.1:" + std::to_string(kubelet_->silent_port()) +
                                      "/containerLogs/default/hung/app\": net/http: TLS handshake timeout");
  auto exec = call("GET", "/api/v1/namespaces/default/pods/hung/exec?command=ls&stdout=true", {},
                   {{"Connection", "Upgrade"}, {"Upgrade", "websocket"}, {"Sec-WebSocket-Version", "13"},
                    {"Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="}, {"Sec-WebSocket-Protocol", "v5.channel.k8s.io"}});
  ASSERT_TRUE(is_status(exec, 500, "")) << exec.body;
  EXPECT_EQ(status_message(exec), "error dialing backend: net/http: TLS handshake timeout");
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_GT(took, 3500ms);  // two handshakes of 2 s each
  EXPECT_LT(took, 8s);
}

TEST_F(ConnectTest, DiscoveryListsTheConnectSubresources) {
  auto list = json_object(call("GET", "/api/v1").body);
  std::map<std::string, std::string> verbs;
  for (const auto& resource : list["resources"].as_array()) {
    const auto& entry = resource.as_object();
    verbs[std::string(entry.at("name").as_string())] =
        boost::json::serialize(entry.at("verbs")) + " " + std::string(entry.at("kind").as_string());
  }
  EXPECT_EQ(verbs["pods/log"], R"(["get"] Pod)");
  EXPECT_EQ(verbs["pods/exec"], R"(["create","get"] PodExecOptions)");
  EXPECT_EQ(verbs["pods/attach"], R"(["create","get"] PodAttachOptions)");
  EXPECT_EQ(verbs["pods/portforward"], R"(["create","get"] PodPortForwardOptions)");
  EXPECT_EQ(verbs["pods/proxy"], R"(["create","delete","get","patch","update"] PodProxyOptions)");
  EXPECT_EQ(verbs["nodes/proxy"], R"(["create","delete","get","patch","update"] NodeProxyOptions)");
  EXPECT_EQ(verbs["services/proxy"], R"(["create","delete","get","patch","update"] ServiceProxyOptions)");
}

}  // namespace
}  // namespace kapi::integration::connect_test
