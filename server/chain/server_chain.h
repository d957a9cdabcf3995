#pragma once
// CreateServerChain: API extensions server → Kube API server → aggregator, built bottom-up so each holds its
// delegate; the aggregator's director is where the common filter chain hands every request.
#include "server/chain/aggregator_server.h"
#include "server/chain/apiextensions_server.h"
#include "server/chain/kube_apiserver.h"
#include "server/lifecycle.h"
#include "server/metrics/registry.h"
#include "server/version.h"

#include <memory>

namespace kapi::server::chain {

struct ServerChainConfig {
  metrics::Registry& metrics;
  Lifecycle& lifecycle;
  VersionInfo version;
  bool testing_endpoints = false;  // /debug/kapi/* endpoints the integration tests drive
};

class ServerChain {
 public:
  explicit ServerChain(ServerChainConfig config);
  ServerChain(const ServerChain&) = delete;
  ServerChain& operator=(const ServerChain&) = delete;

  ApiExtensionsServer& extensions() { return extensions_; }
  KubeApiServer& kube() { return kube_; }
  AggregatorServer& aggregator() { return aggregator_; }

  // The entry of the chain. Call after every server has added its routes and checks: it also installs
  // the non-API endpoints that gather all servers' health checks.
  request::Handler handler();

 private:
  void install_non_api_endpoints();

  ServerChainConfig config_;
  ApiExtensionsServer extensions_;
  KubeApiServer kube_;
  AggregatorServer aggregator_;
  std::unique_ptr<healthz::HealthEndpoint> healthz_, livez_, readyz_;
};

}  // namespace kapi::server::chain
