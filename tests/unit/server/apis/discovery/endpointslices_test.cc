// discovery.k8s.io/v1 EndpointSlices as kube's registry keeps them: defaults, dropped deprecatedTopology, generation
// on label changes, ValidateEndpointSlice messages, printEndpointSlice, and the `kubernetes` slice.
#include "server/apis/discovery/discovery.h"
#include "tests/unit/server/apis/strategy_testing.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace kapi::apis::endpointslices_test {
namespace {

namespace json = boost::json;

using strategy_testing::parse;

using strategy_testing::messages;

TEST(EndpointSlicesTest, DefaultsAndTopology) {
  auto strategy = endpointslices().strategy;
  EXPECT_TRUE(endpointslices().definition.short_names.empty());
  json::object slice = parse(R"({"metadata":{"name":"s"},"addressType":"IPv4","ports":[{"port":80}],
    "endpoints":[{"addresses":["10.0.0.1"],"deprecatedTopology":{"kubernetes.io/hostname":"n1"}}]})");
  strategy->prepare_for_create(slice);
  EXPECT_EQ(slice["ports"], parse(R"({"a":[{"port":80,"name":"","protocol":"TCP"}]})")["a"]);
  EXPECT_FALSE(slice["endpoints"].as_array()[0].as_object().contains("deprecatedTopology"));
  EXPECT_EQ(messages(strategy->validate(slice)), "");
}

TEST(EndpointSlicesTest, LabelChangesBumpTheGeneration) {
  auto strategy = endpointslices().strategy;
  json::object old = parse(R"({"metadata":{"name":"s","generation":1},"addressType":"IPv4","endpoints":null,"ports":null})");
  json::object updated = parse(R"({"metadata":{"name":"s","generation":1,"labels":{"a":"b"}},"addressType":"IPv4"})");
  strategy->prepare_for_update(updated, old);
  EXPECT_EQ(updated["metadata"].as_object()["generation"], 2);
}

TEST(EndpointSlicesTest, ValidationAsKube) {
  auto strategy = endpointslices().strategy;
  json::object bad = parse(R"({"metadata":{"name":"s"},"addressType":"FQDN",
    "endpoints":[{"addresses":["nodots","a.b."],"hostname":"Host"}],
    "ports":[{"name":"","protocol":"TCP","appProtocol":"-bad"},{"name":"","protocol":"TCP"}]})");
  EXPECT_EQ(messages(strategy->validate(bad)),
            "endpoints[0].addresses[0]: Invalid value: \"nodots\": should be a domain with at least two segments "
            "separated by dots\n"
            "endpoints[0].hostname: Invalid value: \"Host\": a lowercase RFC 1123 label must consist of lower case "
            "alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  "
            "or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')\n"
            "ports[0].appProtocol: Invalid value: \"-bad\": name part must consist of alphanumeric characters, '-', "
            "'_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
            "'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')\n"
            "ports[1].name: Duplicate value: \"\"\n");
  json::array many;
  for (int i = 0; i < 1001; ++i) many.push_back(parse(R"({"addresses":["10.0.0.1"]})"));
  json::object too_many = parse(R"({"metadata":{"name":"s"},"addressType":"IP"})");
  too_many["endpoints"] = many;
  EXPECT_EQ(messages(strategy->validate(too_many)),
            "addressType: Unsupported value: \"IP\": supported values: \"FQDN\", \"IPv4\", \"IPv6\"\n"
            "endpoints: Too many: 1001: must have at most 1000 items\n");
}

TEST(EndpointSlicesTest, PrinterCells) {
  auto strategy = endpointslices().strategy;
  json::object slice = parse(R"({"metadata":{"name":"s"},"addressType":"IPv4",
    "ports":[{"port":80},{"name":"dns"},{},{"port":9}],
    "endpoints":[{"addresses":["10.0.0.1","10.0.0.2"]},{"addresses":["10.0.0.3","10.0.0.4"]}]})");
  json::array cells = strategy->table_cells(slice);
  EXPECT_EQ(cells[2], "80,dns,* + 1 more...");
  EXPECT_EQ(cells[3], "10.0.0.1,10.0.0.2,10.0.0.3 + 1 more...");
  EXPECT_EQ(strategy->table_cells(parse(R"({"metadata":{"name":"s"},"addressType":"IPv4"})"))[2], "<unset>");
}

TEST(EndpointSlicesTest, TheKubernetesSliceFollowsTheEndpoints) {
  json::object slice = kubernetes_endpoint_slice(parse(R"({"subsets":[{"addresses":[{"ip":"192.168.1.5"},
    {"ip":"192.168.1.6"}],"ports":[{"name":"https","port":6443,"protocol":"TCP"}]}]})"));
  EXPECT_EQ(slice["addressType"], "IPv4");
  EXPECT_EQ(slice["ports"], parse(R"({"a":[{"name":"https","protocol":"TCP","port":6443}]})")["a"]);
  EXPECT_EQ(slice["endpoints"], parse(R"({"a":[{"addresses":["192.168.1.5"],"conditions":{"ready":true}},
    {"addresses":["192.168.1.6"],"conditions":{"ready":true}}]})")["a"]);
  EXPECT_EQ(slice["metadata"].as_object()["labels"], parse(R"({"kubernetes.io/service-name":"kubernetes"})"));
  EXPECT_EQ(messages(endpointslices().strategy->validate(slice)), "");
}

}  // namespace
}  // namespace kapi::apis::endpointslices_test
