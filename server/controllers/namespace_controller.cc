#include "server/controllers/namespace_controller.h"

#include "base/log.h"
#include "base/sleep.h"
#include "server/apierrors/errors.h"
#include "server/registry/object_meta.h"
#include "server/registry/reflector.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/this_coro.hpp>
#include <boost/json.hpp>

#include <algorithm>
#include <map>

namespace kapi::controllers {
namespace {

namespace json = boost::json;

// The finalizer the apiserver puts in every namespace's spec and this controller removes (FinalizerKubernetes).
constexpr std::string_view kKubernetesFinalizer = "kubernetes";
constexpr auto kFirstRetry = std::chrono::milliseconds(100);
constexpr auto kLongestRetry = std::chrono::seconds(2);

const json::array* spec_finalizers(const json::object& namespace_) {
  auto spec = namespace_.find("spec");
  if (spec == namespace_.end() || !spec->value().is_object()) return nullptr;
  auto finalizers = spec->value().as_object().find("finalizers");
  if (finalizers == spec->value().as_object().end() || !finalizers->value().is_array()) return nullptr;
  return &finalizers->value().as_array();
}

// Terminating and still waiting for this controller.
bool ours_to_finalize(const json::object& namespace_) {
  if (registry::meta_string(namespace_, "deletionTimestamp").empty()) return false;
  const json::array* finalizers = spec_finalizers(namespace_);
  return finalizers && std::find(finalizers->begin(), finalizers->end(), json::value(kKubernetesFinalizer)) !=
                           finalizers->end();
}

struct Condition {
  std::string type;
  bool failing = false;
  std::string reason;
  std::string message;
};

// "configmaps. has 2 resource instances, deployments.apps has 1 resource instances" (sorted, as kube's).
std::string join_counts(const std::map<std::string, int>& counts, std::string_view middle) {
  std::vector<std::string> parts;
  for (const auto& [what, count] : counts)
    parts.push_back(what + std::string(middle) + std::to_string(count) + " resource instances");
  std::sort(parts.begin(), parts.end());
  std::string joined;
  for (const auto& part : parts) joined += (joined.empty() ? "" : ", ") + part;
  return joined;
}

}  // namespace

struct NamespaceController::PassResult {
  std::map<std::string, int> remaining_by_resource;  // "configmaps." / "deployments.apps" → objects left
  std::map<std::string, int> remaining_by_finalizer;
  std::vector<std::string> errors;

  bool done() const { return remaining_by_resource.empty() && errors.empty(); }

  // kube's five deletion conditions (namespace_deleter's namespaceConditionUpdater), in its order.
  std::vector<Condition> conditions() const {
    std::vector<Condition> out{
        {"NamespaceDeletionDiscoveryFailure", false, "ResourcesDiscovered", "All resources successfully discovered"},
        {"NamespaceDeletionGroupVersionParsingFailure", false, "ParsedGroupVersions",
         "All legacy kube types successfully parsed"},
        {"NamespaceDeletionContentFailure", false, "ContentDeleted",
         "All content successfully deleted, may be waiting on finalization"},
        {"NamespaceContentRemaining", false, "ContentRemoved", "All content successfully removed"},
        {"NamespaceFinalizersRemaining", false, "ContentHasNoFinalizers", "All content-preserving finalizers finished"},
    };
    if (!errors.empty()) {
      std::vector<std::string> sorted = errors;
      std::sort(sorted.begin(), sorted.end());
      std::string joined;
      for (const auto& error : sorted) joined += (joined.empty() ? "" : ", ") + error;
      out[2] = {out[2].type, true, "ContentDeletionFailed",
                "Failed to delete all resource types, " + std::to_string(errors.size()) + " remaining: " + joined};
    }
    if (!remaining_by_resource.empty())
      out[3] = {out[3].type, true, "SomeResourcesRemain",
                "Some resources are remaining: " + join_counts(remaining_by_resource, " has ")};
    if (!remaining_by_finalizer.empty())
      out[4] = {out[4].type, true, "SomeFinalizersRemain",
                "Some content in the namespace has finalizers remaining: " +
                    join_counts(remaining_by_finalizer, " in ")};
    return out;
  }
};

NamespaceController::NamespaceController(registry::Store& namespaces, ContentStores content, base::Logger& logger,
                                         std::shared_ptr<const base::StopSignal> stopping)
    : namespaces_(namespaces), content_(std::move(content)), logger_(logger), stopping_(std::move(stopping)) {}

asio::awaitable<void> NamespaceController::run() {
  auto executor = co_await asio::this_coro::executor;
  auto consider = [this, executor](const json::object& namespace_) {
    if (!ours_to_finalize(namespace_)) return;
    std::string name(registry::meta_string(namespace_, "name"));
    if (claim(name)) asio::co_spawn(executor, finalize_until_done(std::move(name)), asio::detached);
  };
  registry::ReflectorHandlers handlers;
  handlers.replace = [consider](std::vector<json::object> namespaces, storage::Revision) -> asio::awaitable<void> {
    for (const auto& namespace_ : namespaces) consider(namespace_);
    co_return;
  };
  handlers.apply = [consider](const storage::WatchEvent& event, json::object namespace_) -> asio::awaitable<void> {
    if (event.type != storage::WatchEventType::Deleted) consider(namespace_);
    co_return;
  };
  registry::ReflectorOptions options{"the namespaces to finalize"};
  auto following = registry::reflect(namespaces_, std::move(handlers), std::move(options), stopping_, logger_);
  co_await std::move(following);
}

asio::awaitable<void> NamespaceController::finalize_until_done(std::string name) {
  std::chrono::milliseconds retry = kFirstRetry;
  while (!stopping_->requested()) {
    bool done = false;
    try {
      done = co_await sync(name);
    } catch (const apierrors::ApiError& error) {
      logger_.warning("namespace controller: deleting namespace " + name + ": " + error.status().message);
    } catch (const std::exception& error) {
      logger_.warning("namespace controller: deleting namespace " + name + ": " + error.what());
    }
    if (done) break;
    // Content with finalizers goes when its owners let it go: look again, less often the longer it takes.
    co_await base::sleep_for(retry);
    retry = std::min<std::chrono::milliseconds>(retry * 2, kLongestRetry);
  }
  release(name);
}

asio::awaitable<bool> NamespaceController::sync(const std::string& name) {
  std::string stored;
  try {
    registry::ReadObject read = co_await namespaces_.get("", name, "");
    stored = std::move(read.json);
  } catch (const apierrors::ApiError& error) {
    if (error.status().code == 404) co_return true;
    throw;
  }
  auto namespace_ = registry::parse_json_object(stored);
  if (!namespace_ || !ours_to_finalize(*namespace_)) co_return true;
  PassResult pass = co_await delete_content(name);
  co_await update_conditions(name, pass);
  if (!pass.done()) co_return false;
  co_await remove_finalizer(name);
  logger_.info("namespace controller: namespace " + name + " is empty and finalized");
  co_return true;
}

asio::awaitable<NamespaceController::PassResult> NamespaceController::delete_content(const std::string& name) {
  PassResult pass;
  const std::vector<std::shared_ptr<registry::Store>> stores = content_();
  for (const auto& store : stores) {
    const std::string resource = store->definition().resource + "." + store->definition().group;
    registry::ObjectList listed;
    try {
      registry::ListRequest request;
      listed = co_await store->list(name, std::move(request));
    } catch (const apierrors::ApiError& error) {
      pass.errors.push_back(error.status().message);
      continue;
    }
    for (const auto& item : listed.items) {
      auto object = registry::parse_json_object(item.json);
      if (!object) continue;
      std::string item_name(registry::meta_string(*object, "name"));
      try {
        registry::DeleteOptions options;
        // As kube's deleter: dependents go with their owners in the background, whatever the kind's default (an
        // orphan finalizer would only keep the namespace waiting for the garbage collector).
        options.propagation_policy = "Background";
        registry::DeleteResult result = co_await store->remove(name, std::move(item_name), options);
        if (result.deleted) continue;
        // Kept by its finalizers, or by a graceful deletion still running.
        ++pass.remaining_by_resource[resource];
        auto marked = registry::parse_json_object(result.object);
        if (!marked) continue;
        const auto& meta = registry::metadata_of(*marked);
        if (auto finalizers = meta.find("finalizers"); finalizers != meta.end() && finalizers->value().is_array())
          for (const auto& finalizer : finalizers->value().as_array())
            if (finalizer.is_string()) ++pass.remaining_by_finalizer[std::string(finalizer.as_string())];
      } catch (const apierrors::ApiError& error) {
        if (error.status().code != 404) pass.errors.push_back(error.status().message);
      }
    }
  }
  co_return pass;
}

asio::awaitable<void> NamespaceController::update_conditions(const std::string& name, const PassResult& pass) {
  const std::vector<Condition> wanted = pass.conditions();
  registry::UpdateFunction set_conditions = [&wanted](const json::object* current) {
    json::object updated = *current;
    auto& status = updated["status"];
    if (!status.is_object()) status = json::object();
    auto& conditions = status.as_object()["conditions"];
    if (!conditions.is_array()) conditions = json::array();
    auto& list = conditions.as_array();
    for (const auto& condition : wanted) {
      const std::string_view status_value = condition.failing ? "True" : "False";
      auto same_type = [&](const json::value& c) {
        return c.is_object() && registry::string_field(c.as_object(), "type") == condition.type;
      };
      auto existing = std::find_if(list.begin(), list.end(), same_type);
      if (existing == list.end()) {
        list.push_back(json::object{{"type", condition.type},
                                    {"status", status_value},
                                    {"lastTransitionTime", registry::rfc3339_now()},
                                    {"reason", condition.reason},
                                    {"message", condition.message}});
        continue;
      }
      auto& old = existing->as_object();
      // The transition time moves only when the status flips, so an unchanged pass writes nothing.
      if (registry::string_field(old, "status") != status_value) old["lastTransitionTime"] = registry::rfc3339_now();
      old["status"] = status_value;
      old["reason"] = condition.reason;
      old["message"] = condition.message;
    }
    return updated;
  };
  registry::WriteOptions options{.subresource = "status"};
  co_await namespaces_.update("", name, set_conditions, options);
}

asio::awaitable<void> NamespaceController::remove_finalizer(const std::string& name) {
  registry::UpdateFunction finalize = [](const json::object* current) {
    json::object updated = *current;
    auto spec = updated.find("spec");
    if (spec == updated.end() || !spec->value().is_object()) return updated;
    auto& spec_object = spec->value().as_object();
    auto finalizers = spec_object.find("finalizers");
    if (finalizers == spec_object.end() || !finalizers->value().is_array()) return updated;
    auto& list = finalizers->value().as_array();
    list.erase(std::remove(list.begin(), list.end(), json::value(kKubernetesFinalizer)), list.end());
    if (list.empty()) spec_object.erase("finalizers");
    return updated;
  };
  registry::WriteOptions options{.subresource = "finalize"};
  co_await namespaces_.update("", name, finalize, options);
}

bool NamespaceController::claim(const std::string& name) {
  std::lock_guard lock(mutex_);
  return finalizing_.insert(name).second;
}

void NamespaceController::release(const std::string& name) {
  std::lock_guard lock(mutex_);
  finalizing_.erase(name);
}

}  // namespace kapi::controllers
