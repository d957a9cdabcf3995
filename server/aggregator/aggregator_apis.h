#pragma once
// The aggregator's resources and routes (kube-aggregator's APIAggregator): apiservices at
// /apis/apiregistration.k8s.io/v1, the local APIServices kept for every group version kapi serves, and for each
// remote APIService the proxy of /apis/<group>/<version> to its backend, with the remote groups merged into the
// Kube API server's discovery and OpenAPI.
#include "server/aggregator/apiservice_controller.h"
#include "server/chain/aggregator_server.h"
#include "server/discovery/discovery.h"
#include "server/endpoints/installer.h"
#include "server/lifecycle.h"
#include "server/schema/catalog.h"
#include "server/schema/openapi_handler.h"
#include "server/schema/patch_schema.h"
#include "server/structured_merge/schema.h"
#include "server/registry/cached_store.h"
#include "storage/value/transformer.h"

#include <asio/any_io_executor.hpp>

#include <atomic>
#include <functional>
#include <memory>

namespace kapi::admission { class Chain; }

namespace kapi::aggregator {

struct AggregatorConfig {
  storage::Interface& backend;
  std::string key_root;  // --etcd-prefix
  asio::any_io_executor executor;
  server::Lifecycle& lifecycle;
  base::Logger& logger;
  metrics::Registry& metrics;
  const kapi::schema::Catalog& catalog;
  const kapi::schema::PatchSchemas& patch_schemas;
  // The types server-side apply tracks APIServices' fields by (BuiltInApis::field_types); null: none tracked.
  std::shared_ptr<const structured_merge::Schema> field_types;
  registry::Store* services = nullptr;   // core/v1 services and endpoints: where backends are found
  registry::Store* endpoints = nullptr;
  ProxyClientCertificate proxy_client;
  const admission::Chain* admission = nullptr;  // of APIService writes
  storage::value::ResourceTransformers encryption;  // whether APIServices are encrypted at rest
  std::shared_ptr<const storage::value::Transformer> builtin_codec;  // the form they are stored in
};

class AggregatorApis {
 public:
  explicit AggregatorApis(AggregatorConfig config);
  ~AggregatorApis();

  // Routes apiregistration.k8s.io and the remote group versions in the aggregator's director (what is not
  // remote goes on to `delegate`), and lists them in `discovery` and `openapi` (the Kube API server's, which also
  // lists every local group version this server registers APIServices for).
  void install(server::chain::AggregatorServer& server, request::Handler delegate,
               discovery::DiscoveryService& discovery, kapi::schema::OpenApiHandler& openapi);
  // Starts the APIService controller; local APIServices are registered once `local_apis_synced`.
  void start(std::function<bool()> local_apis_synced);
  // The local group versions changed (a CRD served or gone): their APIServices are registered at once.
  void local_apis_changed();
  asio::awaitable<void> shutdown();

  registry::Store& apiservices() { return *apiservices_.store; }

 private:
  asio::awaitable<void> serve_apis(request::Exchange& exchange) const;
  asio::awaitable<void> proxy(request::Exchange& exchange, const RemoteApi& remote) const;

  AggregatorConfig config_;
  std::shared_ptr<std::atomic<bool>> stopping_ = std::make_shared<std::atomic<bool>>(false);
  registry::CachedStore apiservices_;
  std::unique_ptr<endpoints::GroupVersionService> service_;
  std::unique_ptr<discovery::DiscoveryService> own_discovery_;  // /apis/apiregistration.k8s.io
  std::unique_ptr<kapi::schema::OpenApiDocuments> own_openapi_documents_;
  std::shared_ptr<const kapi::schema::DynamicOpenApi> own_openapi_;
  std::unique_ptr<ApiServiceController> controller_;
  request::Handler delegate_;
  const discovery::DiscoveryService* discovery_ = nullptr;
};

}  // namespace kapi::aggregator
