// The lease endpoint reconciler (kube's pkg/controlplane/reconcilers/lease_test.go): the lease each server writes,
// how the `kubernetes` Endpoints are put right, and two servers on one store joining and leaving them.
#include "server/apis/core/lease_endpoint_reconciler.h"

#include "base/log.h"
#include "server/apis/discovery/discovery.h"
#include "server/apis/resource_storage.h"
#include "server/registry/object_meta.h"
#include "storage/embedded/store.h"
#include "tests/support/io_thread.h"
#include "tests/support/temp_dir.h"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace kapi::apis::core::lease_endpoint_reconciler_test {
namespace {

namespace json = boost::json;

json::object parse(std::string_view text) { return registry::parse_json(text).as_object(); }

const json::array kPorts = parse(R"({"p":[{"name":"https","port":6443,"protocol":"TCP"}]})")["p"].as_array();

TEST(MasterLeaseTest, NamesTheIpAndBumpsTheGeneration) {
  json::object first = master_lease(nullptr, "10.0.0.1");
  EXPECT_EQ(first, parse(R"({"kind":"Endpoints","apiVersion":"v1","metadata":{"creationTimestamp":null,
    "generation":1},"subsets":[{"addresses":[{"ip":"10.0.0.1"}]}]})"));
  // A rewrite that changed nothing would not reset the TTL: the generation moves every time.
  json::object second = master_lease(&first, "10.0.0.1");
  EXPECT_EQ(second.at("metadata").at("generation"), 2);
  json::object moved = master_lease(&second, "10.0.0.9");
  EXPECT_EQ(moved.at("subsets"), parse(R"({"s":[{"addresses":[{"ip":"10.0.0.9"}]}]})")["s"]);
}

TEST(ReconciledEndpointsTest, CreatesOneSubsetWithTheLeasedIpsInOrder) {
  std::optional<json::object> created = reconciled_endpoints(nullptr, {"10.0.0.2", "10.0.0.10", "10.0.0.1"},
                                                             kPorts, false);
  ASSERT_TRUE(created);
  EXPECT_EQ(*created, parse(R"({"apiVersion":"v1","kind":"Endpoints","metadata":{"name":"kubernetes",
    "namespace":"default","labels":{"endpointslice.kubernetes.io/skip-mirror":"true"}},
    "subsets":[{"addresses":[{"ip":"10.0.0.1"},{"ip":"10.0.0.10"},{"ip":"10.0.0.2"}],
                "ports":[{"name":"https","port":6443,"protocol":"TCP"}]}]})"));
}

TEST(ReconciledEndpointsTest, LeavesRightEndpointsAloneAndPutsWrongOnesRight) {
  json::object right = *reconciled_endpoints(nullptr, {"10.0.0.1", "10.0.0.2"}, kPorts, true);
  // Addresses in another order are as right as kube's check sees them.
  json::object reordered = right;
  reordered["subsets"].as_array()[0].as_object()["addresses"] =
      parse(R"({"a":[{"ip":"10.0.0.2"},{"ip":"10.0.0.1"}]})")["a"];
  EXPECT_FALSE(reconciled_endpoints(&right, {"10.0.0.2", "10.0.0.1"}, kPorts, true));
  EXPECT_FALSE(reconciled_endpoints(&reordered, {"10.0.0.1", "10.0.0.2"}, kPorts, true));

  // A server gone: its address goes; the others are written in order.
  json::object shrunk = *reconciled_endpoints(&reordered, {"10.0.0.2"}, kPorts, false);
  EXPECT_EQ(shrunk.at("subsets"),
            parse(R"({"s":[{"addresses":[{"ip":"10.0.0.2"}],"ports":[{"name":"https","port":6443,
              "protocol":"TCP"}]}]})")["s"]);

  // Other ports are put right only when asked (a server's first pass), so servers on different ports do not
  // rewrite each other's.
  const json::array other_ports = parse(R"({"p":[{"name":"https","port":7443,"protocol":"TCP"}]})")["p"].as_array();
  EXPECT_FALSE(reconciled_endpoints(&right, {"10.0.0.1", "10.0.0.2"}, other_ports, false));
  json::object reported = *reconciled_endpoints(&right, {"10.0.0.1", "10.0.0.2"}, other_ports, true);
  EXPECT_EQ(reported.at("subsets").at(0).at("ports"), other_ports);

  // Two subsets are not the format the reconciler keeps: the record is made again.
  json::object split = right;
  split["subsets"].as_array().push_back(json::object{{"addresses", json::array{json::object{{"ip", "10.9.9.9"}}}}});
  json::object remade = *reconciled_endpoints(&split, {"10.0.0.1"}, kPorts, false);
  EXPECT_EQ(remade.at("subsets"),
            parse(R"({"s":[{"addresses":[{"ip":"10.0.0.1"}],"ports":[{"name":"https","port":6443,
              "protocol":"TCP"}]}]})")["s"]);

  // The skip-mirror label is part of being right.
  json::object unlabelled = right;
  registry::metadata_of(unlabelled).erase("labels");
  std::optional<json::object> labelled = reconciled_endpoints(&unlabelled, {"10.0.0.1", "10.0.0.2"}, kPorts, true);
  ASSERT_TRUE(labelled);
  EXPECT_EQ(*labelled, right);
}

// Two servers' reconcilers over one embedded store, with the Endpoints and EndpointSlices registry Stores.
class LeaseEndpointReconcilerTest : public ::testing::Test {
 protected:
  LeaseEndpointReconcilerTest() {
    storage::embedded::Options options;
    options.data_dir = dir_.path() / "data";
    backend_ = storage::embedded::Store::open(std::move(options));
    ResourceStorage endpoints = apis::endpoints();
    ResourceStorage slices = apis::endpointslices();
    endpoints_ = std::make_unique<registry::Store>(endpoints.definition, endpoints.strategy, *backend_);
    slices_ = std::make_unique<registry::Store>(slices.definition, slices.strategy, *backend_);
  }

  std::unique_ptr<LeaseEndpointReconciler> server(std::string ip, int port) {
    return std::make_unique<LeaseEndpointReconciler>(MasterLeases(*backend_, "/registry/masterleases/", kTtl),
                                                     *endpoints_, *slices_,
                                                     LeaseEndpointReconcilerOptions{.ip = std::move(ip), .port = port},
                                                     logger_);
  }
  json::object stored(registry::Store& store) {
    registry::ReadObject read = io_.run(store.get("default", "kubernetes", ""));
    return parse(read.json);
  }
  // The Endpoints' addresses and ports, and the slice's endpoints' addresses, as "ip,ip:port|ip,ip".
  std::string state() {
    json::object endpoints = stored(*endpoints_);
    const json::object& subset = endpoints.at("subsets").at(0).as_object();
    std::string out;
    for (const auto& address : subset.at("addresses").as_array())
      out += json::value_to<std::string>(address.at("ip")) + ",";
    out += ":" + std::to_string(subset.at("ports").at(0).at("port").to_number<int>()) + "|";
    const json::object slice = stored(*slices_);
    for (const auto& endpoint : slice.at("endpoints").as_array())
      out += json::value_to<std::string>(endpoint.at("addresses").at(0)) + ",";
    return out;
  }

  static constexpr std::chrono::seconds kTtl{15};
  test_support::TempDir dir_{"kapi-lease-reconciler"};
  test_support::IoThread io_;
  base::Logger logger_{0};
  std::unique_ptr<storage::embedded::Store> backend_;
  std::unique_ptr<registry::Store> endpoints_;
  std::unique_ptr<registry::Store> slices_;
};

TEST_F(LeaseEndpointReconcilerTest, ServersJoinTheEndpointsAndLeaveThemOnTheWayOut) {
  auto first = server("10.0.0.2", 6443);
  auto second = server("10.0.0.1", 7443);
  io_.run(first->reconcile_endpoints());
  EXPECT_EQ(state(), "10.0.0.2,:6443|10.0.0.2,");
  EXPECT_TRUE(first->settled());

  // The second server's first pass reports its own port, as kube's does; later passes leave ports alone.
  io_.run(second->reconcile_endpoints());
  EXPECT_EQ(state(), "10.0.0.1,10.0.0.2,:7443|10.0.0.1,10.0.0.2,");
  io_.run(first->reconcile_endpoints());
  EXPECT_EQ(state(), "10.0.0.1,10.0.0.2,:7443|10.0.0.1,10.0.0.2,");

  // Each lease carries the TTL a dead server's lease expires by.
  std::optional<storage::KeyValue> lease =
      io_.run(backend_->get("/registry/masterleases/10.0.0.2", storage::GetOptions{.ignore_not_found = true}));
  ASSERT_TRUE(lease);
  EXPECT_NE(lease->lease, 0);

  // Shutting down, a server removes its lease and itself from the Endpoints, and passes no more.
  io_.run(first->remove_endpoints());
  EXPECT_EQ(state(), "10.0.0.1,:6443|10.0.0.1,");
  EXPECT_FALSE(io_.run(backend_->get("/registry/masterleases/10.0.0.2", storage::GetOptions{.ignore_not_found = true})));
  io_.run(first->reconcile_endpoints());
  EXPECT_EQ(state(), "10.0.0.1,:6443|10.0.0.1,");
}

TEST_F(LeaseEndpointReconcilerTest, TheLastServerLeavingKeepsItsAddress) {
  // kube refuses to erase every endpoint of the kubernetes service on an empty lease list.
  auto only = server("10.0.0.1", 6443);
  io_.run(only->reconcile_endpoints());
  io_.run(only->remove_endpoints());
  EXPECT_EQ(state(), "10.0.0.1,:6443|10.0.0.1,");
}

}  // namespace
}  // namespace kapi::apis::core::lease_endpoint_reconciler_test
