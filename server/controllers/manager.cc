#include "server/controllers/manager.h"

#include "base/log.h"
#include "server/controllers/cluster_role_aggregation.h"
#include "server/controllers/garbage_collector/garbage_collector.h"
#include "server/controllers/root_ca_cert_publisher.h"
#include "server/controllers/service_accounts_controller.h"
#include "server/metrics/registry.h"

#include <asio/co_spawn.hpp>
#include <asio/this_coro.hpp>

#include <algorithm>

namespace kapi::controllers {
namespace {

constexpr std::string_view kManager = "kapi-controller-manager";  // running_managed_controllers' manager label

// A descriptor's make for a controller of type T built from the context by `build`.
template <typename T, typename Build>
std::function<ControllerInstance(const ControllerContext&, std::shared_ptr<const base::StopSignal>)> making(
    Build build) {
  return [build](const ControllerContext& context, std::shared_ptr<const base::StopSignal> stopping) {
    std::shared_ptr<T> controller = build(context, std::move(stopping));
    asio::awaitable<void> run = controller->run();
    return ControllerInstance{std::move(controller), std::move(run)};
  };
}

registry::Store& core(const ControllerContext& context, std::string_view resource) {
  return *context.store("", resource);
}

// The resources whose deletions (and pods finishing, services and claims changing) lower a quota's usage; the
// quota controller's periodic resync catches the others.
std::vector<registry::Store*> quota_counted(const ControllerContext& context) {
  std::vector<registry::Store*> counted;
  for (std::string_view resource :
       {"pods", "services", "persistentvolumeclaims", "configmaps", "secrets", "replicationcontrollers"})
    counted.push_back(context.store("", resource));
  return counted;
}

// A name as the registry knows it: an alias becomes its controller's name; unknown names stay as they are.
std::string canonical(const std::vector<ControllerDescriptor>& descriptors, std::string_view name) {
  for (const auto& descriptor : descriptors)
    if (descriptor.name == name ||
        std::find(descriptor.aliases.begin(), descriptor.aliases.end(), name) != descriptor.aliases.end())
      return descriptor.name;
  return std::string(name);
}

// IsControllerEnabled over the canonicalized list.
bool is_enabled(const ControllerDescriptor& descriptor, const std::vector<std::string>& selection) {
  bool star = false;
  for (const auto& entry : selection) {
    if (entry == descriptor.name) return true;
    if (entry == "-" + descriptor.name) return false;
    if (entry == "*") star = true;
  }
  return star && descriptor.enabled_by_default;
}

}  // namespace

std::vector<ControllerDescriptor> controller_descriptors() {
  return {
      {"namespace-controller",
       {"namespace"},
       true,
       making<NamespaceController>([](const ControllerContext& context, std::shared_ptr<const base::StopSignal> stop) {
         return std::make_shared<NamespaceController>(core(context, "namespaces"), context.namespaced_content,
                                                      *context.logger, std::move(stop));
       })},
      {"serviceaccount-controller",
       {"serviceaccount"},
       true,
       making<ServiceAccountsController>(
           [](const ControllerContext& context, std::shared_ptr<const base::StopSignal> stop) {
             return std::make_shared<ServiceAccountsController>(
                 core(context, "namespaces"), core(context, "serviceaccounts"), *context.logger, std::move(stop));
           })},
      {"garbage-collector-controller",
       {"garbagecollector"},
       true,
       making<GarbageCollector>([](const ControllerContext& context, std::shared_ptr<const base::StopSignal> stop) {
         return std::make_shared<GarbageCollector>(context.builtin, core(context, "events"), *context.custom_resources,
                                                   context.executor, *context.logger, std::move(stop));
       })},
      {"resourcequota-controller",
       {"resourcequota"},
       true,
       making<ResourceQuotaController>(
           [](const ControllerContext& context, std::shared_ptr<const base::StopSignal> stop) {
             return std::make_shared<ResourceQuotaController>(core(context, "resourcequotas"), quota_counted(context),
                                                              context.quota_usage, *context.logger, std::move(stop));
           })},
      {"clusterrole-aggregation-controller",
       {"clusterrole-aggregation"},
       true,
       making<ClusterRoleAggregationController>(
           [](const ControllerContext& context, std::shared_ptr<const base::StopSignal> stop) {
             return std::make_shared<ClusterRoleAggregationController>(
                 *context.store("rbac.authorization.k8s.io", "clusterroles"), *context.logger, std::move(stop));
           })},
      {"root-ca-certificate-publisher-controller",
       {"root-ca-cert-publisher"},
       true,
       making<RootCaCertPublisher>([](const ControllerContext& context, std::shared_ptr<const base::StopSignal> stop) {
         return std::make_shared<RootCaCertPublisher>(
             core(context, "namespaces"), core(context, "configmaps"), context.root_ca, *context.logger,
             context.metrics ? &context.metrics->root_ca_cert_publisher_syncs : nullptr, std::move(stop));
       })},
  };
}

std::vector<std::string> validate_controller_selection(const std::vector<std::string>& selection) {
  const std::vector<ControllerDescriptor> descriptors = controller_descriptors();
  std::vector<std::string> errors;
  for (const auto& entry : selection) {
    if (entry == "*") continue;
    const std::string_view name = std::string_view(entry).substr(entry.starts_with("-") ? 1 : 0);
    const std::string known = canonical(descriptors, name);
    if (std::none_of(descriptors.begin(), descriptors.end(), [&](const auto& d) { return d.name == known; }))
      errors.push_back("\"" + std::string(name) + "\" is not in the list of known controllers");
  }
  return errors;
}

std::vector<std::string> enabled_controllers(const std::vector<std::string>& selection) {
  const std::vector<ControllerDescriptor> descriptors = controller_descriptors();
  std::vector<std::string> canonicalized;
  for (const auto& entry : selection) {
    const bool disables = entry.starts_with("-");
    const std::string name = canonical(descriptors, std::string_view(entry).substr(disables ? 1 : 0));
    canonicalized.push_back(entry == "*" ? entry : (disables ? "-" : "") + name);
  }
  std::vector<std::string> enabled;
  for (const auto& descriptor : descriptors)
    if (is_enabled(descriptor, canonicalized)) enabled.push_back(descriptor.name);
  return enabled;
}

std::string controllers_flag_help() {
  std::vector<std::string> all;
  std::vector<std::string> off;
  for (const auto& descriptor : controller_descriptors()) {
    all.push_back(descriptor.name);
    if (!descriptor.enabled_by_default) off.push_back(descriptor.name);
  }
  std::sort(all.begin(), all.end());
  auto join = [](const std::vector<std::string>& names) {
    std::string out;
    for (const auto& name : names) out += (out.empty() ? "" : ", ") + name;
    return out;
  };
  return "A list of controllers to enable. '*' enables all on-by-default controllers, 'foo' enables the controller "
         "named 'foo', '-foo' disables the controller named 'foo'.\nAll controllers: " +
         join(all) + "\nDisabled-by-default controllers: " + join(off) +
         "\n(kapi) Defaults to '*' on the embedded store and to none with --etcd-servers, where a "
         "kube-controller-manager is expected to run them.";
}

ControllerManager::ControllerManager(ControllerContext context, ControllerManagerOptions options)
    : context_(std::move(context)), options_(std::move(options)), enabled_(enabled_controllers(options_.controllers)) {}

ControllerManager::~ControllerManager() = default;

void ControllerManager::stop() {
  stopping_->request();
  end_term();
}

void ControllerManager::set_leading(bool leading) {
  if (context_.metrics) context_.metrics->leader_election_master_status.set({options_.election.lease_name}, leading);
}

void ControllerManager::start_term(const asio::any_io_executor& executor) {
  auto term = std::make_shared<base::StopSignal>();
  std::vector<std::string> running;
  const std::vector<ControllerDescriptor> descriptors = controller_descriptors();
  for (const auto& name : enabled_) {
    auto descriptor =
        std::find_if(descriptors.begin(), descriptors.end(), [&](const auto& d) { return d.name == name; });
    if (!descriptor->make) {
      context_.logger->info("controller manager: " + name + " is not available in this build, skipping");
      continue;
    }
    ControllerInstance instance = descriptor->make(context_, term);
    {
      std::lock_guard lock(mutex_);
      retained_.push_back(std::move(instance.object));
    }
    if (context_.metrics) context_.metrics->running_managed_controllers.set({name, std::string(kManager)}, 1);
    context_.logger->info("controller manager: started " + name);
    asio::co_spawn(executor, std::move(instance.run), [logger = context_.logger, name](std::exception_ptr error) {
      if (!error) return;
      try {
        std::rethrow_exception(error);
      } catch (const std::exception& e) {
        logger->error("controller manager: " + name + " failed: " + e.what());
      }
    });
    running.push_back(name);
  }
  {
    std::lock_guard lock(mutex_);
    term_ = std::move(term);
    running_ = std::move(running);
  }
  if (stopping_->requested()) end_term();  // stop() came while the term was starting
}

void ControllerManager::end_term() {
  std::shared_ptr<base::StopSignal> term;
  std::vector<std::string> running;
  {
    std::lock_guard lock(mutex_);
    term = std::move(term_);
    running = std::move(running_);
  }
  if (!term) return;
  term->request();
  if (context_.metrics)
    for (const auto& name : running) context_.metrics->running_managed_controllers.set({name, std::string(kManager)}, 0);
}

asio::awaitable<void> ControllerManager::run() {
  const asio::any_io_executor executor = co_await asio::this_coro::executor;
  if (enabled_.empty()) {
    context_.logger->info("controller manager: no controller enabled");
    co_return;
  }
  if (!options_.leader_elect) {
    start_term(executor);
    co_await stopping_->wait();
    co_return;
  }
  LeaderElector elector(*context_.store("coordination.k8s.io", "leases"), options_.election, *context_.logger);
  set_leading(false);
  while (!stopping_->requested()) {
    const bool acquired = co_await elector.acquire(*stopping_);
    if (!acquired) break;
    set_leading(true);
    start_term(executor);
    co_await elector.keep_renewing(*stopping_);
    // kube-controller-manager exits here ("leaderelection lost"); kapi goes on serving and is a candidate again.
    end_term();
    set_leading(false);
    if (!stopping_->requested())
      context_.logger->warning("controller manager: leader election lost, controllers stopped");
  }
}

}  // namespace kapi::controllers
