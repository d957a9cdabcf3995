#pragma once
// The garbage collector (kube-controller-manager's pkg/controller/garbagecollector, --concurrent-gc-syncs=20), run
// by kapi's controller manager (garbage-collector-controller) for one term of leadership. Its contract, as kube's:
// - Monitors follow every resource that can carry ownerReferences (the built-in ones but Events, and each served
//   custom resource, which the CRD server publishes on the CustomResourceFeed as CRDs come and go) with a list, then a watch from the list's
//   resourceVersion, listing again when the watch ends; each change updates the dependency graph (GraphBuilder).
// - attemptToDelete: an object whose owners are all gone (verified with a live GET, as caches lag) is deleted in
//   the background (or as its own orphan/foregroundDeletion finalizer says); one with some owners left only loses
//   the dangling references; one whose owner waits for its dependents in the foreground is deleted first
//   (Foreground when it has dependents of its own). An owner with the foregroundDeletion finalizer loses it, and
//   so goes, once no dependent with blockOwnerDeletion is left.
// - attemptToOrphan: an owner with the orphan finalizer has its reference removed from every dependent, then
//   loses the finalizer.
// - A namespaced dependent can only be owned from its own namespace: a reference to an owner of another namespace
//   is reported with a Warning Event (OwnerRefInvalidNamespace) and counts as absent; a cluster-scoped object
//   naming a namespaced owner is left alone.
// Deletes carry the uid (and resourceVersion) precondition. Failing items come back with the rate limiter's
// backoff. Workers are coroutines; the graph is guarded by a lock that no I/O is done under.
// Lifetime: run() ends once `stopping` is requested, with the monitors' watches and the queues stopped; workers
// and monitors may finish after it, so the object must outlive them (the controller manager keeps it).
#include "base/stop_signal.h"
#include "server/controllers/custom_resource_feed.h"
#include "server/controllers/garbage_collector/graph_builder.h"
#include "server/controllers/garbage_collector/work_queue.h"
#include "server/registry/store.h"

#include <asio/any_io_executor.hpp>
#include <asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kapi::base {
class Logger;
}

namespace kapi::controllers {

class GarbageCollector {
 public:
  struct Options {
    int workers = 20;  // --concurrent-gc-syncs, for each of the two queues
    // How long workers wait for a newly followed resource's first list before going on without it (kube's
    // WaitForCacheSync bound in its monitor resync).
    std::chrono::milliseconds sync_timeout{30000};
  };

  // `builtin`: every built-in resource's Store (several versions of one resource: the first is followed);
  // `events`: core/v1 events, where the collector's Events go; `custom`: the served custom resources (for a CRD
  // the first of its versions is followed and every version maps its apiVersion). All outlive the collector.
  GarbageCollector(std::vector<registry::Store*> builtin, registry::Store& events, CustomResourceFeed& custom,
                   asio::any_io_executor executor, base::Logger& logger,
                   std::shared_ptr<const base::StopSignal> stopping, Options options);
  GarbageCollector(std::vector<registry::Store*> builtin, registry::Store& events, CustomResourceFeed& custom,
                   asio::any_io_executor executor, base::Logger& logger,
                   std::shared_ptr<const base::StopSignal> stopping)
      : GarbageCollector(std::move(builtin), events, custom, std::move(executor), logger, std::move(stopping),
                         Options{}) {}
  ~GarbageCollector();

  // Follows the resources and runs the workers until `stopping` is requested.
  asio::awaitable<void> run();

  // How many objects the graph holds (for tests and the log).
  std::size_t graph_size() const { return graph_.size(); }

 private:
  struct Monitor;
  struct Mapping {
    std::shared_ptr<registry::Store> store;
    bool namespaced = true;
  };
  enum class Action { kForget, kRequeue };

  // Monitors (monitors.cc).
  // The served custom resources changed: resources no longer served stop being followed, new ones start.
  void set_custom_resources(std::vector<std::shared_ptr<registry::Store>> stores);
  void sync_monitors();
  void stop_monitors();
  asio::awaitable<void> follow(std::shared_ptr<Monitor> monitor);
  void observe(Monitor& monitor, const boost::json::object& object, bool deleted);
  void apply(garbage_collector::GraphEffects effects);
  void enqueue_virtual_delete(const garbage_collector::ObjectReference& identity);
  bool synced() const;
  std::optional<Mapping> find_mapping(std::string_view api_version, std::string_view kind) const;

  // Workers (garbage_collector.cc).
  asio::awaitable<void> delete_worker();
  asio::awaitable<void> orphan_worker();
  asio::awaitable<void> wait_for_sync();
  asio::awaitable<Action> attempt_to_delete_worker(const garbage_collector::NodePtr& node);
  // Throws kVirtualDeleteEnqueued / kNamespacedOwnerOfClusterScoped (forget) or another error (retry).
  asio::awaitable<void> attempt_to_delete_item(const garbage_collector::NodePtr& node);
  asio::awaitable<void> process_deleting_dependents(const garbage_collector::NodeView& item);
  struct Classified;
  asio::awaitable<Classified> classify_references(const garbage_collector::NodeView& item,
                                                  const std::vector<garbage_collector::OwnerReference>& references);
  asio::awaitable<Action> attempt_to_orphan_worker(const garbage_collector::NodePtr& owner);
  asio::awaitable<void> orphan_dependents(const garbage_collector::ObjectReference& owner,
                                          std::vector<garbage_collector::NodePtr> dependents);

  // Operations on objects (operations.cc): through the Store their apiVersion/kind maps to.
  Mapping mapping_for(std::string_view api_version, std::string_view kind) const;  // throws when unmapped
  asio::awaitable<std::optional<boost::json::object>> get_object(const garbage_collector::ObjectReference& identity);
  asio::awaitable<void> delete_object(const garbage_collector::ObjectReference& identity, std::string resource_version,
                                      std::vector<garbage_collector::OwnerReference> owners_at_version,
                                      std::string policy);
  asio::awaitable<void> remove_owner_references(const garbage_collector::ObjectReference& identity,
                                                std::set<std::string> owner_uids);
  asio::awaitable<void> unblock_owner_references(const garbage_collector::ObjectReference& identity);
  asio::awaitable<void> remove_finalizer(const garbage_collector::ObjectReference& identity, std::string finalizer);
  asio::awaitable<void> record_invalid_namespace(garbage_collector::InvalidOwnerReference invalid);

  std::vector<registry::Store*> builtin_;
  registry::Store& events_;
  CustomResourceFeed& custom_feed_;
  asio::any_io_executor executor_;
  base::Logger& logger_;
  std::shared_ptr<const base::StopSignal> stopping_;
  Options options_;
  std::shared_ptr<garbage_collector::AbsentOwnerCache> absent_owners_ =
      std::make_shared<garbage_collector::AbsentOwnerCache>();
  garbage_collector::GraphBuilder graph_{absent_owners_};
  garbage_collector::WorkQueue attempt_to_delete_;
  garbage_collector::WorkQueue attempt_to_orphan_;

  mutable std::mutex mutex_;  // guards what follows
  std::vector<std::shared_ptr<registry::Store>> custom_;
  bool running_ = false;
  // Followed resources by the storage they read (a CRD update that keeps a version's storage keeps its monitor).
  std::map<const storage::Interface*, std::shared_ptr<Monitor>> monitors_;
  std::chrono::steady_clock::time_point sync_deadline_{};
};

}  // namespace kapi::controllers
