// Two kapi servers on one etcd hand out service cluster IPs and node ports from kube's stored ranges
// (/registry/ranges/serviceips and /registry/ranges/servicenodeports, RangeAllocation objects changed by
// compare-and-swap): services created through both at once never share a value, a value taken through one is
// refused through the other, and a deleted service's values are free again on both.
#include "tests/integration/kapi_suite.h"

#include "tests/support/etcd_process.h"
#include "tests/support/temp_dir.h"

#include <set>
#include <thread>

namespace kapi::integration::service_ranges_test {
namespace {

namespace json = boost::json;

using Headers = std::vector<std::pair<std::string, std::string>>;
const Headers kJson{{"Content-Type", "application/json"}};

std::string node_port_service(std::string_view name, std::string_view cluster_ip = "") {
  json::object spec{{"type", "NodePort"}, {"ports", json::array{json::object{{"port", 80}}}}};
  if (!cluster_ip.empty()) spec["clusterIP"] = cluster_ip;
  return json::serialize(json::object{{"apiVersion", "v1"},
                                      {"kind", "Service"},
                                      {"metadata", json::object{{"name", name}}},
                                      {"spec", std::move(spec)}});
}

TEST(SharedServiceRangesTest, TwoServersOnOneEtcdNeverHandOutOneValueTwice) {
  test_support::EtcdProcess etcd;
  test_support::TempDir shared("kapi-service-ranges");  // one PKI, as a control plane's servers share
  const KapiOptions options{.extra_flags = {"--etcd-servers=" + etcd.endpoint()}, .data_dir = shared.path() / "data"};
  KapiProcess first(options);
  KapiProcess second(options);
  const std::string services = "/api/v1/namespaces/default/services";

  // 200 NodePort services at once: two clients through each server, 50 each.
  constexpr int kClients = 4, kEach = 50;
  std::vector<std::string> values[kClients];
  std::vector<std::thread> clients;
  for (int client = 0; client < kClients; ++client) {
    clients.emplace_back([&, client] {
      auto connection = (client % 2 == 0 ? first : second).connect_admin();
      for (int i = 0; i < kEach; ++i) {
        const std::string name = "s" + std::to_string(client) + "-" + std::to_string(i);
        HttpResponse created = connection.request("POST", services, kJson, node_port_service(name));
        if (created.status != 201) {
          values[client].push_back("failed: " + created.body);
          continue;
        }
        const json::object spec = json::parse(created.body).at("spec").as_object();
        values[client].push_back(std::string(spec.at("clusterIP").as_string()));
        values[client].push_back(json::serialize(spec.at("ports").at(0).at("nodePort")));
      }
    });
  }
  for (auto& client : clients) client.join();
  std::set<std::string> distinct;
  std::string all;
  for (const auto& list : values) {
    distinct.insert(list.begin(), list.end());
    all += json::serialize(json::value_from(list)) + "\n";
  }
  EXPECT_EQ(distinct.size(), 2u * kClients * kEach) << all;

  // Both ranges are kube's RangeAllocation objects in etcd (in protobuf, kube's default storage form).
  const std::string ranges = etcd.etcdctl("get --prefix /registry/ranges/");
  EXPECT_NE(ranges.find("/registry/ranges/serviceips"), std::string::npos) << ranges;
  EXPECT_NE(ranges.find("/registry/ranges/servicenodeports"), std::string::npos) << ranges;
  EXPECT_NE(ranges.find("RangeAllocation"), std::string::npos) << ranges;
  EXPECT_NE(ranges.find("10.0.0.0/24"), std::string::npos) << ranges;

  // An address taken through the first is refused through the second, and free on both once the service goes.
  // It is in the static band (the lowest 16 of a /24), which dynamic allocation leaves alone while the upper band
  // has room (238 addresses), so the 200 services above cannot have taken it.
  auto one = first.connect_admin();
  auto two = second.connect_admin();
  HttpResponse taken = one.request("POST", services, kJson, node_port_service("fixed", "10.0.0.10"));
  ASSERT_EQ(taken.status, 201) << taken.body;
  HttpResponse refused = two.request("POST", services, kJson, node_port_service("again", "10.0.0.10"));
  EXPECT_TRUE(is_status(refused, 422, "Invalid"));
  EXPECT_EQ(status_message(refused),
            "Service \"again\" is invalid: spec.clusterIPs: Invalid value: []string{\"10.0.0.10\"}: failed to "
            "allocate IP 10.0.0.10: provided IP is already allocated");
  ASSERT_EQ(one.request("DELETE", services + "/fixed", {}, {}).status, 200);
  HttpResponse reused = two.request("POST", services, kJson, node_port_service("again", "10.0.0.10"));
  EXPECT_EQ(reused.status, 201) << reused.body;
}

}  // namespace
}  // namespace kapi::integration::service_ranges_test
