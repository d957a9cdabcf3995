// NodeConnectionInfoGetter as kapi does it (pkg/kubelet/client/kubelet_client.go, pkg/util/node's
// GetPreferredNodeAddress): which address and port of a node the kubelet is dialled at.
#include "server/apis/core/kubelet_client.h"

#include "server/apierrors/errors.h"
#include "tests/support/io_thread.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace kapi::apis::core::kubelet_client_test {
namespace {

namespace json = boost::json;

class KubeletClientTest : public ::testing::Test {
 protected:
  ConnectConfig config_with(json::object node) {
    ConnectConfig config;
    config.kubelet.insecure_tls = proxy::make_backend_tls("", true, {}, {});
    config.kubelet.tls = proxy::LazyTlsContext(config.kubelet.insecure_tls);
    config.objects = [node](std::string resource, std::string, std::string name)
        -> asio::awaitable<std::optional<json::object>> {
      if (resource != "nodes" || name != "n1") co_return std::nullopt;
      co_return node;
    };
    return config;
  }
  static json::object node(json::array addresses, json::object labels = {}, int port = 0) {
    json::object status{{"addresses", std::move(addresses)}};
    if (port) status["daemonEndpoints"] = json::object{{"kubeletEndpoint", json::object{{"Port", port}}}};
    return {{"metadata", json::object{{"name", "n1"}, {"labels", std::move(labels)}}}, {"status", std::move(status)}};
  }
  static json::object address(const char* type, const char* value) { return {{"type", type}, {"address", value}}; }

  test_support::IoThread io_;
};

TEST_F(KubeletClientTest, ThePreferredAddressTypeWinsAndTheNodesPortIsUsed) {
  auto config = config_with(node({address("ExternalIP", "203.0.113.7"), address("InternalIP", "10.0.0.7")}, {}, 10255));
  config.kubelet.preferred_address_types = {"InternalIP", "ExternalIP"};
  auto backend = io_.run(kubelet_backend(config, "n1"));
  EXPECT_EQ(backend.host, "10.0.0.7");
  EXPECT_EQ(backend.port, 10255);
  EXPECT_EQ(backend.server_name, "10.0.0.7");
  EXPECT_TRUE(backend.verify_server_name);
}

TEST_F(KubeletClientTest, TheHostnameLabelStandsInForAMissingHostnameAddressAndThePortDefaultsTo10250) {
  auto config = config_with(node({address("InternalIP", "10.0.0.7")}, {{"kubernetes.io/hostname", "worker-1"}}));
  auto backend = io_.run(kubelet_backend(config, "n1"));
  EXPECT_EQ(backend.host, "worker-1");
  EXPECT_EQ(backend.port, 10250);
}

TEST_F(KubeletClientTest, NoPreferredAddressAndAMissingNodeAreKubesErrors) {
  auto config = config_with(node({address("InternalIP", "10.0.0.7")}));
  config.kubelet.preferred_address_types = {"ExternalDNS"};
  try {
    io_.run(kubelet_backend(config, "n1"));
    ADD_FAILURE() << "no error";
  } catch (const apierrors::ApiError& error) {
    EXPECT_EQ(error.status().code, 500);
    EXPECT_EQ(error.status().message, "no preferred addresses found; known addresses: [{InternalIP 10.0.0.7}]");
  }
  try {
    io_.run(kubelet_backend(config, "elsewhere"));
    ADD_FAILURE() << "no error";
  } catch (const apierrors::ApiError& error) {
    EXPECT_EQ(error.status().code, 404);
    EXPECT_EQ(error.status().message, "nodes \"elsewhere\" not found");
  }
}

}  // namespace
}  // namespace kapi::apis::core::kubelet_client_test
