#include "server/controllers/garbage_collector/garbage_collector.h"

#include "base/log.h"
#include "base/sleep.h"
#include "server/apierrors/errors.h"
#include "server/registry/deletion.h"
#include "server/registry/object_meta.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/experimental/concurrent_channel.hpp>
#include <asio/use_awaitable.hpp>
#include <boost/json.hpp>

#include <algorithm>

namespace kapi::controllers {

namespace json = boost::json;
using garbage_collector::NodePtr;
using garbage_collector::NodeView;
using garbage_collector::ObjectReference;
using garbage_collector::OwnerReference;

namespace {

// attemptToDeleteItem's outcomes that need no retry.
struct VirtualDeleteEnqueued {};            // the node was verified absent: the graph removes it
struct NamespacedOwnerOfClusterScoped {};   // a cluster-scoped object naming a namespaced owner: never resolves

std::set<std::string> uids_of(const std::vector<OwnerReference>& references) {
  std::set<std::string> uids;
  for (const auto& reference : references) uids.insert(reference.uid);
  return uids;
}

constexpr auto kSyncPoll = std::chrono::milliseconds(10);

}  // namespace

struct GarbageCollector::Classified {
  std::vector<OwnerReference> solid;     // the owner exists and is not waiting for its dependents
  std::vector<OwnerReference> dangling;  // the owner does not exist
  std::vector<OwnerReference> waiting_for_dependents_deletion;
};

GarbageCollector::GarbageCollector(std::vector<registry::Store*> builtin, registry::Store& events,
                                   CustomResourceFeed& custom, asio::any_io_executor executor, base::Logger& logger,
                                   std::shared_ptr<const base::StopSignal> stopping, Options options)
    : builtin_(std::move(builtin)), events_(events), custom_feed_(custom), executor_(executor), logger_(logger),
      stopping_(std::move(stopping)), options_(options), attempt_to_delete_(executor), attempt_to_orphan_(executor) {}

GarbageCollector::~GarbageCollector() = default;

asio::awaitable<void> GarbageCollector::run() {
  {
    std::lock_guard lock(mutex_);
    running_ = true;
  }
  // Subscribing starts the monitors (with the custom resources served now, or none).
  std::shared_ptr<void> following_custom =
      custom_feed_.subscribe([this](CustomResourceFeed::Stores stores) { set_custom_resources(std::move(stores)); });
  for (int i = 0; i < options_.workers; ++i) {
    asio::co_spawn(executor_, delete_worker(), asio::detached);
    asio::co_spawn(executor_, orphan_worker(), asio::detached);
  }
  co_await stopping_->wait();
  following_custom.reset();
  // The monitors' watches end on their stop; the workers end with their queues.
  stop_monitors();
  attempt_to_delete_.shut_down();
  attempt_to_orphan_.shut_down();
}

asio::awaitable<void> GarbageCollector::wait_for_sync() {
  // Workers act only on a graph that holds every followed resource (kube's WaitForCacheSync): an owner deleted in
  // the foreground must not be released before its dependents of a new resource are known.
  while (!synced() && !stopping_->requested()) co_await base::sleep_for(kSyncPoll);
}

asio::awaitable<void> GarbageCollector::delete_worker() {
  for (;;) {
    NodePtr node = co_await attempt_to_delete_.get();
    if (!node) co_return;
    co_await wait_for_sync();
    const Action action = co_await attempt_to_delete_worker(node);
    if (action == Action::kForget) attempt_to_delete_.forget(node);
    else attempt_to_delete_.add_rate_limited(node);
    attempt_to_delete_.done(node);
  }
}

asio::awaitable<void> GarbageCollector::orphan_worker() {
  for (;;) {
    NodePtr node = co_await attempt_to_orphan_.get();
    if (!node) co_return;
    co_await wait_for_sync();
    const Action action = co_await attempt_to_orphan_worker(node);
    if (action == Action::kForget) attempt_to_orphan_.forget(node);
    else attempt_to_orphan_.add_rate_limited(node);
    attempt_to_orphan_.done(node);
  }
}

asio::awaitable<GarbageCollector::Action> GarbageCollector::attempt_to_delete_worker(const NodePtr& node) {
  const NodeView queued = graph_.view(*node);
  if (!queued.observed) {
    // A virtual node requeued after an error: the object may have been observed or deleted meanwhile.
    NodePtr in_graph = graph_.find(queued.identity.uid);
    if (!in_graph) co_return Action::kForget;
    if (graph_.view(*in_graph).observed) co_return Action::kForget;
  }
  std::string failure;
  try {
    co_await attempt_to_delete_item(node);
  } catch (const VirtualDeleteEnqueued&) {
    co_return Action::kForget;
  } catch (const NamespacedOwnerOfClusterScoped&) {
    co_return Action::kForget;
  } catch (const apierrors::ApiError& error) {
    failure = error.status().message;
  } catch (const std::exception& error) {
    failure = error.what();
  }
  if (!failure.empty()) {
    if (!stopping_->requested())
      logger_.info("garbage collector: error syncing item " + queued.identity.to_string() + ": " + failure);
    co_return Action::kRequeue;
  }
  // Not observed through a watch yet: look again, or a virtual node for an object added and removed while a
  // watch was down could stay in the graph forever (kubernetes#56121).
  if (!graph_.view(*node).observed) co_return Action::kRequeue;
  co_return Action::kForget;
}

asio::awaitable<void> GarbageCollector::attempt_to_delete_item(const NodePtr& node) {
  const NodeView item = graph_.view(*node);
  // Being deleted is a one-way trip: its dependents are processed once it is gone.
  if (item.being_deleted && !item.deleting_dependents) co_return;
  std::optional<json::object> latest = co_await get_object(item.identity);
  if (!latest || registry::meta_string(*latest, "uid") != item.identity.uid) {
    // Absent (or another object under the name): the graph drops the node, a virtual one included.
    enqueue_virtual_delete(item.identity);
    throw VirtualDeleteEnqueued{};
  }
  if (item.deleting_dependents) co_return co_await process_deleting_dependents(item);

  const std::vector<OwnerReference> references = garbage_collector::owner_references(*latest);
  if (references.empty()) co_return;
  const Classified classified = co_await classify_references(item, references);
  const std::string resource_version(registry::meta_string(*latest, "resourceVersion"));
  std::string policy;
  if (!classified.solid.empty()) {
    if (classified.dangling.empty() && classified.waiting_for_dependents_deletion.empty()) co_return;
    // Some owner is left: only the references to absent owners go, and those to owners waiting for their
    // dependents (else those owners would wait forever).
    std::set<std::string> uids = uids_of(classified.dangling);
    for (const auto& reference : classified.waiting_for_dependents_deletion) uids.insert(reference.uid);
    co_return co_await remove_owner_references(item.identity, std::move(uids));
  }
  if (!classified.waiting_for_dependents_deletion.empty() && !item.dependents.empty()) {
    if (!item.dependents_deleting_dependents.empty()) {
      // An owner and a dependent both wait for their dependents: a possible cycle. This object stops blocking its
      // owners, then goes in the foreground (kube's detection, false positives included).
      logger_.info("garbage collector: " + item.identity.to_string() +
                   " and one of its dependents wait for their dependents; unblocking its owners");
      co_await unblock_owner_references(item.identity);
    }
    // Deleted in the foreground: processDeletingDependents finishes it once its own dependents are gone.
    policy = "Foreground";
  } else if (registry::has_finalizer(*latest, registry::kOrphanFinalizer)) {
    policy = "Orphan";  // no solid owner left: an orphan finalizer already there is honoured
  } else if (registry::has_finalizer(*latest, registry::kForegroundDeletionFinalizer)) {
    policy = "Foreground";
  } else {
    policy = "Background";
  }
  try {
    co_await delete_object(item.identity, resource_version, references, policy);
  } catch (const apierrors::ApiError& error) {
    if (error.status().code != 404) throw;
    policy.clear();  // gone meanwhile
  }
  if (policy.empty()) {
    enqueue_virtual_delete(item.identity);
    throw VirtualDeleteEnqueued{};
  }
}

asio::awaitable<void> GarbageCollector::process_deleting_dependents(const NodeView& item) {
  if (item.blocking_dependents.empty()) {
    // No dependent blocks it any longer: the owner goes with its foregroundDeletion finalizer.
    std::string finalizer(registry::kForegroundDeletionFinalizer);
    co_return co_await remove_finalizer(item.identity, std::move(finalizer));
  }
  for (const auto& dependent : item.blocking_dependents_not_deleting) attempt_to_delete_.add(dependent);
}

asio::awaitable<GarbageCollector::Classified> GarbageCollector::classify_references(
    const NodeView& item, const std::vector<OwnerReference>& references) {
  Classified out;
  for (const auto& reference : references) {
    // isDangling: absent owners are remembered, cluster-scoped ones without a namespace.
    ObjectReference absent = ObjectReference::of(reference, "");
    if (absent_owners_->has(absent)) {
      out.dangling.push_back(reference);
      continue;
    }
    absent.namespace_ = item.identity.namespace_;
    if (absent_owners_->has(absent)) {
      out.dangling.push_back(reference);
      continue;
    }
    Mapping mapping = mapping_for(reference.api_version, reference.kind);
    if (!mapping.namespaced) absent.namespace_.clear();
    if (item.identity.namespace_.empty() && mapping.namespaced) {
      logger_.info("garbage collector: " + item.identity.to_string() + " is cluster-scoped, but refers to a " +
                   "namespaced owner of type " + reference.api_version + "/" + reference.kind);
      throw NamespacedOwnerOfClusterScoped{};
    }
    // A namespaced owner is looked for in the dependent's namespace: one elsewhere counts as absent.
    ObjectReference owner_identity = ObjectReference::of(reference, mapping.namespaced ? item.identity.namespace_ : "");
    std::optional<json::object> owner = co_await get_object(owner_identity);
    if (!owner || registry::meta_string(*owner, "uid") != reference.uid) {
      absent_owners_->add(absent);
      out.dangling.push_back(reference);
      continue;
    }
    if (!registry::meta_string(*owner, "deletionTimestamp").empty() &&
        registry::has_finalizer(*owner, registry::kForegroundDeletionFinalizer))
      out.waiting_for_dependents_deletion.push_back(reference);
    else
      out.solid.push_back(reference);
  }
  co_return out;
}

asio::awaitable<GarbageCollector::Action> GarbageCollector::attempt_to_orphan_worker(const NodePtr& owner) {
  const NodeView item = graph_.view(*owner);
  try {
    std::vector<NodePtr> dependents = item.dependents;
    co_await orphan_dependents(item.identity, std::move(dependents));
    // Then the owner loses its orphan finalizer (and goes, if it was the last).
    std::string finalizer(registry::kOrphanFinalizer);
    co_await remove_finalizer(item.identity, std::move(finalizer));
    co_return Action::kForget;
  } catch (const std::exception& error) {
    if (!stopping_->requested())
      logger_.info("garbage collector: orphaning the dependents of " + item.identity.to_string() + ": " + error.what());
  }
  co_return Action::kRequeue;
}

asio::awaitable<void> GarbageCollector::orphan_dependents(const ObjectReference& owner, std::vector<NodePtr> dependents) {
  if (dependents.empty()) co_return;
  // All at once, as kube's goroutines: each sends its failure (or nothing) on the channel.
  using Results = asio::experimental::concurrent_channel<void(asio::error_code, std::string)>;
  auto results = std::make_shared<Results>(executor_, dependents.size());
  for (const auto& dependent : dependents) {
    auto orphan = [](GarbageCollector& self, ObjectReference owner_identity, ObjectReference dependent_identity,
                     std::shared_ptr<Results> out) -> asio::awaitable<void> {
      std::string failure;
      try {
        std::set<std::string> owner_uids{owner_identity.uid};
        co_await self.remove_owner_references(dependent_identity, std::move(owner_uids));
      } catch (const apierrors::ApiError& error) {
        if (error.status().code != 404) failure = error.status().message;
      } catch (const std::exception& error) {
        failure = error.what();
      }
      if (!failure.empty()) failure = "orphaning " + dependent_identity.to_string() + " failed, " + failure;
      out->try_send(asio::error_code(), std::move(failure));
    };
    ObjectReference dependent_identity = graph_.view(*dependent).identity;
    asio::co_spawn(executor_, orphan(*this, owner, std::move(dependent_identity), results), asio::detached);
  }
  std::string failures;
  for (std::size_t i = 0; i < dependents.size(); ++i) {
    auto [error, failure] = co_await results->async_receive(asio::experimental::as_tuple(asio::use_awaitable));
    if (error) break;
    if (!failure.empty()) failures += (failures.empty() ? "" : ", ") + failure;
  }
  if (!failures.empty())
    throw std::runtime_error("failed to orphan dependents of owner " + owner.to_string() + ", got errors: " + failures);
}

}  // namespace kapi::controllers
