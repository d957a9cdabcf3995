#include "server/controllers/root_ca_cert_publisher.h"

#include "base/log.h"
#include "server/apierrors/errors.h"
#include "server/metrics/families.h"
#include "server/registry/object_meta.h"
#include "server/registry/reflector.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/this_coro.hpp>
#include <boost/json.hpp>

namespace kapi::controllers {
namespace {

namespace json = boost::json;

constexpr std::string_view kDescriptionAnnotation = "kubernetes.io/description";
constexpr std::string_view kDescription =
    "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the "
    "internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes "
    "clusters.";

std::string_view phase_of(const json::object& namespace_) {
  const json::value* status = namespace_.if_contains("status");
  const json::value* phase = status && status->is_object() ? status->as_object().if_contains("phase") : nullptr;
  return phase && phase->is_string() ? std::string_view(phase->as_string()) : std::string_view();
}

// Whether a namespace takes new objects. kube's publisher learns it from NamespaceLifecycle admission refusing the
// create; the server's own writes do not pass admission, so it is read here.
bool takes_new_objects(const json::object& namespace_) {
  const std::string_view phase = phase_of(namespace_);
  return registry::meta_string(namespace_, "deletionTimestamp").empty() && (phase.empty() || phase == "Active");
}

}  // namespace

RootCaCertPublisher::RootCaCertPublisher(registry::Store& namespaces, registry::Store& configmaps, std::string root_ca,
                                         base::Logger& logger, metrics::CounterFamily* syncs,
                                         std::shared_ptr<const base::StopSignal> stopping)
    : namespaces_(namespaces),
      configmaps_(configmaps),
      root_ca_(std::move(root_ca)),
      logger_(logger),
      syncs_(syncs),
      stopping_(std::move(stopping)) {}

asio::awaitable<void> RootCaCertPublisher::run() {
  logger_.info("starting the root CA cert publisher");
  auto executor = co_await asio::this_coro::executor;
  asio::co_spawn(executor, follow_configmaps(), asio::detached);
  co_await follow_namespaces();
  logger_.info("shutting down the root CA cert publisher");
}

asio::awaitable<void> RootCaCertPublisher::follow_namespaces() {
  auto executor = co_await asio::this_coro::executor;
  auto enqueue = [this, executor](const json::object& namespace_) {
    asio::co_spawn(executor, sync(std::string(registry::meta_string(namespace_, "name"))), asio::detached);
  };
  registry::ReflectorHandlers handlers;
  // namespaceAdded queues every namespace; namespaceUpdated only active ones.
  handlers.replace = [enqueue](std::vector<json::object> namespaces, storage::Revision) -> asio::awaitable<void> {
    for (const auto& namespace_ : namespaces) enqueue(namespace_);
    co_return;
  };
  handlers.apply = [enqueue](const storage::WatchEvent& event, json::object namespace_) -> asio::awaitable<void> {
    if (event.type == storage::WatchEventType::Added ||
        (event.type == storage::WatchEventType::Modified && phase_of(namespace_) == "Active"))
      enqueue(namespace_);
    co_return;
  };
  registry::ReflectorOptions options{"the namespaces that need a root CA ConfigMap"};
  auto following = registry::reflect(namespaces_, std::move(handlers), std::move(options), stopping_, logger_);
  co_await std::move(following);
}

asio::awaitable<void> RootCaCertPublisher::follow_configmaps() {
  auto executor = co_await asio::this_coro::executor;
  registry::ReflectorHandlers handlers;
  // configMapDeleted and configMapUpdated: a removed or changed root CA ConfigMap is published again.
  handlers.apply = [this, executor](const storage::WatchEvent& event, json::object configmap) -> asio::awaitable<void> {
    if (event.type != storage::WatchEventType::Added &&
        registry::meta_string(configmap, "name") == kRootCaConfigMapName)
      asio::co_spawn(executor, sync(std::string(registry::meta_string(configmap, "namespace"))), asio::detached);
    co_return;
  };
  registry::ReflectorOptions options{"the root CA ConfigMaps"};
  auto following = registry::reflect(configmaps_, std::move(handlers), std::move(options), stopping_, logger_);
  co_await std::move(following);
}

asio::awaitable<void> RootCaCertPublisher::sync(std::string namespace_) {
  if (stopping_->requested()) co_return;
  std::string code = "200";
  try {
    co_await publish(namespace_);
  } catch (const apierrors::ApiError& error) {
    code = std::to_string(error.status().code);
    logger_.warning("root CA cert publisher: syncing namespace " + namespace_ + " failed: " + error.status().message);
  } catch (const std::exception& error) {
    code = "500";
    logger_.warning("root CA cert publisher: syncing namespace " + namespace_ + " failed: " + error.what());
  }
  if (syncs_) syncs_->inc({code});
}

asio::awaitable<void> RootCaCertPublisher::publish(const std::string& namespace_) {
  const std::string name(kRootCaConfigMapName);
  // Bring an existing ConfigMap's data and annotation back; an update that changes nothing writes nothing.
  registry::UpdateFunction repair = [this](const json::object* current) -> json::object {
    if (!current) throw apierrors::ApiError(apierrors::not_found("", "configmaps", std::string(kRootCaConfigMapName)));
    const json::object data{{"ca.crt", root_ca_}};
    const json::value* stored_data = current->if_contains("data");
    const json::value* metadata = current->if_contains("metadata");
    const json::value* annotations =
        metadata && metadata->is_object() ? metadata->as_object().if_contains("annotations") : nullptr;
    const json::value* description = annotations && annotations->is_object()
                                         ? annotations->as_object().if_contains(kDescriptionAnnotation)
                                         : nullptr;
    if (stored_data && stored_data->is_object() && stored_data->as_object() == data && description &&
        description->is_string() && !description->as_string().empty())
      return *current;
    json::object configmap = *current;  // with its resourceVersion: the update is conditional
    configmap["data"] = data;
    json::value& kept = registry::metadata_of(configmap)["annotations"];
    if (!kept.is_object()) kept = json::object();
    kept.as_object()[kDescriptionAnnotation] = kDescription;
    return configmap;
  };
  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      auto repairing = configmaps_.update(namespace_, name, repair, registry::WriteOptions{});
      co_await std::move(repairing);
      co_return;
    } catch (const apierrors::ApiError& error) {
      if (error.status().code != 404) throw;
    }
    // Missing: made, unless the namespace is gone or terminating (kube does not retry those).
    std::optional<json::object> namespace_object;
    try {
      auto reading = namespaces_.get("", namespace_, "");  // from storage: the cache may lag behind a deletion
      registry::ReadObject read = co_await std::move(reading);
      namespace_object = registry::parse_json_object(read.json);
    } catch (const apierrors::ApiError& error) {
      if (error.status().code != 404) throw;
    }
    if (!namespace_object || !takes_new_objects(*namespace_object)) co_return;
    json::object configmap{
        {"metadata",
         json::object{{"name", name}, {"annotations", json::object{{kDescriptionAnnotation, kDescription}}}}},
        {"data", json::object{{"ca.crt", root_ca_}}}};
    try {
      auto creating = configmaps_.create(namespace_, std::move(configmap), registry::WriteOptions{});
      co_await std::move(creating);
      co_return;
    } catch (const apierrors::ApiError& error) {
      if (error.status().code != 409) throw;  // made meanwhile: repaired on the next attempt
    }
  }
}

}  // namespace kapi::controllers
