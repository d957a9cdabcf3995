#include "server/controllers/resource_quota_controller.h"

#include "base/log.h"
#include "base/race.h"
#include "base/sleep.h"
#include "server/apierrors/errors.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"
#include "server/registry/reflector.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/strand.hpp>
#include <asio/this_coro.hpp>
#include <boost/json.hpp>

namespace kapi::controllers {
namespace {

namespace json = boost::json;
using registry::fields::object_at;

constexpr int kMaxConflicts = 5;

const json::object* spec_hard(const json::object& quota) { return object_at(object_at(quota, "spec"), "hard"); }

bool limits_changed(const json::object& quota) {
  const json::object* hard = spec_hard(quota);
  const json::object* recorded = object_at(object_at(quota, "status"), "hard");
  return (hard ? *hard : json::object()) != (recorded ? *recorded : json::object());
}

// The changes that can lower a namespace's usage (kube's replenishment): deletions, pods finishing, services and
// claims changing type or size.
bool may_lower_usage(const registry::Store& store, const storage::WatchEvent& event, const json::object& object) {
  if (event.type == storage::WatchEventType::Deleted) return true;
  if (event.type != storage::WatchEventType::Modified) return false;
  const std::string& resource = store.definition().resource;
  if (resource == "pods") {
    const std::string_view phase = registry::fields::string_at(object_at(object, "status"), "phase");
    return phase == "Succeeded" || phase == "Failed";
  }
  return resource == "services" || resource == "persistentvolumeclaims";
}

}  // namespace

ResourceQuotaController::ResourceQuotaController(registry::Store& quotas, std::vector<registry::Store*> counted,
                                                 Usage usage, base::Logger& logger,
                                                 std::shared_ptr<const base::StopSignal> stopping,
                                                 std::chrono::seconds resync_period)
    : quotas_(quotas),
      counted_(std::move(counted)),
      usage_(std::move(usage)),
      logger_(logger),
      stopping_(std::move(stopping)),
      resync_period_(resync_period) {}

json::object ResourceQuotaController::status_for(const json::object& quota, const json::object& measured) {
  json::object hard;
  if (const json::object* limits = spec_hard(quota)) hard = *limits;
  json::object used;
  if (const json::object* recorded = object_at(object_at(quota, "status"), "used")) used = *recorded;
  for (const auto& [name, value] : measured) used[name] = value;
  json::object masked;
  for (const auto& [name, value] : used)
    if (hard.contains(name)) masked[name] = value;
  // Go's omitempty: empty lists are not written.
  json::object status;
  if (!hard.empty()) status["hard"] = std::move(hard);
  if (!masked.empty()) status["used"] = std::move(masked);
  return status;
}

asio::awaitable<void> ResourceQuotaController::run() {
  auto strand = asio::make_strand(co_await asio::this_coro::executor);
  for (registry::Store* store : counted_) asio::co_spawn(strand, follow_counted(*store), asio::detached);
  asio::co_spawn(strand, resync_periodically(), asio::detached);
  auto following = asio::co_spawn(strand, follow_quotas(), asio::use_awaitable);
  co_await std::move(following);
}

asio::awaitable<void> ResourceQuotaController::follow_quotas() {
  registry::ReflectorHandlers handlers;
  handlers.replace = [this](std::vector<json::object> quotas, storage::Revision) -> asio::awaitable<void> {
    quotas_by_namespace_.clear();
    for (auto& quota : quotas) {
      std::string namespace_(registry::meta_string(quota, "namespace"));
      std::string name(registry::meta_string(quota, "name"));
      quotas_by_namespace_[std::move(namespace_)][std::move(name)] = std::move(quota);
    }
    std::vector<json::object> all;
    for (const auto& [namespace_, quotas_here] : quotas_by_namespace_)
      for (const auto& [name, quota] : quotas_here) all.push_back(quota);
    for (auto& quota : all) co_await sync(std::move(quota));
  };
  handlers.apply = [this](const storage::WatchEvent& event, json::object quota) -> asio::awaitable<void> {
    registry::metadata_of(quota)["resourceVersion"] = std::to_string(event.object.mod_revision);
    const std::string namespace_(registry::meta_string(quota, "namespace"));
    const std::string name(registry::meta_string(quota, "name"));
    if (event.type == storage::WatchEventType::Deleted) {
      auto here = quotas_by_namespace_.find(namespace_);
      if (here != quotas_by_namespace_.end()) {
        here->second.erase(name);
        if (here->second.empty()) quotas_by_namespace_.erase(here);
      }
      // The namespace's other quotas may count resourcequotas.
      co_await sync_namespace(namespace_);
      co_return;
    }
    quotas_by_namespace_[namespace_][name] = quota;
    // A new quota, or new limits: measured now. Status writes (ours and admission's) need nothing.
    if (event.type == storage::WatchEventType::Added || limits_changed(quota)) co_await sync(std::move(quota));
  };
  registry::ReflectorOptions options{"the resource quotas", std::chrono::seconds(1)};
  auto following = registry::reflect(quotas_, std::move(handlers), std::move(options), stopping_, logger_);
  co_await std::move(following);
}

asio::awaitable<void> ResourceQuotaController::follow_counted(registry::Store& store) {
  registry::ReflectorHandlers handlers;
  handlers.apply = [this, &store](const storage::WatchEvent& event, json::object object) -> asio::awaitable<void> {
    const std::string namespace_(registry::meta_string(object, "namespace"));
    if (!quotas_by_namespace_.contains(namespace_) || !may_lower_usage(store, event, object)) co_return;
    co_await sync_namespace(namespace_);
  };
  registry::ReflectorOptions options{"the " + store.definition().resource + " quotas count", std::chrono::seconds(1)};
  auto following = registry::reflect(store, std::move(handlers), std::move(options), stopping_, logger_);
  co_await std::move(following);
}

asio::awaitable<void> ResourceQuotaController::resync_periodically() {
  while (!stopping_->requested()) {
    // Woken by the stop too: a controller whose term ends does not linger for a whole period.
    auto sleeping = base::sleep_for(resync_period_);
    auto stopped = stopping_->wait();
    auto racing = base::race(std::move(sleeping), std::move(stopped));
    co_await std::move(racing);
    if (stopping_->requested()) break;
    std::vector<std::string> namespaces;
    for (const auto& [namespace_, quotas] : quotas_by_namespace_) namespaces.push_back(namespace_);
    for (const auto& namespace_ : namespaces) co_await sync_namespace(namespace_);
  }
}

asio::awaitable<void> ResourceQuotaController::sync_namespace(const std::string& namespace_) {
  auto here = quotas_by_namespace_.find(namespace_);
  if (here == quotas_by_namespace_.end()) co_return;
  std::vector<json::object> quotas;
  for (const auto& [name, quota] : here->second) quotas.push_back(quota);
  for (auto& quota : quotas) co_await sync(std::move(quota));
}

asio::awaitable<void> ResourceQuotaController::sync(json::object quota) {
  const std::string namespace_(registry::meta_string(quota, "namespace"));
  const std::string name(registry::meta_string(quota, "name"));
  for (int conflicts = 0; conflicts < kMaxConflicts && !stopping_->requested(); ++conflicts) {
    bool retry = false;
    try {
      json::object measured = co_await usage_(quota);
      json::object status = status_for(quota, measured);
      const json::object* current = object_at(quota, "status");
      if (current ? *current == status : status.empty()) co_return;
      json::object updated = quota;  // its resourceVersion makes the write conditional
      updated["status"] = std::move(status);
      registry::UpdateFunction update = [&updated](const json::object* stored) -> json::object {
        if (!stored) throw apierrors::ApiError(apierrors::not_found("", "resourcequotas", ""));
        return updated;
      };
      registry::WriteOptions options;
      options.subresource = "status";
      auto pending = quotas_.update(namespace_, name, std::move(update), std::move(options));
      co_await std::move(pending);
      co_return;
    } catch (const apierrors::ApiError& error) {
      if (error.status().code == 404) co_return;  // deleted meanwhile
      if (error.status().code == 409) retry = true;
      else logger_.warning("resource quota " + namespace_ + "/" + name + ": " + error.status().message);
    } catch (const std::exception& error) {
      logger_.warning("resource quota " + namespace_ + "/" + name + ": " + error.what());
    }
    if (!retry) co_return;
    // Charged by admission or changed meanwhile: measured again against the stored quota.
    try {
      registry::ReadObject stored = co_await quotas_.get(namespace_, name, "");
      std::optional<json::object> parsed = registry::parse_json_object(stored.json);
      if (!parsed) co_return;
      quota = std::move(*parsed);
    } catch (const apierrors::ApiError&) {
      co_return;
    }
  }
}

}  // namespace kapi::controllers
