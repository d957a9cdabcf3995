#include "server/apiextensions/custom_resource_server.h"

#include "server/admission/object_interfaces.h"
#include "server/apiextensions/cel/validator.h"
#include "server/apiextensions/custom_resource_field_managers.h"
#include "server/apiextensions/custom_resource_strategy.h"
#include "server/apiextensions/none_conversion.h"
#include "server/chain/not_found.h"
#include "server/http/status_response.h"
#include "server/version.h"

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <set>

namespace kapi::apiextensions {

struct CustomResourceServer::Storage {
  std::string identity;  // CRD uid, version, storage version and key prefix: what the Cacher's contents depend on
  std::unique_ptr<storage::TransformingStorage> encryption;  // null unless the resource is encrypted at rest
  std::unique_ptr<storage::TransformingStorage> conversion;  // null for the storage version itself
  std::unique_ptr<storage::cacher::Cacher> cacher;
};

struct CustomResourceServer::Served {
  std::shared_ptr<const Crd> crd;
  std::string version;
  std::shared_ptr<Storage> storage;
  std::shared_ptr<registry::Store> store;
  endpoints::FieldManagers field_managers;  // remade with the CRD: its schemas are the version's
  // The version's compiled x-kubernetes-validations, reused while the CRD and its schema stay the same.
  std::string rules_identity;
  std::shared_ptr<const cel::Validator> rules;
};

struct CustomResourceServer::Snapshot {
  std::vector<std::shared_ptr<Served>> served;
  admission::ObjectInterfaces object_interfaces;  // every served version, for admission's matchPolicy Equivalent
  std::vector<std::unique_ptr<endpoints::GroupVersionService>> services;  // by group, versions by priority
  std::unique_ptr<discovery::DiscoveryService> discovery;                  // /apis/<group>
  std::shared_ptr<const kapi::schema::DynamicOpenApi> openapi = std::make_shared<kapi::schema::DynamicOpenApi>();
};

CustomResourceServer::CustomResourceServer(CustomResourceServerConfig config) : config_(std::move(config)) {
  auto empty = std::make_shared<Snapshot>();
  empty->discovery = std::make_unique<discovery::DiscoveryService>(std::vector<const endpoints::GroupVersionService*>{});
  snapshot_ = std::move(empty);
}

CustomResourceServer::~CustomResourceServer() = default;

std::shared_ptr<const CustomResourceServer::Snapshot> CustomResourceServer::snapshot() const {
  std::lock_guard lock(mutex_);
  return snapshot_;
}

std::shared_ptr<CustomResourceServer::Storage> CustomResourceServer::make_storage(const Crd& crd,
                                                                                  const CrdVersion& version,
                                                                                  const registry::Store& probe) {
  auto made = std::make_shared<Storage>();
  storage::Interface* backend = &config_.backend;
  if (auto encryption = config_.encryption ? config_.encryption(crd.group, crd.names.plural) : nullptr) {
    made->encryption = std::make_unique<storage::TransformingStorage>(*backend, std::move(encryption));
    backend = made->encryption.get();
  }
  const CrdVersion* storage_version = crd.storage_version();
  if (storage_version && storage_version->name != version.name) {
    made->conversion = std::make_unique<storage::TransformingStorage>(
        *backend, storage::conversion_transformer(std::make_shared<NoneConversion>(
                      crd.group + "/" + version.name, crd.group + "/" + storage_version->name)));
    backend = made->conversion.get();
  }
  storage::cacher::CacherOptions options;
  options.resource_prefix = probe.prefix("");
  options.logger = &config_.logger;
  made->cacher = std::make_unique<storage::cacher::Cacher>(*backend, config_.executor, std::move(options));
  return made;
}

namespace {

// A custom resource version as admission's equivalence and conversions know it: equivalent to the CRD's other
// versions, converted as the None strategy converts (the apiVersion rewritten).
admission::ObjectInterfaces::Version admission_version(const Crd& crd, const CrdVersion& version,
                                                       const registry::Store& store) {
  const std::string& kind = crd.accepted_names.kind;
  admission::ObjectInterfaces::Version made{.resource = {crd.group, version.name, crd.accepted_names.plural},
                                            .kind = {crd.group, version.name, kind},
                                            .storage = store.prefix(""),
                                            .subresources = {},
                                            .to_storage = {},
                                            .from_storage = {},
                                            .defaults = {}};
  // Decoding prunes and defaults a custom resource by its version's structural schema.
  made.defaults = [strategy = &store.strategy()](boost::json::object& object) { strategy->conform(object); };
  if (version.status_subresource) made.subresources["status"] = made.kind;
  if (version.scale) made.subresources["scale"] = {"autoscaling", "v1", "Scale"};
  const CrdVersion* storage_version = crd.storage_version();
  if (storage_version && storage_version->name != version.name) {
    auto with_api_version = [](std::string api_version) {
      return [api_version = std::move(api_version)](boost::json::object object) {
        object["apiVersion"] = api_version;
        return object;
      };
    };
    made.to_storage = with_api_version(crd.group + "/" + storage_version->name);
    made.from_storage = with_api_version(crd.group + "/" + version.name);
  }
  return made;
}

}  // namespace

asio::awaitable<void> CustomResourceServer::serve_crds(std::vector<Crd> crds) {
  std::shared_ptr<const Snapshot> old = snapshot();
  std::map<std::string, std::shared_ptr<Storage>, std::less<>> reusable;
  for (const auto& served : old->served) reusable.emplace(served->storage->identity, served->storage);
  std::map<std::string, std::shared_ptr<const cel::Validator>, std::less<>> compiled_rules;
  for (const auto& served : old->served) compiled_rules.emplace(served->rules_identity, served->rules);

  std::sort(crds.begin(), crds.end(), [](const Crd& a, const Crd& b) { return a.name < b.name; });
  auto next = std::make_shared<Snapshot>();
  std::set<std::string> kept;
  for (auto& parsed : crds) {
    auto crd = std::make_shared<const Crd>(std::move(parsed));
    const CrdVersion* storage_version = crd->storage_version();
    if (!storage_version) continue;
    for (const auto& version : crd->versions) {
      if (!version.served) continue;
      registry::ResourceDefinition definition = crd->resource_definition(version);
      std::string rules_identity = crd->uid + "|" + version.name + "|" + boost::json::serialize(version.raw_schema);
      std::shared_ptr<const cel::Validator> rules;
      if (auto it = compiled_rules.find(rules_identity); it != compiled_rules.end()) rules = it->second;
      else rules = cel::Validator::for_resource(version.schema);
      auto strategy = custom_resource_strategy(config_.catalog, *crd, version, rules);
      registry::Store probe(definition, strategy, config_.backend, config_.key_root);
      std::string identity = crd->uid + "|" + version.name + "|" + storage_version->name + "|" + probe.prefix("");
      std::shared_ptr<Storage> storage;
      if (auto it = reusable.find(identity); it != reusable.end()) storage = it->second;
      else {
        storage = make_storage(*crd, version, probe);
        storage->identity = identity;
      }
      kept.insert(identity);
      auto store = std::make_shared<registry::Store>(definition, strategy, *storage->cacher, config_.key_root,
                                                     /*garbage_collection=*/true);
      endpoints::FieldManagers field_managers;
      if (config_.field_types)
        field_managers = custom_resource_field_managers(*crd, version, strategy, config_.catalog,
                                                                  config_.field_types);
      next->served.push_back(std::make_shared<Served>(
          Served{crd, version.name, storage, std::move(store), std::move(field_managers), std::move(rules_identity),
                 std::move(rules)}));
    }
  }

  for (const auto& served : next->served)
    if (const CrdVersion* version = served->crd->version(served->version))
      next->object_interfaces.add(admission_version(*served->crd, *version, *served->store));

  // One web service per group version: groups by name, each group's versions in kube's priority order.
  std::map<std::string, std::vector<std::string>> versions_by_group;
  for (const auto& served : next->served) {
    auto& versions = versions_by_group[served->crd->group];
    if (std::find(versions.begin(), versions.end(), served->version) == versions.end())
      versions.push_back(served->version);
  }
  std::vector<const endpoints::GroupVersionService*> services;
  for (auto& [group, versions] : versions_by_group) {
    std::sort(versions.begin(), versions.end(), kube_aware_version_before);
    for (const auto& version : versions) {
      auto service = std::make_unique<endpoints::GroupVersionService>(group, version, config_.lifecycle,
                                                                       config_.catalog, config_.patch_schemas);
      service->set_admission(config_.admission, &next->object_interfaces);
      for (const auto& served : next->served)
        if (served->crd->group == group && served->version == version)
          service->add(*served->store, served->field_managers);
      services.push_back(service.get());
      next->services.push_back(std::move(service));
    }
  }
  next->discovery = std::make_unique<discovery::DiscoveryService>(std::move(services));
  auto documents = std::make_shared<kapi::schema::DynamicOpenApi>();
  for (const auto& service : next->services) {
    std::vector<kapi::schema::SchemaResource> described;
    for (const auto& served : next->served) {
      if (served->crd->group != service->group() || served->version != service->version()) continue;
      const CrdVersion* version = served->crd->version(served->version);
      const auto& definition = served->store->definition();
      described.push_back({definition, openapi_definition_name(definition.group, definition.version, definition.kind),
                           version ? version->raw_schema : boost::json::object()});
    }
    documents->v3[kapi::schema::group_version_path(service->group(), service->version())] =
        kapi::schema::v3_document(config_.catalog, described, server::VersionInfo{}.git_version);
    documents->resources.insert(documents->resources.end(), described.begin(), described.end());
  }
  next->openapi = std::move(documents);
  {
    std::lock_guard lock(mutex_);
    snapshot_ = next;
    // A withdrawn CRD is out of the snapshot now.
    std::erase_if(withdrawn_, [&](const std::string& uid) {
      return std::none_of(next->served.begin(), next->served.end(),
                          [&](const auto& served) { return served->crd->uid == uid; });
    });
    any_withdrawn_.store(!withdrawn_.empty(), std::memory_order_release);
  }
  // What is no longer served stops watching storage (requests still holding the old snapshot see it end).
  std::set<const Storage*> stopped;
  for (const auto& served : old->served)
    if (!kept.contains(served->storage->identity) && stopped.insert(served->storage.get()).second)
      co_await served->storage->cacher->shutdown();
  if (config_.served_changed) {
    std::vector<std::shared_ptr<registry::Store>> stores;
    for (bool storage_version : {true, false})
      for (const auto& served : next->served)
        if (!served->storage->conversion == storage_version)
          stores.emplace_back(served, served->store.get());  // shares the Served: its Storage lives as long
    config_.served_changed(std::move(stores));
  }
}

asio::awaitable<void> CustomResourceServer::serve(request::Exchange& exchange) const {
  const std::shared_ptr<const Snapshot> current = snapshot();  // held for the whole request
  std::string_view path = exchange.request.path;
  constexpr std::string_view kApis = "/apis/";
  if (!path.starts_with(kApis)) co_return co_await server::chain::serve_not_found(exchange);
  path.remove_prefix(kApis.size());
  const std::string group(path.substr(0, path.find('/')));
  path.remove_prefix(std::min(path.size(), group.size() + 1));
  const std::string version(path.substr(0, path.find('/')));
  if (version.empty()) {
    bool served_group = false;
    for (const auto& service : current->services) served_group = served_group || service->group() == group;
    if (!served_group) co_return co_await server::chain::serve_not_found(exchange);
    co_return co_await current->discovery->serve_group(exchange, group);
  }
  const endpoints::GroupVersionService* service = nullptr;
  for (const auto& candidate : current->services)
    if (candidate->group() == group && candidate->version() == version) service = candidate.get();
  if (!service) co_return co_await server::chain::serve_not_found(exchange);
  const auto& request_info = exchange.context.request_info;
  if (any_withdrawn_.load(std::memory_order_acquire) && request_info && request_info->is_resource_request) {
    bool withdrawn = false;
    {
      std::lock_guard lock(mutex_);
      for (const auto& served : current->served)
        if (served->crd->group == group && served->version == version &&
            served->store->definition().resource == request_info->resource && withdrawn_.contains(served->crd->uid))
          withdrawn = true;
    }
    if (withdrawn) co_return co_await server::chain::serve_not_found(exchange);
  }

  // crdHandler: a terminating CRD's resources can be read and deleted, but no longer created.
  const auto& info = exchange.context.request_info;
  if (info && info->is_resource_request && info->verb == "create") {
    for (const auto& served : current->served) {
      if (served->crd->group != group || served->version != version || !served->crd->terminating ||
          served->store->definition().resource != info->resource)
        continue;
      apierrors::Status refused = apierrors::method_not_supported(group, info->resource, info->verb);
      refused.message = "create not allowed while custom resource definition is terminating";
      co_return co_await http::write_status(*exchange.response, refused);
    }
  }
  co_await service->serve(exchange);
}

void CustomResourceServer::withdraw(std::string crd_uid) {
  std::lock_guard lock(mutex_);
  withdrawn_.insert(std::move(crd_uid));
  any_withdrawn_.store(true, std::memory_order_release);
}

discovery::DynamicServices CustomResourceServer::services() const {
  std::shared_ptr<const Snapshot> current = snapshot();
  discovery::DynamicServices out;
  for (const auto& service : current->services) out.services.push_back(service.get());
  out.keep_alive = std::move(current);
  return out;
}

std::vector<std::shared_ptr<registry::Store>> CustomResourceServer::namespaced_stores() const {
  std::shared_ptr<const Snapshot> current = snapshot();
  std::vector<std::shared_ptr<registry::Store>> out;
  std::set<std::string> crds;
  for (const auto& served : current->served)
    if (served->crd->namespaced && crds.insert(served->crd->uid).second) out.push_back(served->store);
  return out;
}

std::shared_ptr<registry::Store> CustomResourceServer::store_for_kind(std::string_view group, std::string_view version,
                                                                      std::string_view kind) const {
  std::shared_ptr<const Snapshot> current = snapshot();
  for (const auto& served : current->served) {
    const auto& definition = served->store->definition();
    if (definition.group == group && definition.version == version && definition.kind == kind)
      return std::shared_ptr<registry::Store>(current, served->store.get());
  }
  return nullptr;
}

std::vector<admission::CustomResourceSchema> CustomResourceServer::schemas(std::string_view group,
                                                                           std::string_view version) const {
  std::vector<admission::CustomResourceSchema> out;
  for (const auto& served : snapshot()->served) {
    const auto& definition = served->store->definition();
    if (definition.group != group || definition.version != version) continue;
    const CrdVersion* served_version = served->crd->version(served->version);
    out.push_back({definition.resource, definition.kind,
                   served_version ? served_version->raw_schema : boost::json::object()});
  }
  return out;
}

std::shared_ptr<const kapi::schema::DynamicOpenApi> CustomResourceServer::openapi() const {
  return snapshot()->openapi;
}

std::shared_ptr<registry::Store> CustomResourceServer::storage_version_store(std::string_view crd_uid) const {
  std::shared_ptr<const Snapshot> current = snapshot();
  std::shared_ptr<registry::Store> any_version;
  for (const auto& served : current->served) {
    if (served->crd->uid != crd_uid) continue;
    if (!served->storage->conversion) return served->store;
    any_version = served->store;  // deleting through another version's None conversion is the same
  }
  return any_version;
}

asio::awaitable<void> CustomResourceServer::shutdown() {
  std::shared_ptr<const Snapshot> current = snapshot();
  std::set<const Storage*> stopped;
  for (const auto& served : current->served)
    if (stopped.insert(served->storage.get()).second) co_await served->storage->cacher->shutdown();
}

}  // namespace kapi::apiextensions
