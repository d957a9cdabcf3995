// The garbage collector's monitors (graph_builder.go's monitors and syncMonitors, and the RESTMapper it resolves
// owners with): one reflector per followed resource feeding the GraphBuilder, started and stopped as the set of
// resources changes.
#include "server/controllers/garbage_collector/garbage_collector.h"

#include "base/log.h"
#include "server/registry/deletion.h"
#include "server/registry/object_meta.h"
#include "server/registry/reflector.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <boost/json.hpp>

#include <string_view>
#include <unordered_set>

namespace kapi::controllers {

namespace json = boost::json;
using garbage_collector::GraphEffects;
using garbage_collector::GraphEvent;
using garbage_collector::ObjectReference;

namespace {

// Resources the collector ignores (kube's DefaultIgnoredResources): events are written too often to follow, and
// nobody owns them.
bool ignored(const registry::ResourceDefinition& definition) {
  return definition.resource == "events" && (definition.group.empty() || definition.group == "events.k8s.io");
}

}  // namespace

struct GarbageCollector::Monitor {
  std::shared_ptr<registry::Store> store;
  std::shared_ptr<base::StopSignal> stop = std::make_shared<base::StopSignal>();
  std::atomic<bool> synced{false};
  // No informer store: the graph's observed nodes are what the monitor last saw of each object (the old state of
  // its next event, and what a relist must account for), so the collector keeps one record per object.
};

void GarbageCollector::set_custom_resources(std::vector<std::shared_ptr<registry::Store>> stores) {
  {
    std::lock_guard lock(mutex_);
    custom_ = std::move(stores);
  }
  sync_monitors();
}

std::optional<GarbageCollector::Mapping> GarbageCollector::find_mapping(std::string_view api_version,
                                                                        std::string_view kind) const {
  // RESTMapping(groupKind, version): the served version of that group and kind.
  auto matches = [&](const registry::ResourceDefinition& definition) {
    return definition.kind == kind && definition.group_version() == api_version;
  };
  for (registry::Store* store : builtin_)
    if (matches(store->definition()))
      return Mapping{std::shared_ptr<registry::Store>(std::shared_ptr<void>(), store), store->definition().namespaced};
  std::lock_guard lock(mutex_);
  for (const auto& store : custom_)
    if (matches(store->definition())) return Mapping{store, store->definition().namespaced};
  return std::nullopt;
}

void GarbageCollector::sync_monitors() {
  std::vector<std::shared_ptr<Monitor>> started;
  {
    std::lock_guard lock(mutex_);
    if (!running_) return;  // run() starts them
    // One store per group/resource: the first listed (built-ins: the storage version; CRDs: as the server lists).
    std::vector<std::shared_ptr<registry::Store>> wanted;
    std::set<std::string> resources;
    for (registry::Store* store : builtin_)
      if (!ignored(store->definition()) && resources.insert(store->definition().qualified_resource()).second)
        wanted.emplace_back(std::shared_ptr<void>(), store);  // owned by the server, which outlives the collector
    for (const auto& store : custom_)
      if (resources.insert(store->definition().qualified_resource()).second) wanted.push_back(store);
    std::map<const storage::Interface*, std::shared_ptr<Monitor>> next;
    for (auto& store : wanted) {
      const storage::Interface* key = &store->storage();
      if (auto kept = monitors_.find(key); kept != monitors_.end()) {
        next.emplace(key, kept->second);
        continue;
      }
      auto monitor = std::make_shared<Monitor>();
      monitor->store = std::move(store);
      next.emplace(key, monitor);
      started.push_back(std::move(monitor));
    }
    // A resource no longer served: its watch ends; its objects stay in the graph, as in kube.
    for (auto& [key, monitor] : monitors_)
      if (!next.contains(key)) monitor->stop->request();
    monitors_ = std::move(next);
    if (!started.empty()) sync_deadline_ = std::chrono::steady_clock::now() + options_.sync_timeout;
  }
  for (auto& monitor : started) asio::co_spawn(executor_, follow(std::move(monitor)), asio::detached);
}

void GarbageCollector::stop_monitors() {
  std::lock_guard lock(mutex_);
  running_ = false;
  for (auto& [key, monitor] : monitors_) monitor->stop->request();
}

bool GarbageCollector::synced() const {
  std::lock_guard lock(mutex_);
  if (std::chrono::steady_clock::now() >= sync_deadline_) return true;
  for (const auto& [key, monitor] : monitors_)
    if (!monitor->synced.load()) return false;
  return true;
}

asio::awaitable<void> GarbageCollector::follow(std::shared_ptr<Monitor> monitor) {
  registry::ReflectorHandlers handlers;
  handlers.replace = [this, monitor](std::vector<json::object> objects, storage::Revision) -> asio::awaitable<void> {
    // A relist: what the graph observed of this kind and the list lacks was deleted meanwhile (the informer's
    // DeletedFinalStateUnknown).
    std::unordered_set<std::string_view> listed;
    for (const auto& object : objects) {
      listed.insert(registry::meta_string(object, "uid"));
      observe(*monitor, object, false);
    }
    const auto& definition = monitor->store->definition();
    for (auto& identity : graph_.observed_of(definition.group_version(), definition.kind)) {
      if (listed.contains(identity.uid)) continue;
      GraphEvent event;
      event.type = GraphEvent::Type::Delete;
      event.identity = std::move(identity);
      apply(graph_.process(event));
    }
    monitor->synced.store(true);
    co_return;
  };
  handlers.apply = [this, monitor](const storage::WatchEvent& event, json::object object) -> asio::awaitable<void> {
    observe(*monitor, object, event.type == storage::WatchEventType::Deleted);
    co_return;
  };
  const auto& definition = monitor->store->definition();
  registry::ReflectorOptions options{"the garbage collector's " + definition.qualified_resource()};
  // The collector reads metadata only (kube's follows metadata-only informers): the rest is dropped as each object
  // is read, so a relist of a resource with many large objects holds only their metadata.
  options.trim = [](json::object& object) {
    json::object& full = registry::metadata_of(object);
    json::object kept;
    for (std::string_view field : {"name", "namespace", "uid", "ownerReferences", "deletionTimestamp", "finalizers"})
      if (auto it = full.find(field); it != full.end()) kept[field] = std::move(it->value());
    object = json::object{{"metadata", std::move(kept)}};
  };
  auto following = registry::reflect(*monitor->store, std::move(handlers), std::move(options), monitor->stop, logger_);
  co_await std::move(following);
  monitor->synced.store(true);  // a stopped monitor holds no worker back
}

void GarbageCollector::observe(Monitor& monitor, const json::object& object, bool deleted) {
  const auto& definition = monitor.store->definition();
  GraphEvent event;
  event.identity = {definition.group_version(), definition.kind, std::string(registry::meta_string(object, "name")),
                    std::string(registry::meta_string(object, "uid")),
                    definition.namespaced ? std::string(registry::meta_string(object, "namespace")) : ""};
  if (event.identity.uid.empty()) return;
  event.owners = garbage_collector::owner_references(object);
  event.being_deleted = !registry::meta_string(object, "deletionTimestamp").empty();
  event.orphan_finalizer = registry::has_finalizer(object, registry::kOrphanFinalizer);
  event.foreground_finalizer = registry::has_finalizer(object, registry::kForegroundDeletionFinalizer);
  // Only this monitor's reflector observes this uid, so nothing changes its observation in between.
  const auto observed = graph_.observed(event.identity.uid);
  if (observed) {
    event.was_waiting_for_orphaning = observed->waiting_for_orphaning;
    event.was_waiting_for_dependents = observed->waiting_for_dependents;
  }
  if (deleted)
    event.type = GraphEvent::Type::Delete;
  else
    event.type = observed ? GraphEvent::Type::Update : GraphEvent::Type::Add;
  apply(graph_.process(event));
}

void GarbageCollector::apply(GraphEffects effects) {
  for (const auto& node : effects.attempt_to_delete) attempt_to_delete_.add(node);
  for (const auto& node : effects.attempt_to_delete_rate_limited) attempt_to_delete_.add_rate_limited(node);
  for (const auto& node : effects.attempt_to_orphan) attempt_to_orphan_.add(node);
  for (auto& invalid : effects.invalid_owner_references) {
    logger_.info("garbage collector: " + invalid.dependent.to_string() + " references an owner " +
                 invalid.owner.to_string() + " but does not match namespaces");
    asio::co_spawn(executor_, record_invalid_namespace(std::move(invalid)), asio::detached);
  }
}

void GarbageCollector::enqueue_virtual_delete(const ObjectReference& identity) {
  GraphEvent event;
  event.type = GraphEvent::Type::Delete;
  event.is_virtual = true;
  event.identity = identity;
  apply(graph_.process(event));
}

}  // namespace kapi::controllers
