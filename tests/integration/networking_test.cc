// networking.k8s.io/v1 and discovery.k8s.io/v1 through the real kubectl 1.32 on both stores: Ingresses (kubectl
// create ingress, the `helm create` chart's ingress, status, generation, 422 causes), IngressClasses,
// NetworkPolicies and EndpointSlices (create, get, -o wide, list, watch, apply, replace, patch, delete), and the
// `kubernetes` EndpointSlice kube-apiserver keeps.
#include "tests/integration/kapi_suite.h"
#include "tests/integration/kubectl_runner.h"

#include <filesystem>
#include <regex>

namespace kapi::integration::networking_test {
namespace {

using Headers = std::vector<std::pair<std::string, std::string>>;
const Headers kJson{{"Content-Type", "application/json"}};

class NetworkingTest : public KapiSuite<NetworkingTest> {
 protected:
  CommandResult kubectl(const std::string& arguments, int timeout_seconds = 60) {
    return run_kubectl(kapi(), arguments, timeout_seconds);
  }
  HttpResponse call(std::string_view method, std::string_view target, std::string_view body = {},
                    const Headers& headers = kJson) {
    return kapi().connect_admin().request(method, target, headers, body);
  }
  std::string apply(const std::string& name, const std::string& manifest) {
    return kubectl("apply -f " + write_manifest(kapi(), name, manifest)).output;
  }

  void SetUp() override {
    KapiSuite::SetUp();
    ASSERT_TRUE(std::filesystem::exists("/usr/bin/kubectl")) << "kubectl is not installed (scripts/install-deps)";
  }
};

bool has_line(const std::string& output, const std::string& pattern) {
  return std::regex_search(output, std::regex(pattern));
}

TEST_F(NetworkingTest, DiscoveryListsTheResourcesAsKubeDoes) {
  CommandResult listed = kubectl("api-resources --api-group=networking.k8s.io -o wide");
  EXPECT_TRUE(has_line(listed.output, "ingressclasses +networking.k8s.io/v1 +false +IngressClass +create,delete,deletecollection,get,list,patch,update,watch"))
      << listed.output;
  EXPECT_TRUE(has_line(listed.output, "ingresses +ing +networking.k8s.io/v1 +true +Ingress +create,delete,deletecollection,get,list,patch,update,watch"))
      << listed.output;
  EXPECT_TRUE(has_line(listed.output, "networkpolicies +netpol +networking.k8s.io/v1 +true +NetworkPolicy"))
      << listed.output;
  // The OpenAPI documents derive from the types: kubectl explain reads them.
  CommandResult explained = kubectl("explain ingress.spec.ingressClassName");
  EXPECT_NE(explained.output.find("FIELD: ingressClassName <string>"), std::string::npos) << explained.output;
  CommandResult slices = kubectl("api-resources --api-group=discovery.k8s.io -o wide");
  EXPECT_TRUE(has_line(slices.output, "endpointslices +discovery.k8s.io/v1 +true +EndpointSlice +create,delete,deletecollection,get,list,patch,update,watch"))
      << slices.output;
}

TEST_F(NetworkingTest, KubectlCreateIngressAndItsLifecycle) {
  CommandResult created = kubectl("create ingress simple --rule=foo.com/bar=svc1:8080");
  ASSERT_EQ(created.output, "ingress.networking.k8s.io/simple created\n");
  EXPECT_EQ(kubectl("get ing simple -o jsonpath={.spec.rules[0].http.paths[0].pathType}/{.spec.rules[0].http.paths[0].backend.service.port.number}/{.metadata.generation}").output,
            "Exact/8080/1");
  // Go writes the reset status as its zero struct.
  EXPECT_EQ(kubectl("get ing simple -o jsonpath={.status}").output, R"({"loadBalancer":{}})");
  CommandResult listed = kubectl("get ingress");
  EXPECT_TRUE(has_line(listed.output, "^NAME +CLASS +HOSTS +ADDRESS +PORTS +AGE\n")) << listed.output;
  EXPECT_TRUE(has_line(listed.output, "\nsimple +<none> +foo.com +80 +[0-9]+s\n")) << listed.output;
  EXPECT_TRUE(has_line(kubectl("get ing -o wide").output, "simple +<none> +foo.com +80")) << "wide";

  // A spec change bumps the generation; status goes through /status only.
  kubectl("patch ing simple --type=json -p '[{\"op\":\"replace\",\"path\":\"/spec/rules/0/host\",\"value\":\"bar.com\"}]'");
  EXPECT_EQ(kubectl("get ing simple -o jsonpath={.spec.rules[0].host}/{.metadata.generation}").output, "bar.com/2");
  kubectl("patch ing simple --type=merge -p '{\"status\":{\"loadBalancer\":{\"ingress\":[{\"ip\":\"10.0.0.9\"}]}}}'");
  EXPECT_EQ(kubectl("get ing simple -o jsonpath={.status.loadBalancer.ingress}").output, "");
  CommandResult status = kubectl(
      "patch ing simple --subresource=status --type=merge -p '{\"status\":{\"loadBalancer\":{\"ingress\":[{\"ip\":\"10.0.0.9\"}]}}}'");
  EXPECT_EQ(kubectl("get ing simple -o jsonpath={.status.loadBalancer.ingress[0].ip}/{.metadata.generation}").output,
            "10.0.0.9/2")
      << status.output;
  EXPECT_TRUE(has_line(kubectl("get ing simple").output, "simple +<none> +bar.com +10.0.0.9 +80 ")) << "address";
  CommandResult bad_status = kubectl(
      "patch ing simple --subresource=status --type=merge -p '{\"status\":{\"loadBalancer\":{\"ingress\":[{\"ip\":\"lb\"}]}}}'");
  EXPECT_NE(bad_status.output.find("status.loadBalancer.ingress[0].ip: Invalid value: \"lb\": must be a valid IP address"),
            std::string::npos)
      << bad_status.output;

  // A bounded watch shows the object (kubectl lists, then watches until the time bound ends it).
  CommandResult watched = kubectl("get ing simple -w --output-watch-events", 4);
  EXPECT_EQ(watched.exit_code, 124) << watched.output;
  EXPECT_TRUE(has_line(watched.output, "ADDED +simple +<none> +bar.com")) << watched.output;

  EXPECT_EQ(kubectl("delete ing simple").output, "ingress.networking.k8s.io \"simple\" deleted\n");
  EXPECT_NE(kubectl("get ing simple").output.find("NotFound"), std::string::npos);
}

// templates/ingress.yaml of `helm create` (Helm 3), rendered with ingress.enabled=true and its default values.
TEST_F(NetworkingTest, HelmCreateChartIngressIsAccepted) {
  const std::string manifest = R"(apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: chart-example
  labels:
    app.kubernetes.io/name: mychart
    app.kubernetes.io/instance: release
spec:
  ingressClassName: nginx
  rules:
    - host: "chart-example.local"
      http:
        paths:
          - path: /
            pathType: ImplementationSpecific
            backend:
              service:
                name: release-mychart
                port:
                  number: 80
)";
  EXPECT_EQ(apply("helm-ingress.yaml", manifest), "ingress.networking.k8s.io/chart-example created\n");
  EXPECT_TRUE(has_line(kubectl("get ing chart-example").output, "chart-example +nginx +chart-example.local +80 "));
  EXPECT_EQ(apply("helm-ingress.yaml", manifest), "ingress.networking.k8s.io/chart-example unchanged\n");
  EXPECT_EQ(kubectl("delete ing chart-example").exit_code, 0);
}

// The real `helm create` chart, installed by the real helm with its ingress enabled (className empty, pathType
// ImplementationSpecific, backend.service.port.number): kapi accepts what kube accepts.
TEST_F(NetworkingTest, InvalidIngressGetsKubesCauses) {
  HttpResponse refused = call("POST", "/apis/networking.k8s.io/v1/namespaces/default/ingresses", R"({
    "apiVersion":"networking.k8s.io/v1","kind":"Ingress","metadata":{"name":"bad"},
    "spec":{"rules":[{"host":"*.*.example.com","http":{"paths":[
      {"path":"relative","pathType":"Prefix","backend":{"service":{"name":"svc","port":{"number":80}}}},
      {"path":"/x","pathType":"Weird","backend":{"service":{"name":"svc"}}},
      {"path":"/y","backend":{"service":{"name":"svc","port":{"number":80}}}}]}}]}})");
  ASSERT_TRUE(is_status(refused, 422, "Invalid")) << refused.body;
  EXPECT_EQ(status_causes(refused),
            "spec.rules[0].host: FieldValueInvalid: Invalid value: \"*.*.example.com\": a wildcard DNS-1123 subdomain "
            "must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric "
            "characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for "
            "validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\n"
            "spec.rules[0].http.paths[0].path: FieldValueInvalid: Invalid value: \"relative\": must be an absolute path\n"
            "spec.rules[0].http.paths[1].pathType: FieldValueNotSupported: Unsupported value: \"Weird\": supported "
            "values: \"Exact\", \"ImplementationSpecific\", \"Prefix\"\n"
            "spec.rules[0].http.paths[1].backend: FieldValueRequired: Required value: port name or number is required\n"
            "spec.rules[0].http.paths[2].pathType: FieldValueRequired: Required value: pathType must be specified\n");
  HttpResponse empty = call("POST", "/apis/networking.k8s.io/v1/namespaces/default/ingresses",
                            R"({"apiVersion":"networking.k8s.io/v1","kind":"Ingress","metadata":{"name":"empty"},"spec":{}})");
  ASSERT_TRUE(is_status(empty, 422, "Invalid")) << empty.body;
  EXPECT_EQ(status_causes(empty), "spec: FieldValueInvalid: Invalid value: []networking.IngressRule(nil): either `defaultBackend` or `rules` must be specified\n");
}

TEST_F(NetworkingTest, IngressClassesAndNetworkPolicies) {
  EXPECT_EQ(apply("class.yaml", R"(apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: nginx
spec:
  controller: k8s.io/ingress-nginx
  parameters:
    apiGroup: k8s.example.com
    kind: IngressParameters
    name: external-lb
)"),
            "ingressclass.networking.k8s.io/nginx created\n");
  EXPECT_EQ(kubectl("get ingressclass nginx -o jsonpath={.spec.parameters.scope}").output, "Cluster");
  CommandResult classes = kubectl("get ingressclasses -o wide");
  EXPECT_TRUE(has_line(classes.output, "^NAME +CONTROLLER +PARAMETERS +AGE\n")) << classes.output;
  EXPECT_TRUE(has_line(classes.output, "nginx +k8s.io/ingress-nginx +IngressParameters.k8s.example.com/external-lb +"))
      << classes.output;
  CommandResult immutable = kubectl("patch ingressclass nginx --type=merge -p '{\"spec\":{\"controller\":\"example.com/other\"}}'");
  EXPECT_NE(immutable.output.find("spec.controller: Invalid value: \"example.com/other\": field is immutable"),
            std::string::npos)
      << immutable.output;
  EXPECT_EQ(kubectl("delete ingressclass nginx").exit_code, 0);

  EXPECT_EQ(apply("netpol.yaml", R"(apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: db
spec:
  podSelector:
    matchLabels:
      role: db
  egress:
  - to:
    - ipBlock:
        cidr: 10.0.0.0/24
        except: [10.0.0.128/25]
    ports:
    - port: 5978
)"),
            "networkpolicy.networking.k8s.io/db created\n");
  EXPECT_EQ(kubectl("get netpol db -o jsonpath={.spec.policyTypes}/{.spec.egress[0].ports[0].protocol}").output,
            "[\"Ingress\",\"Egress\"]/TCP");
  CommandResult policies = kubectl("get networkpolicies");
  EXPECT_TRUE(has_line(policies.output, "^NAME +POD-SELECTOR +AGE\ndb +role=db +")) << policies.output;
  kubectl("patch netpol db --type=merge -p '{\"spec\":{\"podSelector\":{\"matchLabels\":{\"role\":\"cache\"}}}}'");
  EXPECT_EQ(kubectl("get netpol db -o jsonpath={.spec.podSelector.matchLabels.role}/{.metadata.generation}").output, "cache/2");
  HttpResponse invalid = call("POST", "/apis/networking.k8s.io/v1/namespaces/default/networkpolicies", R"({
    "apiVersion":"networking.k8s.io/v1","kind":"NetworkPolicy","metadata":{"name":"bad"},
    "spec":{"podSelector":{},"ingress":[{"from":[{}],"ports":[{"port":80,"endPort":70}]}],
            "egress":[{"to":[{"ipBlock":{"cidr":"10.0.0.0/24","except":["10.1.0.0/25"]}}]}]}})");
  ASSERT_TRUE(is_status(invalid, 422, "Invalid")) << invalid.body;
  EXPECT_EQ(status_causes(invalid),
            "spec.ingress[0].ports[0].endPort: FieldValueInvalid: Invalid value: 70: must be greater than or equal to `port`\n"
            "spec.ingress[0].from[0]: FieldValueRequired: Required value: must specify a peer\n"
            "spec.egress[0].to[0].ipBlock.except[0]: FieldValueInvalid: Invalid value: \"10.1.0.0/25\": must be a strict subset of `cidr`\n");
  EXPECT_EQ(kubectl("delete netpol db").exit_code, 0);
}

TEST_F(NetworkingTest, EndpointSlicesThroughKubectl) {
  const std::string manifest = R"(apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: web-abc
  labels:
    kubernetes.io/service-name: web
addressType: IPv4
ports:
- name: http
  port: 80
endpoints:
- addresses: ["10.1.2.3"]
  conditions:
    ready: true
- addresses: ["10.1.2.4"]
)";
  EXPECT_EQ(apply("slice.yaml", manifest), "endpointslice.discovery.k8s.io/web-abc created\n");
  EXPECT_EQ(kubectl("get endpointslice web-abc -o jsonpath={.ports[0].protocol}/{.metadata.generation}").output, "TCP/1");
  CommandResult listed = kubectl("get endpointslices -o wide");
  EXPECT_TRUE(has_line(listed.output, "^NAME +ADDRESSTYPE +PORTS +ENDPOINTS +AGE\n")) << listed.output;
  EXPECT_TRUE(has_line(listed.output, "\nweb-abc +IPv4 +80 +10.1.2.3,10.1.2.4 +")) << listed.output;
  kubectl("label endpointslice web-abc extra=yes");
  EXPECT_EQ(kubectl("get endpointslice web-abc -o jsonpath={.metadata.generation}").output, "2");
  CommandResult replaced = kubectl("replace -f " + write_manifest(kapi(), "slice2.yaml", manifest + "  hostname: pod-b\n"));
  EXPECT_EQ(replaced.output, "endpointslice.discovery.k8s.io/web-abc replaced\n");
  EXPECT_EQ(kubectl("get endpointslice web-abc -o jsonpath={.endpoints[1].hostname}/{.metadata.generation}").output,
            "pod-b/3");
  CommandResult immutable = kubectl("patch endpointslice web-abc --type=merge -p '{\"addressType\":\"FQDN\"}'");
  EXPECT_NE(immutable.output.find("addressType: Invalid value: \"FQDN\": field is immutable"), std::string::npos)
      << immutable.output;
  HttpResponse invalid = call("POST", "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices", R"({
    "apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","metadata":{"name":"bad"},"addressType":"IPv4",
    "endpoints":[{"addresses":["fe80::1"]},{"addresses":[]}],
    "ports":[{"name":"Http","port":80},{"name":"Http","protocol":"ICMP"}]})");
  ASSERT_TRUE(is_status(invalid, 422, "Invalid")) << invalid.body;
  EXPECT_EQ(status_causes(invalid),
            "endpoints[0].addresses[0]: FieldValueInvalid: Invalid value: \"fe80::1\": must be a valid IPv4 address\n"
            "endpoints[0].addresses[0]: FieldValueInvalid: Invalid value: \"fe80::1\": may not be in the link-local range (169.254.0.0/16, fe80::/10)\n"
            "endpoints[1].addresses: FieldValueRequired: Required value: must contain at least 1 address\n"
            "ports[0].name: FieldValueInvalid: Invalid value: \"Http\": a lowercase RFC 1123 label must consist of "
            "lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. "
            "'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')\n"
            "ports[1].name: FieldValueInvalid: Invalid value: \"Http\": a lowercase RFC 1123 label must consist of "
            "lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. "
            "'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')\n"
            "ports[1].name: FieldValueDuplicate: Duplicate value: \"Http\"\n"
            "ports[1].protocol: FieldValueNotSupported: Unsupported value: \"ICMP\": supported values: \"SCTP\", \"TCP\", \"UDP\"\n");
  EXPECT_EQ(kubectl("delete endpointslice web-abc").exit_code, 0);
  // endpoints and ports have no omitempty: an empty slice writes them as null.
  HttpResponse empty = call("POST", "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices",
                            R"({"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","metadata":{"name":"empty"},"addressType":"FQDN"})");
  ASSERT_EQ(empty.status, 201) << empty.body;
  EXPECT_NE(empty.body.find(R"("endpoints":null,"ports":null)"), std::string::npos) << empty.body;
}

TEST_F(NetworkingTest, KubernetesServiceHasItsEndpointSlice) {
  std::string found;
  for (int attempt = 0; attempt < 100 && found.empty(); ++attempt)
    if (CommandResult got = kubectl("get endpointslice kubernetes -n default -o 'jsonpath={.addressType}/{.ports[0].name}/{.metadata.labels.kubernetes\\.io/service-name}/{.endpoints[0].conditions.ready}'");
        got.exit_code == 0)
      found = got.output;
  EXPECT_EQ(found, "IPv4/https/kubernetes/true");
}

}  // namespace
}  // namespace kapi::integration::networking_test
