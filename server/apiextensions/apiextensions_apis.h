#pragma once
// The API extensions server's resources (apiextensions-apiserver's New + its controllers): the
// customresourcedefinitions resource at /apis/apiextensions.k8s.io/v1, the custom resources of established CRDs
// under /apis/<group>/<version>, the CRD controller, and their place in discovery.
#include "server/apiextensions/crd_controller.h"
#include "server/apiextensions/custom_resource_server.h"
#include "server/chain/apiextensions_server.h"
#include "server/discovery/discovery.h"
#include "server/registry/cached_store.h"

#include <atomic>
#include <memory>

namespace kapi::apiextensions {

class ApiExtensionsApis {
 public:
  // `config` also carries what custom resources share with the built-in resources (the namespace check, the catalog
  // with the meta types their Tables, Scales and Status bodies use).
  explicit ApiExtensionsApis(CustomResourceServerConfig config);
  ~ApiExtensionsApis();

  // Routes apiextensions.k8s.io and every custom resource group in the server's director, and lists them in
  // `discovery` (the Kube API server's /apis).
  void install(server::chain::ApiExtensionsServer& server, discovery::DiscoveryService& discovery,
               kapi::schema::OpenApiHandler& openapi);
  // Starts the CRD controller; `served` runs whenever the served CRDs (the local group versions) may have changed.
  void start(std::function<void()> served = {});
  asio::awaitable<void> shutdown();

  registry::Store& customresourcedefinitions() { return *crds_.store; }
  // The CRDs stored at start are served.
  bool crds_synced() const { return controller_->synced(); }
  const CustomResourceServer& custom_resources() const { return *custom_resources_; }

 private:
  CustomResourceServerConfig config_;
  std::shared_ptr<std::atomic<bool>> stopping_ = std::make_shared<std::atomic<bool>>(false);
  registry::CachedStore crds_;
  std::unique_ptr<endpoints::GroupVersionService> crd_service_;
  std::unique_ptr<discovery::DiscoveryService> own_discovery_;  // /apis/apiextensions.k8s.io
  std::shared_ptr<const kapi::schema::DynamicOpenApi> own_openapi_;
  std::unique_ptr<CustomResourceServer> custom_resources_;
  std::unique_ptr<CrdController> controller_;
};

}  // namespace kapi::apiextensions
