#pragma once
// kapi's controller manager: kube-controller-manager's controllers that a kapi control plane runs in-process, chosen
// as kube-controller-manager's --controllers chooses them and run, when several kapi servers share a store, by one
// of them only: the holder of the kube-system/kapi-controller-manager Lease (leader_election.h). Unlike
// kube-controller-manager, which exits when it loses its lease, kapi stops the controllers and is a candidate again.
//
// controller_descriptors() is the one list of controllers (kube's NewControllerDescriptors): a new controller is
// one file and one line there. What kapi-apiserver needs for itself (the APF configuration, service IP allocations,
// the CRD and APIService controllers) is not kube-controller-manager's, and always runs.
#include "base/stop_signal.h"
#include "server/controllers/custom_resource_feed.h"
#include "server/controllers/leader_election.h"
#include "server/controllers/namespace_controller.h"
#include "server/controllers/resource_quota_controller.h"
#include "server/registry/store.h"

#include <asio/any_io_executor.hpp>
#include <asio/awaitable.hpp>

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::base {
class Logger;
}
namespace kapi::metrics {
class Registry;
}

namespace kapi::controllers {

// What controllers are made from (kube's ControllerContext): the server's stores and what the server knows.
struct ControllerContext {
  std::function<registry::Store*(std::string_view group, std::string_view resource)> store;
  std::vector<registry::Store*> builtin;                  // every built-in resource's store, each version's
  CustomResourceFeed* custom_resources = nullptr;         // the served custom resources, as they change
  NamespaceController::ContentStores namespaced_content;  // every namespaced resource's store, custom ones too
  ResourceQuotaController::Usage quota_usage;
  std::string root_ca;                   // the PEM bundle the root CA publisher publishes
  metrics::Registry* metrics = nullptr;  // none in unit tests
  base::Logger* logger = nullptr;
  asio::any_io_executor executor;        // where controllers spawn their workers
};

// One controller for one term of leadership: its object, which the manager keeps until it goes itself (tasks the
// controller spawned may outlive its run), and its run, which ends once the term's stop is requested.
struct ControllerInstance {
  std::shared_ptr<void> object;
  asio::awaitable<void> run;
};

struct ControllerDescriptor {
  std::string name;                  // kube's canonical name
  std::vector<std::string> aliases;  // the names kube-controller-manager also accepts
  bool enabled_by_default = true;
  // Makes the controller, given its term's stop; empty for a name kept for a controller not built here yet.
  std::function<ControllerInstance(const ControllerContext&, std::shared_ptr<const base::StopSignal>)> make;
};

// Every controller kapi knows, in the order they start.
std::vector<ControllerDescriptor> controller_descriptors();

// The --controllers list's errors, in kube-controller-manager's wording ("\"x\" is not in the list of known
// controllers"); empty when every name is known.
std::vector<std::string> validate_controller_selection(const std::vector<std::string>& selection);
// The canonical names `selection` enables, in start order: `*` is every controller on by default, `name` enables and
// `-name` disables one (an alias counts as its controller's name); the first entry naming a controller decides.
std::vector<std::string> enabled_controllers(const std::vector<std::string>& selection);
// --controllers' help: the syntax and every name.
std::string controllers_flag_help();

struct ControllerManagerOptions {
  std::vector<std::string> controllers = {"*"};  // --controllers
  bool leader_elect = true;                      // --leader-elect
  LeaderElectionConfig election{.lease_namespace = "kube-system", .lease_name = "kapi-controller-manager"};
};

class ControllerManager {
 public:
  ControllerManager(ControllerContext context, ControllerManagerOptions options);
  ~ControllerManager();
  ControllerManager(const ControllerManager&) = delete;
  ControllerManager& operator=(const ControllerManager&) = delete;

  // Until stop(): with leader election, acquires the Lease, runs the enabled controllers while it holds it and
  // stops them when it is lost, then tries again; without, runs them at once. With no controller enabled, nothing
  // runs and no Lease is taken.
  asio::awaitable<void> run();
  // Stops the controllers and the election (at shutdown).
  void stop();

  const std::vector<std::string>& enabled() const { return enabled_; }

 private:
  void start_term(const asio::any_io_executor& executor);
  void end_term();
  void set_leading(bool leading);

  ControllerContext context_;
  ControllerManagerOptions options_;
  std::vector<std::string> enabled_;
  std::shared_ptr<base::StopSignal> stopping_ = std::make_shared<base::StopSignal>();
  std::mutex mutex_;                             // stop() comes from the shutdown, on any reactor thread
  std::shared_ptr<base::StopSignal> term_;       // the running term's stop; null between terms
  std::vector<std::string> running_;             // the controllers that term started
  std::vector<std::shared_ptr<void>> retained_;  // every controller made, see ControllerInstance
};

}  // namespace kapi::controllers
