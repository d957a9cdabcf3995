#include "server/apis/builtin_apis.h"

#include "server/apis/admissionregistration/admissionregistration.h"
#include "server/apis/apps/apps.h"
#include "server/apis/autoscaling/autoscaling.h"
#include "server/apis/batch/batch.h"
#include "server/apis/certificates/certificates.h"
#include "server/apis/discovery/discovery.h"
#include "server/apis/events/events.h"
#include "server/apis/networking/networking.h"
#include "server/apis/node/node.h"
#include "server/apis/policy/policy.h"
#include "server/apis/scheduling/scheduling.h"
#include "server/apis/storage/storage.h"

#include "base/log.h"
#include "server/apis/core/connect.h"
#include "server/apis/core/lease_endpoint_reconciler.h"
#include "server/apis/core/kubernetes_service.h"
#include "server/apis/core/service_repair.h"
#include "server/apis/flowcontrol/config_producer.h"
#include "server/fieldmanager/type_converter.h"
#include "server/http/status_response.h"
#include "server/registry/object_meta.h"
#include "server/schema/decoding.h"
#include "server/schema/storage_codec.h"
#include "server/version.h"
#include "storage/transforming_storage.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>
#include <boost/json.hpp>

namespace kapi::apis {
namespace {

// What some resources take from the server or from the other resources (kube: what the RESTStorageProviders
// share through their config).
struct ResourceDependencies {
  std::shared_ptr<core::ServiceAllocator> service_allocator;
  core::TokenRequestConfig tokens;
  std::shared_ptr<authorization::rbac::EscalationCheck> escalation;
  core::DisruptionBudgetStore disruption_budgets;
  std::shared_ptr<const core::ConnectConfig> connect;
  std::shared_ptr<const DefaultPriorityClasses> default_priority_classes;
};

// Every built-in resource, in discovery order within its group version. A new resource is one line here.
std::vector<ResourceStorage> all_resources(const ResourceDependencies& with) {
  return {
      // core/v1
      configmaps(),
      endpoints(),
      events(),
      limitranges(),
      namespaces(),
      nodes(with.connect),
      persistentvolumeclaims(),
      persistentvolumes(),
      pods(with.disruption_budgets, with.connect),
      podtemplates(),
      replicationcontrollers(),
      resourcequotas(),
      secrets(),
      serviceaccounts(with.tokens),
      services(with.service_allocator, with.connect),
      // apps/v1
      controllerrevisions(),
      daemonsets(),
      deployments(),
      replicasets(),
      statefulsets(),
      // events.k8s.io/v1
      events_api_events(),
      // autoscaling/v2 (the storage version) and v1
      horizontalpodautoscalers_v2(),
      horizontalpodautoscalers_v1(),
      // batch/v1
      cronjobs(),
      jobs(),
      // policy/v1
      poddisruptionbudgets(),
      // coordination.k8s.io/v1
      leases(),
      // rbac.authorization.k8s.io/v1
      clusterrolebindings(with.escalation),
      clusterroles(with.escalation),
      rolebindings(with.escalation),
      roles(with.escalation),
      // flowcontrol.apiserver.k8s.io/v1
      flowschemas(),
      prioritylevelconfigurations(),
      // scheduling.k8s.io/v1
      priorityclasses(with.default_priority_classes),
      // node.k8s.io/v1
      runtimeclasses(),
      // discovery.k8s.io/v1
      endpointslices(),
      // networking.k8s.io/v1
      ingressclasses(),
      ingresses(),
      networkpolicies(),
      // storage.k8s.io/v1
      csidrivers(),
      csinodes(),
      csistoragecapacities(),
      storageclasses(),
      volumeattachments(),
      // certificates.k8s.io/v1
      certificatesigningrequests(),
      // admissionregistration.k8s.io/v1
      mutatingwebhookconfigurations(),
      validatingadmissionpolicies(),
      validatingadmissionpolicybindings(),
      validatingwebhookconfigurations(),
  };
}

// The reviews, in discovery order within their group versions. A new one is one line here.
std::vector<registry::Creater> all_reviews(const std::shared_ptr<const authorization::Authorizer>& authorizer,
                                          const std::shared_ptr<const authentication::RequestAuthenticator>& authenticator) {
  return {
      // authentication.k8s.io/v1
      selfsubjectreviews(),
      tokenreviews(authenticator),
      // authorization.k8s.io/v1
      localsubjectaccessreviews(authorizer),
      selfsubjectaccessreviews(authorizer),
      selfsubjectrulesreviews(authorizer),
      subjectaccessreviews(authorizer),
  };
}

// The other versions a resource's objects are served at, for its managers' converter: the storage version of a
// version served from another's storage, and the versions served from a storage version's.
std::vector<endpoints::PeerVersion> peer_versions(const std::vector<ResourceStorage>& resources,
                                                  const ResourceStorage& resource) {
  std::vector<endpoints::PeerVersion> peers;
  for (const auto& other : resources) {
    const auto& definition = other.definition;
    if (&other == &resource || definition.group != resource.definition.group ||
        definition.resource != resource.definition.resource)
      continue;
    if (resource.conversion && !other.conversion)
      peers.push_back({definition.group, definition.version, definition.kind, resource.conversion, true});
    else if (!resource.conversion && other.conversion)
      peers.push_back({definition.group, definition.version, definition.kind, other.conversion, false});
  }
  return peers;
}

// The resource at its version as admission's equivalence and conversions know it: kept with the other versions of
// its storage prefix, its status of its own kind and its scale an autoscaling/v1 Scale.
admission::ObjectInterfaces::Version admission_version(const ResourceStorage& resource, const registry::Store& store,
                                                       const schema::Catalog& catalog) {
  const registry::ResourceDefinition& definition = resource.definition;
  admission::ObjectInterfaces::Version version{
      .resource = {definition.group, definition.version, definition.resource},
      .kind = {definition.group, definition.version, definition.kind},
      .storage = store.prefix(""),
      .subresources = {},
      .to_storage = {},
      .from_storage = {},
      .defaults = {}};
  // Decoding fills the +default markers of the kind's schema and runs the kind's defaulting functions.
  const google::protobuf::Descriptor* message = catalog.kind(definition.group, definition.version, definition.kind);
  version.defaults = [&catalog, message, strategy = &store.strategy()](boost::json::object& object) {
    if (message) schema::conform(catalog, message, object);
    strategy->apply_scheme_defaults(object);
  };
  for (const std::string& subresource : definition.subresources)
    version.subresources[subresource] =
        subresource == "scale" ? admission::GroupVersionKind{"autoscaling", "v1", "Scale"} : version.kind;
  if (resource.conversion) {
    version.to_storage = [conversion = resource.conversion](boost::json::object object) {
      return conversion->to_storage(std::move(object));
    };
    version.from_storage = [conversion = resource.conversion](boost::json::object object) {
      return conversion->from_storage(std::move(object));
    };
  }
  return version;
}

}  // namespace

BuiltInApis::BuiltInApis(storage::Interface& backend, std::string key_root, asio::any_io_executor executor,
                         server::Lifecycle& lifecycle, base::Logger& logger, core::ServiceNetwork network,
                         core::TokenRequestConfig tokens, core::KubeletClientConfig kubelet,
                         const storage::value::ResourceTransformers& encryption, std::string_view storage_media_type)
    : storage_codec_(schema::storage_codec(catalog_, storage_media_type)), lifecycle_(lifecycle), logger_(logger) {
  // As kube's storage factory configures each: the codec, and the resource's encryption.
  auto raw_storage = [&](std::string_view resource) -> storage::Interface& {
    auto stored_as = storage::value::compose(storage_codec_, encryption ? encryption("", resource) : nullptr);
    return *raw_storages_.emplace_back(std::make_unique<storage::TransformingStorage>(backend, std::move(stored_as)));
  };
  service_allocator_ = std::make_shared<core::ServiceAllocator>(network, raw_storage("serviceipallocations"),
                                                                raw_storage("servicenodeportallocations"), key_root);
  tokens.objects = object_getter();
  // Evictions find the budgets once the stores exist (the pods' store is made before the budgets').
  core::DisruptionBudgetStore disruption_budgets = [this] { return store("policy", "poddisruptionbudgets"); };
  auto connect = std::make_shared<core::ConnectConfig>(
      core::ConnectConfig{std::move(kubelet), object_getter(), proxy::make_backend_tls("", true, {}, {})});
  const ResourceDependencies dependencies{.service_allocator = service_allocator_,
                                          .tokens = tokens,
                                          .escalation = escalation_check_,
                                          .disruption_budgets = std::move(disruption_budgets),
                                          .connect = std::move(connect),
                                          .default_priority_classes = default_priority_classes_};
  field_types_ = fieldmanager::schema_from_catalog(catalog_);
  const std::vector<ResourceStorage> resources = all_resources(dependencies);
  for (const auto& resource : resources) {
    const auto& definition = resource.definition;
    auto stored_as = storage::value::compose(
        storage_codec_, encryption ? encryption(definition.group, definition.resource) : nullptr);
    registry::CachedStore cached = registry::make_cached_store(definition, resource.strategy, backend, key_root,
                                                               executor, logger, resource.conversion, stored_as);

    endpoints::FieldManagers field_managers = endpoints::builtin_field_managers(
        resource.definition, cached.store->strategy(), field_types_, catalog_, peer_versions(resources, resource));
    service_for(resource.definition).add(*cached.store, std::move(field_managers));
    object_interfaces_.add(admission_version(resource, *cached.store, catalog_));
    resources_.push_back(std::move(cached));
  }
  {  // componentstatuses are probed on each read, neither stored nor cached (kube's componentstatus REST)
    ResourceStorage statuses = componentstatuses();
    auto& source = computed_sources_.emplace_back(component_status_source(backend, key_root));
    auto& computed = computed_stores_.emplace_back(
        std::make_unique<registry::Store>(std::move(statuses.definition), statuses.strategy, *source, key_root));
    service_for(computed->definition()).add(*computed);
  }
  executor_ = executor;
  controller_manager_ = make_controller_manager({}, {}, nullptr);
  if (!network.advertise_address.empty()) {
    core::LeaseEndpointReconcilerOptions reconciler;
    reconciler.ip = network.advertise_address;
    reconciler.port = network.secure_port > 0 && network.secure_port <= 65535 ? network.secure_port : 6443;
    endpoint_reconciler_ = std::make_unique<core::LeaseEndpointReconciler>(
        core::MasterLeases(raw_storage("apiServerIPInfo"), key_root + "/masterleases/", std::chrono::seconds(15)),
        *store("", "endpoints"),
        *store("discovery.k8s.io", "endpointslices"), std::move(reconciler), logger);
  }
}

BuiltInApis::~BuiltInApis() = default;

endpoints::GroupVersionService& BuiltInApis::service_for(const registry::ResourceDefinition& definition) {
  for (auto& existing : services_)
    if (existing->group() == definition.group && existing->version() == definition.version) return *existing;
  return *services_.emplace_back(std::make_unique<endpoints::GroupVersionService>(
      definition.group, definition.version, lifecycle_, catalog_, patch_schemas_));
}

registry::Store* BuiltInApis::store(std::string_view group, std::string_view resource) const {
  for (const auto& r : resources_)
    if (r.store->definition().group == group && r.store->definition().resource == resource) return r.store.get();
  return nullptr;
}

std::optional<storage::cacher::CacheState::Stats> BuiltInApis::cache_stats(std::string_view group,
                                                                         std::string_view resource) const {
  for (const auto& r : resources_)
    if (r.store->definition().group == group && r.store->definition().resource == resource) return r.cacher->stats();
  return std::nullopt;
}

authentication::ObjectGetter BuiltInApis::object_getter() const {
  return [this](std::string resource, std::string namespace_,
                std::string name) -> asio::awaitable<std::optional<boost::json::object>> {
    registry::Store* objects = store("", resource);
    if (!objects) co_return std::nullopt;
    // The watch cache first; a miss is confirmed by a live read, since the cache may lag a moment behind.
    std::string json;
    for (const char* resource_version : {"0", ""}) {
      try {
        auto pending = objects->get(namespace_, name, resource_version);  // no temporaries in a co_await (g++ 12)
        registry::ReadObject read = co_await std::move(pending);
        json = std::move(read.json);
        break;
      } catch (const apierrors::ApiError& error) {
        if (error.status().code != 404) throw;
      }
    }
    if (json.empty()) co_return std::nullopt;
    co_return registry::parse_json_object(json);
  };
}

void BuiltInApis::install(server::chain::KubeApiServer& kube,
                          std::shared_ptr<const authorization::Authorizer> authorizer,
                          std::shared_ptr<const authentication::RequestAuthenticator> authenticator) {
  for (auto& creater : all_reviews(authorizer, authenticator)) {
    const auto& stored = creaters_.emplace_back(std::make_unique<registry::Creater>(std::move(creater)));
    service_for(stored->definition).add(*stored);
  }
  {  // core/v1 bindings: the pods' BindingREST again, at the namespace's collection path
    const auto& binding = creaters_.emplace_back(std::make_unique<registry::Creater>(bindings(*store("", "pods"))));
    service_for(binding->definition).add(*binding);
  }
  std::vector<const endpoints::GroupVersionService*> services;
  for (const auto& service : services_) services.push_back(service.get());
  discovery_ = std::make_unique<discovery::DiscoveryService>(std::move(services));
  std::vector<registry::ResourceDefinition> definitions;
  for (const auto& service : services_)
    for (const auto& served : service->resources()) definitions.push_back(*served.definition);
  openapi_ = std::make_unique<schema::OpenApiDocuments>(catalog_, std::move(definitions), server::VersionInfo{}.git_version);
  openapi_handler_ = std::make_unique<schema::OpenApiHandler>(*openapi_);

  auto& director = kube.generic().director;
  for (const auto& service : services_) director.routes().add(service->root_path(), service->handler());
  const discovery::DiscoveryService* discovery = discovery_.get();
  director.non_api().handle("/api", [discovery](request::Exchange& e) { return discovery->serve_legacy_root(e); });
  director.non_api().handle("/api/", [discovery](request::Exchange& e) { return discovery->serve_legacy_root(e); });
  director.non_api().handle("/apis", [discovery](request::Exchange& e) { return discovery->serve_groups(e); });
  director.non_api().handle("/apis/", [discovery](request::Exchange& e) { return discovery->serve_groups(e); });
  const schema::OpenApiHandler* openapi = openapi_handler_.get();
  director.non_api().handle("/openapi/v2", [openapi](request::Exchange& e) { return openapi->serve_v2(e); });
  director.non_api().handle("/openapi/v3", [openapi](request::Exchange& e) { return openapi->serve_v3(e); });
  director.non_api().handle_prefix("/openapi/v3/", [openapi](request::Exchange& e) { return openapi->serve_v3(e); });
  // kube-apiserver's bootstrap-controller post-start hook: not ready before the system namespaces exist.
  kube.generic().health_checks.push_back(
      {"poststarthook/bootstrap-controller", [bootstrapped = bootstrapped_]() -> std::optional<std::string> {
         if (bootstrapped->load()) return std::nullopt;
         return "not finished";
       }});
  kube.generic().health_checks.push_back(
      {"poststarthook/rbac/bootstrap-roles", [bootstrap = rbac_bootstrap_]() -> std::optional<std::string> {
         const authorization::rbac::BootstrapRevisions revisions{
             bootstrap->cluster_roles.load(), bootstrap->cluster_role_bindings.load(), bootstrap->roles.load(),
             bootstrap->role_bindings.load()};
         if (bootstrap->done.load() && (!bootstrap->authorizer_has || bootstrap->authorizer_has(revisions)))
           return std::nullopt;
         return "not finished";
       }});
  kube.generic().health_checks.push_back(
      {"poststarthook/scheduling/bootstrap-system-priority-classes",
       [done = system_priority_classes_]() -> std::optional<std::string> {
         if (done->load()) return std::nullopt;
         return "not finished";
       }});
  kube.generic().health_checks.push_back(
      {"poststarthook/priority-and-fairness-config-producer",
       [produced = apf_configuration_produced_]() -> std::optional<std::string> {
         if (produced->load()) return std::nullopt;
         return "not finished";
       }});
  for (const auto& group : discovery_->groups()) {
    director.routes().add("/apis/" + group, [discovery, group](request::Exchange& e) -> asio::awaitable<void> {
      if (e.request.path == "/apis/" + group || e.request.path == "/apis/" + group + "/")
        co_return co_await discovery->serve_group(e, group);
      co_await http::write_status(*e.response, apierrors::path_not_found());
    });
  }
}

void BuiltInApis::set_admission(const admission::Chain* chain) {
  for (auto& service : services_) service->set_admission(chain, &object_interfaces_);
}

asio::awaitable<void> BuiltInApis::bootstrap(const server::Lifecycle& lifecycle) {
  // kube's post-start hooks run side by side: the APF configuration needs none of what follows.
  constexpr std::string_view kFlowcontrolGroup = "flowcontrol.apiserver.k8s.io";
  const apf::ConfigStores apf_stores{*store(kFlowcontrolGroup, "flowschemas"),
                                     *store(kFlowcontrolGroup, "prioritylevelconfigurations")};
  const asio::any_io_executor executor = co_await asio::this_coro::executor;
  asio::co_spawn(executor,
                 apf::run_config_producer(apf_stores, stopping_controllers_, logger_,
                                          [produced = apf_configuration_produced_] { produced->store(true); }),
                 asio::detached);
  // Nor does RBAC's bootstrap policy: its objects go to storage directly, where a namespaced Role needs no
  // Namespace, so a restart is ready without waiting for the namespaces, the service ranges and the endpoints.
  asio::co_spawn(executor, store_rbac_bootstrap_policy(lifecycle), asio::detached);
  asio::co_spawn(executor,
                 follow_default_priority_classes(*store("scheduling.k8s.io", "priorityclasses"),
                                                 default_priority_classes_, stopping_controllers_, logger_),
                 asio::detached);
  asio::co_spawn(executor,
                 ensure_system_priority_classes(*store("scheduling.k8s.io", "priorityclasses"), lifecycle, logger_,
                                                system_priority_classes_),
                 asio::detached);
  registry::Store* namespaces = store("", "namespaces");
  asio::steady_timer retry(co_await asio::this_coro::executor);
  for (const char* name : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
    // A restart finds them in the watch cache and asks storage nothing; a create tells when the cache was behind.
    try {
      auto cached = namespaces->get("", name, "0");
      co_await std::move(cached);
      continue;
    } catch (const std::exception&) {
    }
    while (!lifecycle.shutdown_initiated()) {
      try {
        boost::json::object object{{"metadata", boost::json::object{{"name", name}}}};
        registry::WriteOptions options;
        co_await namespaces->create("", std::move(object), options);
        logger_.info(std::string("created namespace ") + name);
        break;
      } catch (const apierrors::ApiError& error) {
        if (error.status().code == 409) break;
        logger_.warning(std::string("creating namespace ") + name + " failed, retrying: " + error.status().message);
      } catch (const std::exception& error) {
        logger_.warning(std::string("creating namespace ") + name + " failed, retrying: " + error.what());
      }
      retry.expires_after(std::chrono::seconds(1));
      co_await retry.async_wait(asio::use_awaitable);
    }
  }
  // kube-controller-manager's controllers, once kube-system (their Lease's namespace) exists.
  asio::co_spawn(executor, controller_manager_->run(), asio::detached);
  // As kube's bootstrap controller: the ranges are repaired (the first time, created) before a service is written,
  // then every 3 minutes. Servers starting together conflict here and retry.
  registry::Store* services = store("", "services");
  service_repair_ = std::make_unique<core::ServiceAllocationRepair>(*services, *service_allocator_, logger_);
  for (int attempt = 1; !lifecycle.shutdown_initiated(); ++attempt) {
    bool repaired = false;
    try {
      co_await service_repair_->run_once();
      repaired = true;
    } catch (const std::exception& error) {
      if (attempt % 10 == 0) logger_.warning(std::string("the initial service range repair failed: ") + error.what());
    }
    if (repaired) break;
    retry.expires_after(std::chrono::milliseconds(100));
    co_await retry.async_wait(asio::use_awaitable);
  }
  asio::co_spawn(executor, service_repair_->run(std::chrono::minutes(3), stopping_controllers_), asio::detached);
  co_await core::ensure_kubernetes_service(*services, service_allocator_->network(), lifecycle, logger_);
  if (endpoint_reconciler_) {
    auto first_pass = endpoint_reconciler_->pass();
    const std::chrono::seconds next = co_await std::move(first_pass);
    asio::co_spawn(executor, endpoint_reconciler_->run(lifecycle, next), asio::detached);
    while (!endpoint_reconciler_->settled() && !lifecycle.shutdown_initiated()) {  // only when that pass failed
      retry.expires_after(std::chrono::milliseconds(20));
      co_await retry.async_wait(asio::use_awaitable);
    }
  } else {
    logger_.warning("no address to advertise (--advertise-address): the kubernetes endpoints are not written");
  }
  bootstrapped_->store(!lifecycle.shutdown_initiated());
}

void BuiltInApis::configure_controllers(controllers::ControllerManagerOptions options, std::string root_ca,
                                        metrics::Registry* metrics) {
  controller_manager_ = make_controller_manager(std::move(options), std::move(root_ca), metrics);
}

std::unique_ptr<controllers::ControllerManager> BuiltInApis::make_controller_manager(
    controllers::ControllerManagerOptions options, std::string root_ca, metrics::Registry* metrics) {
  controllers::ControllerContext context;
  context.store = [this](std::string_view group, std::string_view resource) { return store(group, resource); };
  for (const auto& resource : resources_) context.builtin.push_back(resource.store.get());
  context.custom_resources = &custom_resource_feed_;
  context.namespaced_content = [this] {
    std::vector<std::shared_ptr<registry::Store>> stores;
    for (const auto& resource : resources_)  // owned here: shared without ownership
      if (resource.store->definition().namespaced) stores.emplace_back(std::shared_ptr<void>(), resource.store.get());
    if (more_namespaced_content_)
      for (auto& store : more_namespaced_content_()) stores.push_back(std::move(store));
    return stores;
  };
  context.quota_usage = [this](const boost::json::object& quota) -> asio::awaitable<boost::json::object> {
    if (!quota_usage_) co_return boost::json::object();
    auto measuring = quota_usage_(quota);
    co_return co_await std::move(measuring);
  };
  context.root_ca = std::move(root_ca);
  context.metrics = metrics;
  context.logger = &logger_;
  context.executor = executor_;
  return std::make_unique<controllers::ControllerManager>(std::move(context), std::move(options));
}

asio::awaitable<void> BuiltInApis::store_rbac_bootstrap_policy(const server::Lifecycle& lifecycle) {
  constexpr std::string_view kRbacGroup = "rbac.authorization.k8s.io";
  const authorization::rbac::BootstrapStores stores{*store(kRbacGroup, "clusterroles"),
                                                    *store(kRbacGroup, "clusterrolebindings"),
                                                    *store(kRbacGroup, "roles"), *store(kRbacGroup, "rolebindings")};
  asio::steady_timer retry(co_await asio::this_coro::executor);
  while (!lifecycle.shutdown_initiated()) {
    try {
      auto pending = authorization::rbac::ensure_bootstrap_policy(stores);
      const authorization::rbac::BootstrapRevisions revisions = co_await std::move(pending);
      rbac_bootstrap_->cluster_roles.store(revisions.cluster_roles);
      rbac_bootstrap_->cluster_role_bindings.store(revisions.cluster_role_bindings);
      rbac_bootstrap_->roles.store(revisions.roles);
      rbac_bootstrap_->role_bindings.store(revisions.role_bindings);
      rbac_bootstrap_->done.store(true);
      logger_.info("RBAC: bootstrap roles and bindings are in place");
      co_return;
    } catch (const apierrors::ApiError& error) {
      logger_.warning("RBAC: storing the bootstrap policy failed, retrying: " + error.status().message);
    } catch (const std::exception& error) {
      logger_.warning(std::string("RBAC: storing the bootstrap policy failed, retrying: ") + error.what());
    }
    retry.expires_after(std::chrono::seconds(1));
    co_await retry.async_wait(asio::use_awaitable);
  }
}

asio::awaitable<void> BuiltInApis::run_pre_shutdown_hooks() {
  if (endpoint_reconciler_) co_await endpoint_reconciler_->remove_endpoints();
}

asio::awaitable<void> BuiltInApis::shutdown() {
  stopping_controllers_->store(true);  // the service tracker's watch ends with the Cachers: it must not relist
  controller_manager_->stop();
  for (auto& resource : resources_) co_await resource.cacher->shutdown();
}

}  // namespace kapi::apis
