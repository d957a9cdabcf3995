// The aggregator end to end with the real kubectl: the local APIServices kapi keeps for its own group versions
// (and a CRD's), and a remote APIService in front of the sample extension API server (kapi-sample-apiserver),
// reached through a Service and Endpoints as kube-apiserver reaches it with --enable-aggregator-routing: proxied
// requests carry the user in X-Remote-* headers and the front-proxy client certificate, watches stream through,
// availability follows the backend, and a redirecting backend does not redirect the client.
#include "base/host_address.h"
#include "tests/integration/kapi_suite.h"
#include "tests/integration/kubectl_runner.h"
#include "tests/support/sample_apiserver_process.h"

#include <regex>
#include <thread>

namespace kapi::integration::aggregator_test {
namespace {

using namespace std::chrono_literals;
using test_support::SampleApiServerOptions;
using test_support::SampleApiServerProcess;


// The Service, Endpoints and APIService that put `sample` behind /apis/wardle.example.com/v1alpha1.
std::string backend_manifest(const std::string& namespace_, const std::string& address,
                             const SampleApiServerProcess& sample) {
  const std::string port = std::to_string(sample.port());
  return "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + namespace_ +
         "\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: api\n  namespace: " + namespace_ +
         "\nspec:\n  ports:\n  - name: https\n    port: 443\n    targetPort: " + port +
         "\n---\napiVersion: v1\nkind: Endpoints\nmetadata:\n  name: api\n  namespace: " + namespace_ +
         "\nsubsets:\n- addresses:\n  - ip: " + address + "\n  ports:\n  - name: https\n    port: " + port +
         "\n---\napiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata:\n  name: v1alpha1.wardle.example.com\n"
         "spec:\n  group: wardle.example.com\n  version: v1alpha1\n  groupPriorityMinimum: 1000\n  versionPriority: 15\n"
         "  service:\n    namespace: " + namespace_ + "\n    name: api\n    port: 443\n  caBundle: " +
         sample.ca_bundle_base64() + "\n";
}

class AggregatorTest : public KapiSuite<AggregatorTest> {
 protected:
  CommandResult kubectl(const std::string& arguments, int timeout_seconds = 60) {
    return run_kubectl(kapi(), arguments, timeout_seconds);
  }
  HttpResponse get(std::string_view target, std::vector<std::pair<std::string, std::string>> headers = {}) {
    return kapi().connect_admin().request("GET", target, headers, "");
  }
  // Polls `arguments` until its output is `want` (or `bound` passes); the last output.
  std::string await_output(const std::string& arguments, const std::string& want,
                           std::chrono::milliseconds bound = 20s) {
    const auto give_up = std::chrono::steady_clock::now() + bound;
    std::string output;
    while (std::chrono::steady_clock::now() < give_up) {
      output = kubectl(arguments).output;
      if (output == want) break;
      std::this_thread::sleep_for(200ms);
    }
    return output;
  }
  std::string available(const std::string& name) {
    return "get apiservice " + name + " -o 'jsonpath={.status.conditions[?(@.type==\"Available\")].status}'";
  }
  SampleApiServerOptions sample_options(const std::string& namespace_) {
    SampleApiServerOptions options;
    options.requestheader_client_ca_file = kapi().cert_dir() / "front-proxy-ca.crt";
    options.server_name = "api." + namespace_ + ".svc";
    // Every address: the Endpoints name the host's, the test's direct checks use loopback.
    options.extra_flags = {"--bind-address=0.0.0.0"};
    return options;
  }
  void register_backend(const std::string& namespace_, const SampleApiServerProcess& sample) {
    const std::string file = write_manifest(kapi(), namespace_ + ".yaml", backend_manifest(namespace_, address_, sample));
    CommandResult applied = kubectl("apply -f " + file);
    ASSERT_EQ(applied.exit_code, 0) << applied.output;
  }
  void unregister_backend(const std::string& namespace_) {
    kubectl("delete apiservice v1alpha1.wardle.example.com --ignore-not-found");
    kubectl("delete namespace " + namespace_ + " --wait=false --ignore-not-found");
  }

  void SetUp() override {
    KapiSuite::SetUp();
    ASSERT_TRUE(std::filesystem::exists("/usr/bin/kubectl")) << "kubectl is not installed (scripts/install-deps)";
    // Endpoints may not name a loopback address (kube's validation), so the backend is reached at the host's
    // own address, as a pod would be at its own.
    address_ = base::first_host_ipv4();
    ASSERT_FALSE(address_.empty()) << "the aggregator tests need a non-loopback IPv4 address for Endpoints";
  }

  std::string address_;
};

TEST_F(AggregatorTest, KeepsALocalApiServiceForEveryGroupVersionItServes) {
  EXPECT_EQ(await_output("get apiservice v1.apps -o 'jsonpath={.spec.groupPriorityMinimum}/{.spec.versionPriority}/"
                         "{.metadata.labels.kube-aggregator\\.kubernetes\\.io/automanaged}'",
                         "17800/15/onstart"),
            "17800/15/onstart");
  EXPECT_EQ(kubectl("get apiservice v1. -o jsonpath={.spec.groupPriorityMinimum}").output, "18000");
  CommandResult listed = kubectl("get apiservices");
  EXPECT_TRUE(std::regex_search(listed.output, std::regex("^NAME +SERVICE +AVAILABLE +AGE\n"))) << listed.output;
  EXPECT_TRUE(std::regex_search(listed.output, std::regex("\nv1\\.apps +Local +True +"))) << listed.output;
  EXPECT_TRUE(std::regex_search(listed.output, std::regex("\nv1\\.apiextensions\\.k8s\\.io +Local +True +")))
      << listed.output;
  // The aggregator's own group comes first in discovery.
  auto groups = json_object(get("/apis").body);
  ASSERT_TRUE(groups.contains("groups"));
  EXPECT_EQ(groups["groups"].as_array().at(0).at("name").as_string(), "apiregistration.k8s.io");
  auto group = json_object(get("/apis/apiregistration.k8s.io").body);
  EXPECT_EQ(group["preferredVersion"].at("groupVersion").as_string(), "apiregistration.k8s.io/v1");

  // A CRD's group version gets one, managed while the CRD is served.
  const std::string crd = write_manifest(kapi(), "gizmos.yaml", R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gizmos.tools.example.com
spec:
  group: tools.example.com
  scope: Namespaced
  names: {plural: gizmos, singular: gizmo, kind: Gizmo}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
)");
  ASSERT_EQ(kubectl("apply -f " + crd).exit_code, 0);
  EXPECT_EQ(await_output("get apiservice v1.tools.example.com -o 'jsonpath={.spec.groupPriorityMinimum}/"
                         "{.spec.versionPriority}/{.metadata.labels.kube-aggregator\\.kubernetes\\.io/automanaged}'",
                         "1000/100/true"),
            "1000/100/true");
  ASSERT_EQ(kubectl("delete crd gizmos.tools.example.com").exit_code, 0);
  EXPECT_EQ(await_output("get apiservice v1.tools.example.com --ignore-not-found -o name", ""), "");
}

TEST_F(AggregatorTest, ProxiesAnExtensionApiServerWithTheUsersIdentity) {
  SampleApiServerProcess sample(sample_options("wardle-system"));
  register_backend("wardle-system", sample);
  EXPECT_EQ(await_output(available("v1alpha1.wardle.example.com"), "True"), "True")
      << kubectl("get apiservice v1alpha1.wardle.example.com -o yaml").output;
  EXPECT_EQ(kubectl("get apiservice v1alpha1.wardle.example.com -o 'jsonpath={.status.conditions[0].reason}'").output,
            "Passed");
  CommandResult listed = kubectl("get apiservice v1alpha1.wardle.example.com");
  EXPECT_TRUE(std::regex_search(listed.output, std::regex("v1alpha1\\.wardle\\.example\\.com +wardle-system/api +True")))
      << listed.output;

  // kubectl finds the group in (aggregated) discovery and reads through the proxy.
  // Listed after kapi's own groups, with the backend's resources.
  const std::string groups = get("/apis").body;
  const auto wardle_at = groups.find(R"({"name":"wardle.example.com","versions":[{"groupVersion":"wardle.example.com/v1alpha1")");
  ASSERT_NE(wardle_at, std::string::npos) << groups;
  EXPECT_GT(wardle_at, groups.find(R"({"name":"apiextensions.k8s.io")")) << groups;
  CommandResult resources = kubectl("api-resources --api-group=wardle.example.com");
  EXPECT_TRUE(std::regex_search(resources.output,
                                std::regex("flunders +fl +wardle\\.example\\.com/v1alpha1 +true +Flunder")))
      << resources.output;
  CommandResult flunders = kubectl("get flunders");
  EXPECT_EQ(flunders.exit_code, 0) << flunders.output;
  EXPECT_TRUE(std::regex_search(flunders.output, std::regex("^NAME +AGE\nalpha +"))) << flunders.output;
  EXPECT_NE(flunders.output.find("\nbeta "), std::string::npos) << flunders.output;
  EXPECT_EQ(kubectl("get fl alpha -o jsonpath={.metadata.name}/{.kind}").output, "alpha/Flunder");
  // Its OpenAPI v3 document is kapi's too.
  CommandResult explained = kubectl("explain flunders.spec");
  EXPECT_NE(explained.output.find("KIND:       Flunder"), std::string::npos) << explained.output;
  EXPECT_NE(explained.output.find("referenceType\t<string>"), std::string::npos) << explained.output;
  // And its Swagger 2.0 definitions are merged into kapi's /openapi/v2.
  bool merged = false;
  for (auto give_up = std::chrono::steady_clock::now() + 10s; !merged && std::chrono::steady_clock::now() < give_up;) {
    merged = get("/openapi/v2").body.find(R"("com.example.wardle.v1alpha1.Flunder":)") != std::string::npos;
    if (!merged) std::this_thread::sleep_for(100ms);
  }
  EXPECT_TRUE(merged);
  CommandResult missing = kubectl("get flunder nope");
  EXPECT_NE(missing.output.find("Error from server (NotFound): flunders.wardle.example.com \"nope\" not found"),
            std::string::npos)
      << missing.output;

  // The backend saw the front proxy's certificate and kapi's idea of the user, not the client's headers.
  HttpResponse spoofed = get("/apis/wardle.example.com/v1alpha1/namespaces/default/flunders/alpha",
                             {{"X-Remote-User", "mallory"}, {"X-Remote-Group", "system:masters"}});
  EXPECT_EQ(spoofed.status, 200) << spoofed.body;
  auto seen = sample.requests_for("/apis/wardle.example.com/v1alpha1/namespaces/default/flunders/alpha");
  ASSERT_FALSE(seen.empty());
  const auto& last = seen.back();
  EXPECT_EQ(last.at("clientCN").as_string(), "front-proxy-client");
  EXPECT_EQ(last.at("protocol").as_string(), "HTTP/2.0");  // the backend offers h2, as kube's proxy would use it
  EXPECT_EQ(last.at("user").as_string(), "kapi-admin");
  EXPECT_EQ(boost::json::serialize(last.at("groups")), R"(["system:masters","system:authenticated"])");
  // Without the front-proxy certificate the backend trusts nobody.
  HttpResponse direct = test_support::HttpConnection(sample.port(), sample.tls())
                            .request("GET", "/apis/wardle.example.com/v1alpha1/flunders", {}, "");
  EXPECT_EQ(direct.status, 401) << direct.body;

  // A watch streams through: kubectl prints the objects and keeps watching until it is stopped.
  CommandResult watched = kubectl("get flunders -w", 4);
  EXPECT_EQ(watched.exit_code, 124) << watched.output;
  EXPECT_NE(watched.output.find("alpha"), std::string::npos) << watched.output;

  // Backend gone: Available turns False, and requests get 503 until it is back.
  sample.stop();
  EXPECT_EQ(await_output(available("v1alpha1.wardle.example.com"), "False"), "False");
  EXPECT_EQ(kubectl("get apiservice v1alpha1.wardle.example.com -o 'jsonpath={.status.conditions[0].reason}'").output,
            "FailedDiscoveryCheck");
  const std::string metrics = get("/metrics").body;
  EXPECT_NE(metrics.find("aggregator_unavailable_apiservice{name=\"v1alpha1.wardle.example.com\"} 1\n"),
            std::string::npos);
  EXPECT_NE(metrics.find("aggregator_unavailable_apiservice{name=\"v1.apps\"} 0\n"), std::string::npos);
  EXPECT_NE(metrics.find("aggregator_unavailable_apiservice_total{name=\"v1alpha1.wardle.example.com\","
                         "reason=\"FailedDiscoveryCheck\"} 1\n"),
            std::string::npos)
      << metrics.substr(metrics.find("aggregator_"), 2000);
  HttpResponse unavailable = get("/apis/wardle.example.com/v1alpha1/namespaces/default/flunders");
  // In kube's words and form: http.Error's plain text, which kubectl reports as ServiceUnavailable.
  EXPECT_EQ(unavailable.status, 503);
  EXPECT_EQ(unavailable.body, "service unavailable\n");
  CommandResult failing = kubectl("get flunders");
  EXPECT_NE(failing.exit_code, 0) << failing.output;
  EXPECT_NE(failing.output.find("Error from server (ServiceUnavailable)"), std::string::npos) << failing.output;
  // Discovery still lists the group version, as stale.
  HttpResponse aggregated =
      get("/apis", {{"Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"}});
  const std::string stale = R"({"version":"v1alpha1","resources":[)";
  EXPECT_NE(aggregated.body.find(stale), std::string::npos) << aggregated.body;
  EXPECT_NE(aggregated.body.find(R"("freshness":"Stale")"), std::string::npos) << aggregated.body;
  sample.restart();
  EXPECT_EQ(await_output(available("v1alpha1.wardle.example.com"), "True"), "True");
  EXPECT_EQ(kubectl("get fl beta -o jsonpath={.metadata.name}").output, "beta");

  unregister_backend("wardle-system");
  // Unregistered: its paths are kube's 404 again, and the group is gone from discovery.
  HttpResponse gone;
  for (auto give_up = std::chrono::steady_clock::now() + 10s; std::chrono::steady_clock::now() < give_up;) {
    gone = get("/apis/wardle.example.com/v1alpha1/namespaces/default/flunders");
    if (gone.status == 404) break;
    std::this_thread::sleep_for(100ms);
  }
  EXPECT_EQ(gone.status, 404) << gone.body;
  EXPECT_EQ(get("/apis").body.find("wardle.example.com"), std::string::npos);
}

TEST_F(AggregatorTest, AvailabilitySaysWhichCheckFailed) {
  auto condition = [this] {
    return kubectl("get apiservice v1beta1.gadgets.example.com -o "
                   "'jsonpath={.status.conditions[?(@.type==\"Available\")].reason}: "
                   "{.status.conditions[?(@.type==\"Available\")].message}'")
        .output;
  };
  auto await_condition = [&](const std::string& want) {
    std::string seen;
    for (auto give_up = std::chrono::steady_clock::now() + 15s; std::chrono::steady_clock::now() < give_up;) {
      seen = condition();
      if (seen == want) break;
      std::this_thread::sleep_for(200ms);
    }
    return seen;
  };
  const std::string apiservice = write_manifest(kapi(), "gadgets-apiservice.yaml", R"(apiVersion: v1
kind: Namespace
metadata:
  name: gadgets
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1beta1.gadgets.example.com}
spec:
  group: gadgets.example.com
  version: v1beta1
  groupPriorityMinimum: 1000
  versionPriority: 15
  service: {namespace: gadgets, name: api, port: 8443}
  insecureSkipTLSVerify: true
)");
  ASSERT_EQ(kubectl("apply -f " + apiservice).exit_code, 0);
  EXPECT_EQ(await_condition("ServiceNotFound: service/api in \"gadgets\" is not present"),
            "ServiceNotFound: service/api in \"gadgets\" is not present");
  HttpResponse refused = get("/apis/gadgets.example.com/v1beta1");
  EXPECT_EQ(refused.status, 503);
  EXPECT_EQ(refused.body, "service unavailable\n");

  const std::string service = write_manifest(kapi(), "gadgets-service.yaml", R"(apiVersion: v1
kind: Service
metadata: {name: api, namespace: gadgets}
spec:
  ports: [{name: https, port: 443, targetPort: 9443}]
)");
  ASSERT_EQ(kubectl("apply -f " + service).exit_code, 0);
  EXPECT_EQ(await_condition("ServicePortError: service/api in \"gadgets\" is not listening on port 8443"),
            "ServicePortError: service/api in \"gadgets\" is not listening on port 8443");
  ASSERT_EQ(kubectl("patch apiservice v1beta1.gadgets.example.com --type=merge -p '{\"spec\":{\"service\":{\"port\":443}}}'")
                .exit_code,
            0);
  EXPECT_EQ(await_condition("EndpointsNotFound: cannot find endpoints for service/api in \"gadgets\""),
            "EndpointsNotFound: cannot find endpoints for service/api in \"gadgets\"");
  const std::string endpoints = write_manifest(kapi(), "gadgets-endpoints.yaml", R"(apiVersion: v1
kind: Endpoints
metadata: {name: api, namespace: gadgets}
subsets:
- addresses: [{ip: 192.0.2.200}]
  ports: [{name: metrics, port: 9443}]
)");
  ASSERT_EQ(kubectl("apply -f " + endpoints).exit_code, 0);
  EXPECT_EQ(await_condition("MissingEndpoints: endpoints for service/api in \"gadgets\" have no addresses with port name \"https\""),
            "MissingEndpoints: endpoints for service/api in \"gadgets\" have no addresses with port name \"https\"");
  // Listed in discovery all the while, with nothing known of its resources.
  HttpResponse aggregated =
      get("/apis", {{"Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"}});
  EXPECT_NE(aggregated.body.find(R"({"metadata":{"name":"gadgets.example.com","creationTimestamp":null},)"
                                 R"("versions":[{"version":"v1beta1","resources":[],"freshness":"Stale"}]})"),
            std::string::npos)
      << aggregated.body;
  kubectl("delete apiservice v1beta1.gadgets.example.com");
  kubectl("delete namespace gadgets --wait=false");
}

TEST_F(AggregatorTest, ARedirectFromTheBackendIsNotPassedOn) {
  SampleApiServerOptions options = sample_options("wardle-redirect");
  options.redirect_resources = true;
  SampleApiServerProcess sample(options);
  register_backend("wardle-redirect", sample);
  EXPECT_EQ(await_output(available("v1alpha1.wardle.example.com"), "True"), "True");
  HttpResponse redirected = get("/apis/wardle.example.com/v1alpha1/namespaces/default/flunders");
  EXPECT_EQ(redirected.status, 502) << redirected.body;
  EXPECT_NE(redirected.body.find("the backend attempted to redirect this request, which is not permitted"),
            std::string::npos)
      << redirected.body;
  EXPECT_FALSE(redirected.header("Location").has_value());
  unregister_backend("wardle-redirect");
}

// A backend that offers only HTTP/1.1 is proxied over it, and a watch still streams through.
TEST_F(AggregatorTest, ABackendWithoutHttp2IsProxiedOverHttp11) {
  SampleApiServerOptions options = sample_options("wardle-http11");
  options.extra_flags.push_back("--disable-http2");
  SampleApiServerProcess sample(options);
  register_backend("wardle-http11", sample);
  EXPECT_EQ(await_output(available("v1alpha1.wardle.example.com"), "True"), "True");
  EXPECT_EQ(kubectl("get fl alpha -o jsonpath={.metadata.name}").output, "alpha");
  auto seen = sample.requests_for("/apis/wardle.example.com/v1alpha1/namespaces/default/flunders/alpha");
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.back().at("protocol").as_string(), "HTTP/1.1");
  CommandResult watched = kubectl("get flunders -w", 4);
  EXPECT_EQ(watched.exit_code, 124) << watched.output;
  EXPECT_NE(watched.output.find("alpha"), std::string::npos) << watched.output;
  unregister_backend("wardle-http11");
}

}  // namespace
}  // namespace kapi::integration::aggregator_test
