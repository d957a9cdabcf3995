#pragma once
// The Kube API server's built-in resources (its RESTStorageProviders, InstallLegacyAPIGroup and
// InstallAPIGroups): for each resource a Cacher over the storage backend and a registry Store, grouped into one
// web service per group version, plus discovery and the objects kube-apiserver creates at start.
#include "server/admission/object_interfaces.h"
#include "server/apis/core/kubelet_client.h"
#include "server/apis/core/service_allocator.h"
#include "server/apis/resource_storage.h"
#include "server/apis/scheduling/scheduling.h"
#include "server/chain/kube_apiserver.h"
#include "server/authorization/rbac/reconciliation.h"
#include "server/controllers/custom_resource_feed.h"
#include "server/controllers/manager.h"
#include "server/discovery/discovery.h"
#include "server/endpoints/installer.h"
#include "server/registry/cached_store.h"
#include "server/schema/catalog.h"
#include "server/structured_merge/schema.h"
#include "server/schema/openapi_handler.h"
#include "storage/cacher/cacher.h"
#include "storage/value/transformer.h"

#include <asio/any_io_executor.hpp>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace kapi::base {
class Logger;
}

namespace kapi::admission { class Chain; }
namespace kapi::metrics { class Registry; }

namespace kapi::apis {
namespace core {
class LeaseEndpointReconciler;
class ServiceAllocationRepair;
}

class BuiltInApis {
 public:
  // `key_root` is --etcd-prefix: every key starts with it ("/registry/configmaps/..."). `network` holds the
  // service cluster IP and node port ranges and the secure port the `kubernetes` service leads to. `encryption`
  // names the resources encrypted at rest (--encryption-provider-config); `storage_media_type` is the form objects
  // are written in (--storage-media-type; either form is read).
  BuiltInApis(storage::Interface& backend, std::string key_root, asio::any_io_executor executor,
              server::Lifecycle& lifecycle, base::Logger& logger, core::ServiceNetwork network = {},
              core::TokenRequestConfig tokens = {}, core::KubeletClientConfig kubelet = {},
              const storage::value::ResourceTransformers& encryption = {},
              std::string_view storage_media_type = "application/json");
  ~BuiltInApis();

  // Adds the reviews, which answer from `authorizer` and `authenticator`, and routes every group version, /api,
  // /apis, /apis/<group> and /openapi in the Kube API server's director.
  void install(server::chain::KubeApiServer& kube, std::shared_ptr<const authorization::Authorizer> authorizer,
               std::shared_ptr<const authentication::RequestAuthenticator> authenticator);
  // Reads the core/v1 objects service account tokens name (the watch cache, then storage on a miss).
  authentication::ObjectGetter object_getter() const;
  // What RBAC objects written by requests are checked against; configure it before serving.
  authorization::rbac::EscalationCheck& escalation_check() { return *escalation_check_; }
  // With RBAC authorization, /readyz also waits until its authorizer holds the bootstrap policy; set before serving.
  void wait_for_rbac_authorizer(std::function<bool(const authorization::rbac::BootstrapRevisions&)> has_policy) {
    rbac_bootstrap_->authorizer_has = std::move(has_policy);
  }
  // Creates the namespaces every cluster has (default, kube-system, kube-public, kube-node-lease) when missing,
  // starts following the services for IP and port allocation and creates the `kubernetes` service, retrying
  // while storage is unreachable; until it has, the post-start hook check fails /readyz. Then stores the
  // bootstrap RBAC policy (the rbac/bootstrap-roles post-start hook). Once the namespaces exist the controller
  // manager starts (manager.h).
  // Meanwhile the priority-and-fairness-config-producer post-start hook stores kube's bootstrap FlowSchemas and
  // PriorityLevelConfigurations, and keeps them every minute.
  asio::awaitable<void> bootstrap(const server::Lifecycle& lifecycle);
  // kube's pre-shutdown hooks, run as shutdown begins: this server leaves the `kubernetes` endpoints.
  asio::awaitable<void> run_pre_shutdown_hooks();
  // Stops every Cacher (ending their watches); call before the reactor stops.
  asio::awaitable<void> shutdown();

  registry::Store* store(std::string_view group, std::string_view resource) const;
  // What the watch cache of a resource holds (objects, watchers); none for a resource not built in.
  std::optional<storage::cacher::CacheState::Stats> cache_stats(std::string_view group, std::string_view resource) const;
  // Set at shutdown: what the server's own controllers stop on.
  std::shared_ptr<const std::atomic<bool>> stopping_controllers() const { return stopping_controllers_; }
  // The type schemas of every built-in kind.
  const schema::Catalog& catalog() const { return catalog_; }
  // The form built-in objects are stored in (--storage-media-type), for the other servers' built-in kinds.
  std::shared_ptr<const storage::value::Transformer> storage_codec() const { return storage_codec_; }
  const schema::PatchSchemas& patch_schemas() const { return patch_schemas_; }
  // Every built-in kind's server-side apply types (fieldmanager::schema_from_catalog), for other servers' kinds too.
  std::shared_ptr<const structured_merge::Schema> field_types() const { return field_types_; }
  // /openapi/v2 and /openapi/v3, once installed: later servers add their documents to it.
  schema::OpenApiHandler& openapi() { return *openapi_handler_; }
  // /api and /apis, once installed: later servers add their groups to it.
  discovery::DiscoveryService& discovery() { return *discovery_; }
  // Namespaced resources served elsewhere (custom resources), whose objects the namespace controller also deletes
  // with their namespace; set before bootstrap.
  void set_more_namespaced_content(controllers::NamespaceController::ContentStores content) {
    more_namespaced_content_ = std::move(content);
  }
  // How the resource quota controller measures a quota's usage (the quota evaluators live above this layer); set
  // before bootstrap. Without it quotas get status.hard and no usage.
  void set_quota_usage(controllers::ResourceQuotaController::Usage usage) { quota_usage_ = std::move(usage); }
  // Where the API extensions server publishes the custom resources it serves, for the controllers that follow
  // every resource (the garbage collector).
  controllers::CustomResourceFeed& custom_resource_feed() { return custom_resource_feed_; }
  // Which of kube-controller-manager's controllers run, under which leader election, and the root CA they publish;
  // set before bootstrap (by default every controller runs under leader election, with no root CA).
  void configure_controllers(controllers::ControllerManagerOptions options, std::string root_ca,
                             metrics::Registry* metrics);
  // The admission chain of every built-in resource's writes (set before serving).
  void set_admission(const admission::Chain* chain);

 private:
  endpoints::GroupVersionService& service_for(const registry::ResourceDefinition& definition);
  asio::awaitable<void> store_rbac_bootstrap_policy(const server::Lifecycle& lifecycle);
  std::unique_ptr<controllers::ControllerManager> make_controller_manager(controllers::ControllerManagerOptions options,
                                                                          std::string root_ca,
                                                                          metrics::Registry* metrics);

  schema::Catalog catalog_ = schema::Catalog::builtin();
  schema::PatchSchemas patch_schemas_{catalog_};
  std::shared_ptr<const storage::value::Transformer> storage_codec_;
  std::shared_ptr<const structured_merge::Schema> field_types_;
  // kube's raw storages (NewRawStorage): the backend in the stored form, for what is stored but not served (the
  // service ranges, the servers' master leases).
  std::vector<std::unique_ptr<storage::Interface>> raw_storages_;
  std::shared_ptr<core::ServiceAllocator> service_allocator_;
  std::shared_ptr<authorization::rbac::EscalationCheck> escalation_check_ =
      std::make_shared<authorization::rbac::EscalationCheck>();
  // Set at shutdown: the controllers' watches end with the Cachers and must not start again.
  std::shared_ptr<std::atomic<bool>> stopping_controllers_ = std::make_shared<std::atomic<bool>>(false);
  std::vector<registry::CachedStore> resources_;
  admission::ObjectInterfaces object_interfaces_;  // every resource's versions, for admission
  std::vector<std::unique_ptr<registry::Creater>> creaters_;
  // Resources computed rather than stored (componentstatuses): each one's source of objects, then its Store.
  std::vector<std::unique_ptr<storage::Interface>> computed_sources_;
  std::vector<std::unique_ptr<registry::Store>> computed_stores_;
  std::vector<std::unique_ptr<endpoints::GroupVersionService>> services_;
  std::unique_ptr<discovery::DiscoveryService> discovery_;
  std::unique_ptr<schema::OpenApiDocuments> openapi_;
  std::unique_ptr<schema::OpenApiHandler> openapi_handler_;
  controllers::NamespaceController::ContentStores more_namespaced_content_;
  controllers::ResourceQuotaController::Usage quota_usage_;
  asio::any_io_executor executor_;  // the controllers'
  controllers::CustomResourceFeed custom_resource_feed_;  // before the manager, whose controllers subscribe to it
  std::unique_ptr<controllers::ControllerManager> controller_manager_;
  std::unique_ptr<core::LeaseEndpointReconciler> endpoint_reconciler_;  // none without an address to advertise
  std::unique_ptr<core::ServiceAllocationRepair> service_repair_;
  // Where the bootstrap RBAC policy was stored, once it is.
  struct RbacBootstrap {
    std::atomic<storage::Revision> cluster_roles{0};
    std::atomic<storage::Revision> cluster_role_bindings{0};
    std::atomic<storage::Revision> roles{0};
    std::atomic<storage::Revision> role_bindings{0};
    std::atomic<bool> done{false};  // set after the revisions
    std::function<bool(const authorization::rbac::BootstrapRevisions&)> authorizer_has;
  };
  std::shared_ptr<RbacBootstrap> rbac_bootstrap_ = std::make_shared<RbacBootstrap>();
  server::Lifecycle& lifecycle_;
  base::Logger& logger_;
  std::shared_ptr<std::atomic<bool>> bootstrapped_ = std::make_shared<std::atomic<bool>>(false);
  // Set once the APF bootstrap configuration has been stored.
  std::shared_ptr<std::atomic<bool>> apf_configuration_produced_ = std::make_shared<std::atomic<bool>>(false);
  // The globalDefault PriorityClasses, which the PriorityClass strategy reads and a reflector follows.
  std::shared_ptr<DefaultPriorityClasses> default_priority_classes_ = std::make_shared<DefaultPriorityClasses>();
  // Set once kube's system PriorityClasses exist (scheduling/bootstrap-system-priority-classes).
  std::shared_ptr<std::atomic<bool>> system_priority_classes_ = std::make_shared<std::atomic<bool>>(false);
};

}  // namespace kapi::apis
