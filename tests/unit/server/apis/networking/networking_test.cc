// networking.k8s.io/v1 as kube's registry keeps it: definitions, defaults, ValidateIngress*, ValidateIngressClass*,
// ValidateNetworkPolicy messages and the printers' cells.
#include "server/apis/networking/networking.h"
#include "server/validation/domain_names.h"
#include "tests/unit/server/apis/strategy_testing.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace kapi::apis::networking_test {
namespace {

namespace json = boost::json;

using strategy_testing::parse;

using strategy_testing::messages;

std::string ingress(std::string_view spec) {
  return R"({"metadata":{"name":"i","namespace":"default"},"spec":)" + std::string(spec) + "}";
}

TEST(NetworkingTest, ServedAsKubeNamesThem) {
  EXPECT_EQ(ingresses().definition.short_names, (std::vector<std::string>{"ing"}));
  EXPECT_EQ(ingresses().definition.subresources, (std::vector<std::string>{"status"}));
  EXPECT_TRUE(ingresses().strategy->tracks_generation());
  EXPECT_FALSE(ingressclasses().definition.namespaced);
  EXPECT_EQ(networkpolicies().definition.short_names, (std::vector<std::string>{"netpol"}));
  EXPECT_EQ(networkpolicies().definition.qualified_resource(), "networkpolicies.networking.k8s.io");
}

TEST(NetworkingTest, IngressAcceptsKubectlsAndHelmsShapes) {
  auto strategy = ingresses().strategy;
  EXPECT_EQ(messages(strategy->validate(parse(ingress(R"({"rules":[{"host":"foo.com","http":{"paths":[
    {"path":"/bar","pathType":"Exact","backend":{"service":{"name":"svc1","port":{"number":8080}}}}]}}]})")))), "");
  EXPECT_EQ(messages(strategy->validate(parse(ingress(R"({"ingressClassName":"nginx","rules":[{"host":"*.example.com",
    "http":{"paths":[{"path":"/","pathType":"ImplementationSpecific",
    "backend":{"service":{"name":"release-mychart","port":{"name":"http"}}}}]}}],
    "tls":[{"hosts":["*.example.com"],"secretName":"tls"}]})")))), "");
  EXPECT_EQ(messages(strategy->validate(parse(ingress(R"({"defaultBackend":{"resource":{"apiGroup":"k8s.example.com","kind":"StorageBucket","name":"static"}}})")))), "");
}

TEST(NetworkingTest, IngressErrorsAsKube) {
  auto strategy = ingresses().strategy;
  EXPECT_EQ(messages(strategy->validate(parse(ingress(R"({"rules":[{"host":"1.2.3.4","http":{"paths":[
    {"path":"/a//b","pathType":"Prefix","backend":{"service":{"name":"Svc","port":{"number":80,"name":"x"}}}},
    {"path":"/","pathType":"Exact","backend":{"service":{"name":"s","port":{"number":70000}},
      "resource":{"kind":"K","name":"n"}}},
    {"path":"/c/.","pathType":"Exact","backend":{}}]}}]})")))),
            "spec.rules[0].host: Invalid value: \"1.2.3.4\": must be a DNS name, not an IP address\n"
            "spec.rules[0].http.paths[0].path: Invalid value: \"/a//b\": must not contain '//'\n"
            "spec.rules[0].http.paths[0].backend.service.name: Invalid value: \"Svc\": a DNS-1035 label must consist "
            "of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an "
            "alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is "
            "'[a-z]([-a-z0-9]*[a-z0-9])?')\n"
            "spec.rules[0].http.paths[0].backend: Invalid value: \"\": cannot set both port name & port number\n"
            "spec.rules[0].http.paths[1].backend: Invalid value: \"\": cannot set both resource and service backends\n"
            "spec.rules[0].http.paths[2].path: Invalid value: \"/c/.\": cannot end with '/.'\n"
            "spec.rules[0].http.paths[2].backend: Invalid value: \"\": resource or service backend is required\n");
  json::object mismatched = parse(ingress(R"({"ingressClassName":"a","defaultBackend":{"service":{"name":"s","port":{"number":80}}}})"));
  mismatched["metadata"].as_object()["annotations"] = parse(R"({"kubernetes.io/ingress.class":"b"})");
  EXPECT_EQ(messages(strategy->validate(mismatched)),
            "annotations.kubernetes.io/ingress.class: Invalid value: \"b\": must match `ingressClassName` when both "
            "are specified\n");
  // Updates may keep what is stored: the annotation check is create-only.
  EXPECT_EQ(messages(strategy->validate_update(mismatched, mismatched)), "");
}

TEST(NetworkingTest, IngressStatusResetOnCreateAndDeprecatedAnnotationWarns) {
  auto strategy = ingresses().strategy;
  json::object object = parse(ingress(R"({"defaultBackend":{"service":{"name":"s","port":{"number":80}}}})"));
  object["status"] = parse(R"({"loadBalancer":{"ingress":[{"ip":"1.2.3.4"}]}})");
  object["metadata"].as_object()["annotations"] = parse(R"({"kubernetes.io/ingress.class":"nginx"})");
  strategy->prepare_for_create(object);
  EXPECT_EQ(object["status"], parse(R"({"loadBalancer":{}})"));
  EXPECT_EQ(strategy->write_warnings(object),
            (std::vector<std::string>{"annotation \"kubernetes.io/ingress.class\" is deprecated, please use 'spec.ingressClassName' instead"}));
}

TEST(NetworkingTest, IngressStatusWritesAreChecked) {
  auto strategy = ingresses().strategy;
  json::object old = parse(ingress(R"({"defaultBackend":{"service":{"name":"s","port":{"number":80}}}})"));
  json::object updated = old;
  updated["status"] = parse(R"({"loadBalancer":{"ingress":[{"ip":"10.0.0.300"},{"hostname":"10.0.0.1"}]}})");
  EXPECT_EQ(messages(strategy->validate_update(updated, old)),
            "status.loadBalancer.ingress[0].ip: Invalid value: \"10.0.0.300\": must be a valid IP address\n"
            "status.loadBalancer.ingress[1].hostname: Invalid value: \"10.0.0.1\": must be a DNS name, not an IP address\n");
}

TEST(NetworkingTest, IngressPrinterCells) {
  auto strategy = ingresses().strategy;
  json::object object = parse(ingress(R"({"tls":[{"hosts":["a.com"]}],"rules":[{"host":"a.com"},{"host":"b.com"},{},{"host":"c.com"},{"host":"d.com"}]})"));
  object["status"] = parse(R"({"loadBalancer":{"ingress":[{"ip":"10.0.0.2"},{"hostname":"lb.example.com"},{"ip":"10.0.0.2"}]}})");
  json::array cells = strategy->table_cells(object);
  EXPECT_EQ(cells[1], "<none>");
  EXPECT_EQ(cells[2], "a.com,b.com,c.com + 2 more...");
  EXPECT_EQ(cells[3], "10.0.0.2,lb.example.com");
  EXPECT_EQ(cells[4], "80, 443");
}

TEST(NetworkingTest, IngressClassDefaultsAndRules) {
  auto strategy = ingressclasses().strategy;
  json::object object = parse(R"({"metadata":{"name":"c"},"spec":{"controller":"example.com/ctl","parameters":{"kind":"K","name":"n"}}})");
  strategy->prepare_for_create(object);
  EXPECT_EQ(object["spec"].as_object()["parameters"].as_object()["scope"], "Cluster");
  EXPECT_EQ(messages(strategy->validate(object)), "");
  json::object bad = parse(R"({"metadata":{"name":"c"},"spec":{"controller":"nodomain","parameters":{"kind":"a/b","name":"n","scope":"Namespace"}}})");
  EXPECT_EQ(messages(strategy->validate(bad)),
            "spec.controller: Invalid value: \"nodomain\": must be a domain-prefixed path (such as \"acme.io/foo\")\n"
            "spec.parameters.kind: Invalid value: \"a/b\": may not contain '/'\n"
            "spec.parameters.namespace: Required value: `parameters.scope` is set to 'Namespace'\n");
  json::object changed = object;
  changed["spec"].as_object()["controller"] = "example.com/other";
  EXPECT_EQ(messages(strategy->validate_update(changed, object)),
            "spec.controller: Invalid value: \"example.com/other\": field is immutable\n");
}

TEST(NetworkingTest, DomainPrefixedPathAndWildcardHosts) {
  EXPECT_EQ(messages(validation::is_domain_prefixed_path(validation::Path("p"), "Example.com/a b")),
            "p: Invalid value: \"Example.com\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
            "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "
            "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\n"
            "p: Invalid value: \"a b\": Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')\n");
  EXPECT_TRUE(validation::is_wildcard_dns1123_subdomain("*.foo.example.com").empty());
  EXPECT_EQ(validation::is_wildcard_dns1123_subdomain("foo.*.com").size(), 1u);
}

TEST(NetworkingTest, NetworkPolicyDefaultsRulesAndPrinter) {
  auto strategy = networkpolicies().strategy;
  json::object policy = parse(R"({"metadata":{"name":"p","namespace":"default"},"spec":{"podSelector":{},
    "egress":[{"ports":[{"port":53,"protocol":"UDP"},{"port":"dns"}]}]}})");
  strategy->prepare_for_create(policy);
  const auto& spec = policy["spec"].as_object();
  EXPECT_EQ(spec.at("policyTypes"), json::array({"Ingress", "Egress"}));
  EXPECT_EQ(spec.at("egress").at(0).at("ports").at(1).at("protocol"), "TCP");
  EXPECT_EQ(messages(strategy->validate(policy)), "");
  EXPECT_EQ(strategy->table_cells(policy)[1], "<none>");

  json::object bad = parse(R"({"metadata":{"name":"p"},"spec":{"podSelector":{"matchExpressions":[{"key":"a","operator":"In"}]},
    "ingress":[{"ports":[{"protocol":"ICMP","port":"dns","endPort":60}],
                "from":[{"podSelector":{},"ipBlock":{"cidr":"10.0.0.0/33"}}]}],
    "policyTypes":["Ingress","Sideways"]}})");
  EXPECT_EQ(messages(strategy->validate(bad)),
            "spec.podSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'\n"
            "spec.ingress[0].ports[0].protocol: Unsupported value: \"ICMP\": supported values: \"TCP\", \"UDP\", \"SCTP\"\n"
            "spec.ingress[0].ports[0].endPort: Invalid value: 60: may not be specified when `port` is non-numeric\n"
            "spec.ingress[0].from[0].ipBlock.cidr: Invalid value: \"10.0.0.0/33\": must be a valid CIDR value, (e.g. "
            "10.9.8.0/24 or 2001:db8::/64)\n"
            "spec.ingress[0].from[0]: Forbidden: may not specify both ipBlock and another peer\n"
            "spec.policyTypes[1]: Unsupported value: \"Sideways\": supported values: \"Ingress\", \"Egress\"\n");
  json::object three = parse(R"({"metadata":{"name":"p"},"spec":{"podSelector":{},"policyTypes":["Ingress","Egress","Ingress"]}})");
  EXPECT_EQ(messages(strategy->validate(three)),
            "spec.policyTypes: Invalid value: []networking.PolicyType{\"Ingress\", \"Egress\", \"Ingress\"}: may not "
            "specify more than two policyTypes\n");
  json::object selected = parse(R"({"metadata":{"name":"p"},"spec":{"podSelector":{"matchLabels":{"role":"db"}}}})");
  EXPECT_EQ(strategy->table_cells(selected)[1], "role=db");
}

}  // namespace
}  // namespace kapi::apis::networking_test
