#include "server/apiextensions/apiextensions_apis.h"

#include "server/apiextensions/crd_openapi.h"
#include "server/apiextensions/customresourcedefinitions.h"
#include "server/version.h"

#include <boost/json.hpp>

namespace kapi::apiextensions {

ApiExtensionsApis::ApiExtensionsApis(CustomResourceServerConfig config) : config_(std::move(config)) {
  const registry::ResourceDefinition definition = customresourcedefinitions_definition();
  const auto strategy = customresourcedefinitions_strategy(config_.catalog);
  crds_ = registry::make_cached_store(
      definition, strategy, config_.backend, config_.key_root, config_.executor, config_.logger, nullptr,
      storage::value::compose(config_.builtin_codec, config_.encryption ? config_.encryption(definition.group,
                                                                                              definition.resource)
                                                                        : nullptr));
  crd_service_ = std::make_unique<endpoints::GroupVersionService>(definition.group, definition.version,
                                                                   config_.lifecycle, config_.catalog,
                                                                   config_.patch_schemas);
  crd_service_->set_admission(config_.admission);
  endpoints::FieldManagers field_managers;
  if (config_.field_types)
    field_managers = endpoints::builtin_field_managers(definition, crds_.store->strategy(), config_.field_types,
                                                       config_.catalog);
  crd_service_->add(*crds_.store, std::move(field_managers));
  own_discovery_ = std::make_unique<discovery::DiscoveryService>(
      std::vector<const endpoints::GroupVersionService*>{crd_service_.get()});
  custom_resources_ = std::make_unique<CustomResourceServer>(config_);
  auto own = std::make_shared<kapi::schema::DynamicOpenApi>();
  own->resources = {customresourcedefinitions_openapi(definition)};
  own->v3[kapi::schema::group_version_path(definition.group, definition.version)] =
      kapi::schema::v3_document(config_.catalog, own->resources, server::VersionInfo{}.git_version);
  own_openapi_ = std::move(own);
  controller_ = std::make_unique<CrdController>(*crds_.store, *custom_resources_, config_.logger, stopping_);
}

ApiExtensionsApis::~ApiExtensionsApis() = default;

void ApiExtensionsApis::install(server::chain::ApiExtensionsServer& server, discovery::DiscoveryService& discovery,
                                kapi::schema::OpenApiHandler& openapi) {
  auto& director = server.generic().director;
  director.routes().add(crd_service_->root_path(), crd_service_->handler());
  const std::string group_path = "/apis/" + std::string(kGroup);
  director.routes().add(group_path, [this, group_path](request::Exchange& exchange) -> asio::awaitable<void> {
    if (exchange.request.path == group_path || exchange.request.path == group_path + "/")
      co_return co_await own_discovery_->serve_group(exchange, kGroup);
    co_await custom_resources_->serve(exchange);  // a 404 in kube's words
  });
  director.routes().add("/apis", [this](request::Exchange& exchange) { return custom_resources_->serve(exchange); });
  discovery.add_dynamic_source([this] {
    discovery::DynamicServices services = custom_resources_->services();
    services.services.insert(services.services.begin(), crd_service_.get());
    return services;
  });
  openapi.add_dynamic_source([own = own_openapi_] { return own; });
  openapi.add_dynamic_source([this] { return custom_resources_->openapi(); });
  server.generic().health_checks.push_back(
      {"poststarthook/crd-informer-synced", [this]() -> std::optional<std::string> {
         if (controller_->synced()) return std::nullopt;
         return "not finished";
       }});
}

void ApiExtensionsApis::start(std::function<void()> served) { controller_->start(config_.executor, std::move(served)); }

asio::awaitable<void> ApiExtensionsApis::shutdown() {
  stopping_->store(true);
  co_await custom_resources_->shutdown();
  co_await crds_.cacher->shutdown();
}

}  // namespace kapi::apiextensions
