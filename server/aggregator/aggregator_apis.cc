#include "server/aggregator/aggregator_apis.h"

#include "base/log.h"
#include "server/aggregator/apiservices.h"
#include "server/aggregator/proxy_handler.h"
#include "server/aggregator/service_resolver.h"
#include "server/apierrors/errors.h"
#include "server/endpoints/field_managers.h"
#include "server/http/status_response.h"
#include "server/version.h"

#include <boost/json.hpp>

namespace kapi::aggregator {
namespace {

constexpr std::string_view kGroup = "apiregistration.k8s.io";

// "/apis/<group>[/<version>[/...]]" split into group and version ("" when absent).
std::pair<std::string_view, std::string_view> group_and_version(std::string_view path) {
  std::string_view rest = path.substr(std::string_view("/apis/").size());
  const auto slash = rest.find('/');
  if (slash == std::string_view::npos) return {rest, {}};
  std::string_view group = rest.substr(0, slash);
  std::string_view version = rest.substr(slash + 1);
  version = version.substr(0, version.find('/'));
  return {group, version};
}

}  // namespace

AggregatorApis::AggregatorApis(AggregatorConfig config) : config_(std::move(config)) {
  const registry::ResourceDefinition definition = apiservices_definition();
  const auto strategy = apiservices_strategy();
  apiservices_ = registry::make_cached_store(
      definition, strategy, config_.backend, config_.key_root, config_.executor, config_.logger, nullptr,
      storage::value::compose(config_.builtin_codec, config_.encryption ? config_.encryption(definition.group,
                                                                                              definition.resource)
                                                                        : nullptr));
  service_ = std::make_unique<endpoints::GroupVersionService>(definition.group, definition.version,
                                                               config_.lifecycle, config_.catalog,
                                                               config_.patch_schemas);
  service_->set_admission(config_.admission);
  endpoints::FieldManagers field_managers;
  if (config_.field_types)
    field_managers = endpoints::builtin_field_managers(definition, apiservices_.store->strategy(), config_.field_types,
                                                       config_.catalog);
  service_->add(*apiservices_.store, std::move(field_managers));
  own_discovery_ = std::make_unique<discovery::DiscoveryService>(
      std::vector<const endpoints::GroupVersionService*>{service_.get()});
  own_openapi_documents_ = std::make_unique<kapi::schema::OpenApiDocuments>(
      config_.catalog, std::vector<registry::ResourceDefinition>{definition}, server::VersionInfo{}.git_version);
  auto own = std::make_shared<kapi::schema::DynamicOpenApi>();
  const std::string path = kapi::schema::group_version_path(definition.group, definition.version);
  if (const auto* document = own_openapi_documents_->v3(path)) own->v3[path] = *document;
  // The APIService kind in /openapi/v2 as well: the built-in document does not have it.
  own->v2.push_back(boost::json::parse(own_openapi_documents_->v2().body).as_object());
  own_openapi_ = std::move(own);
}

AggregatorApis::~AggregatorApis() = default;

void AggregatorApis::install(server::chain::AggregatorServer& server, request::Handler delegate,
                             discovery::DiscoveryService& discovery, kapi::schema::OpenApiHandler& openapi) {
  delegate_ = std::move(delegate);
  discovery_ = &discovery;
  controller_ = std::make_unique<ApiServiceController>(ApiServiceController::Config{
      .apiservices = *apiservices_.store,
      .services = config_.services,
      .endpoints = config_.endpoints,
      .local_discovery = discovery,
      .proxy_client = config_.proxy_client,
      .logger = config_.logger,
      .metrics = config_.metrics,
      .stopping = stopping_});
  auto& director = server.generic().director;
  director.routes().add(service_->root_path(), service_->handler());
  const std::string group_path = "/apis/" + std::string(kGroup);
  director.routes().add(group_path, [this, group_path](request::Exchange& exchange) -> asio::awaitable<void> {
    if (exchange.request.path == group_path || exchange.request.path == group_path + "/")
      co_return co_await own_discovery_->serve_group(exchange, kGroup);
    co_await http::write_status(*exchange.response, apierrors::path_not_found());
  });
  director.routes().add("/apis", [this](request::Exchange& exchange) { return serve_apis(exchange); });
  discovery.add_leading_service(service_.get());
  discovery.set_remote_source([this] {
    std::vector<discovery::RemoteGroupVersion> out;
    for (const auto& [key, remote] : *controller_->remote()) {
      const ApiService& apiservice = remote.apiservice;
      out.push_back({apiservice.group, apiservice.version, apiservice.group_priority, apiservice.version_priority,
                     remote.resources, apiservice.available});
    }
    return out;
  });
  openapi.add_dynamic_source([own = own_openapi_] { return own; });
  openapi.add_dynamic_source([this] { return controller_->openapi(); });
  // kube's boot-sequence check: every local group version has its APIService.
  server.generic().health_checks.push_back({"autoregister-completion", [this]() -> std::optional<std::string> {
                                              if (controller_->registered()) return std::nullopt;
                                              return "missing APIServices";
                                            }});
}

void AggregatorApis::start(std::function<bool()> local_apis_synced) {
  controller_->start(config_.executor, std::move(local_apis_synced));
}

void AggregatorApis::local_apis_changed() { controller_->local_apis_changed(); }

asio::awaitable<void> AggregatorApis::shutdown() {
  stopping_->store(true);
  co_await apiservices_.cacher->shutdown();
}

asio::awaitable<void> AggregatorApis::serve_apis(request::Exchange& exchange) const {
  const std::string& path = exchange.request.path;
  if (controller_->has_remote() && path.size() > std::string_view("/apis/").size()) {
    auto [group, version] = group_and_version(path);
    const std::shared_ptr<const RemoteApis> remote = controller_->remote();
    if (!version.empty()) {
      const std::string key = std::string(group) + "/" + std::string(version);
      if (auto found = remote->find(key); found != remote->end()) co_return co_await proxy(exchange, found->second);
    } else {
      for (const auto& [key, entry] : *remote)
        if (entry.apiservice.group == group) co_return co_await discovery_->serve_group(exchange, group);
    }
  }
  co_await delegate_(exchange);
}

asio::awaitable<void> AggregatorApis::proxy(request::Exchange& exchange, const RemoteApi& remote) const {
  const ApiService& apiservice = remote.apiservice;
  if (!apiservice.available || !remote.tls) {
    co_await write_proxy_error(*exchange.response, 503, "service unavailable");
    co_return;
  }
  if (!config_.services || !config_.endpoints) {
    co_await write_proxy_error(*exchange.response, 503, "service unavailable");
    co_return;
  }
  auto resolving = resolve_endpoint(*config_.services, *config_.endpoints, *apiservice.service);
  Resolution resolution = co_await std::move(resolving);
  if (const auto* error = std::get_if<ResolveError>(&resolution)) {
    config_.logger.warning("aggregator: error resolving " + apiservice.service->namespace_ + "/" +
                           apiservice.service->name + ": " + error->message);
    co_await write_proxy_error(*exchange.response, 503, "service unavailable");
    co_return;
  }
  const auto& endpoint = std::get<ResolvedEndpoint>(resolution);
  proxy::Backend backend{endpoint.host, endpoint.port,
                  service_dns_name(*apiservice.service), remote.tls,
                  !apiservice.insecure_skip_tls_verify};
  co_await proxy_to_backend(exchange, backend);
}

}  // namespace kapi::aggregator
