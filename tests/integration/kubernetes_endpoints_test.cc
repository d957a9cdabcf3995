// Several kapi servers on one etcd keep the `kubernetes` Service's endpoints as kube-apiserver's lease endpoint
// reconciler does (kube's test/integration/controlplane/kube_apiserver_test.go, TestReconcilerAPIServerLeaseMultiMaster):
// each adds its --advertise-address through a lease under /registry/masterleases/, one that stops removes itself
// first, and one that dies drops out when its lease expires.
#include "tests/integration/kapi_suite.h"

#include "tests/support/etcd_process.h"
#include "tests/support/temp_dir.h"

#include <chrono>
#include <functional>
#include <thread>

namespace kapi::integration::kubernetes_endpoints_test {
namespace {

using namespace std::chrono_literals;
namespace json = boost::json;

// The addresses of the `kubernetes` Endpoints and of its EndpointSlice as `kapi` serves them: "ip ip|ip ip".
std::string kubernetes_addresses(const KapiProcess& kapi) {
  auto connection = kapi.connect_admin();
  const HttpResponse endpoints = connection.request("GET", "/api/v1/namespaces/default/endpoints/kubernetes", {}, {});
  const HttpResponse slice =
      connection.request("GET", "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes", {}, {});
  if (endpoints.status != 200 || slice.status != 200) return "missing";
  const json::object endpoints_object = json_object(endpoints.body), slice_object = json_object(slice.body);
  std::string out;
  for (const auto& address : endpoints_object.at("subsets").at(0).at("addresses").as_array())
    out += (out.empty() ? "" : " ") + json::value_to<std::string>(address.at("ip"));
  out += "|";
  bool first = true;
  for (const auto& endpoint : slice_object.at("endpoints").as_array()) {
    out += (first ? "" : " ") + json::value_to<std::string>(endpoint.at("addresses").at(0));
    first = false;
  }
  return out;
}

TEST(KubernetesEndpointsTest, EveryServerOnOneEtcdIsAnEndpointUntilItStopsOrDies) {
  test_support::EtcdProcess etcd;
  test_support::TempDir shared("kapi-endpoints-servers");  // one PKI, as a control plane's servers share
  auto options = [&](std::string address) {
    return KapiOptions{.extra_flags = {"--etcd-servers=" + etcd.endpoint(), "--advertise-address=" + address},
                       .data_dir = shared.path() / "data"};
  };
  KapiProcess first(options("10.255.0.1"));
  auto second = std::make_unique<KapiProcess>(options("10.255.0.2"));
  // A server is ready once its first pass wrote the Endpoints: the second's pass found both leases.
  const std::string both = "10.255.0.1 10.255.0.2|10.255.0.1 10.255.0.2";
  EXPECT_EQ(kubernetes_addresses(*second), both) << second->logs();
  EXPECT_TRUE(eventually([&] { return kubernetes_addresses(first) == both; }, 5s)) << kubernetes_addresses(first);
  const std::string leases = etcd.etcdctl("get --prefix --keys-only /registry/masterleases/");
  EXPECT_NE(leases.find("/registry/masterleases/10.255.0.1"), std::string::npos) << leases;
  EXPECT_NE(leases.find("/registry/masterleases/10.255.0.2"), std::string::npos) << leases;

  // Stopping, a server takes its lease and its address away before it exits.
  ASSERT_EQ(second->shut_down(30s), 0) << second->logs();
  second.reset();
  const std::string only_first = "10.255.0.1|10.255.0.1";
  EXPECT_TRUE(eventually([&] { return kubernetes_addresses(first) == only_first; }, 5s))
      << kubernetes_addresses(first);
  EXPECT_EQ(etcd.etcdctl("get --prefix --keys-only /registry/masterleases/10.255.0.2"), "");

  // A server that dies leaves its lease behind until the lease's 15 s TTL runs out; the next pass of a live server
  // (every 10 s) takes the address out.
  {
    KapiProcess third(options("10.255.0.3"));
    EXPECT_EQ(kubernetes_addresses(third), "10.255.0.1 10.255.0.3|10.255.0.1 10.255.0.3");
    third.kill();
  }
  EXPECT_TRUE(eventually([&] { return kubernetes_addresses(first) == only_first; }, 40s))
      << kubernetes_addresses(first) << first.logs();
}

}  // namespace
}  // namespace kapi::integration::kubernetes_endpoints_test
