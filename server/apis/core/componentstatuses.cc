// core/v1 ComponentStatus (pkg/registry/core/componentstatus/rest.go, printers.printComponentStatus): not stored;
// each get or list probes the components and answers what it found. kube probes the scheduler and the
// controller-manager on their local ports and each etcd server; kapi runs neither of the former, so it reports
// what it has: its storage backend as etcd-0, Healthy while the backend answers a read of its current revision.
// Deprecated since v1.19: every request gets kube's warning.
#include "server/apis/resource_storage.h"
#include "server/apierrors/errors.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"
#include "storage/interface.h"

#include <boost/json.hpp>

namespace kapi::apis {
namespace {

using namespace registry::fields;

constexpr std::string_view kEtcd = "etcd-0";

// The component statuses as an ever-current source of objects: reads probe, writes and watches do not exist (the
// resource serves get and list alone, so they are never reached).
class ComponentStatusSource final : public storage::Interface {
 public:
  ComponentStatusSource(storage::Interface& backend, std::string key_root)
      : backend_(backend), prefix_(std::move(key_root) + "/componentstatuses/") {}

  asio::awaitable<storage::KeyValue> create(std::string key, std::string, storage::WriteOptions) override {
    throw unsupported(key);
  }
  asio::awaitable<storage::KeyValue> remove(std::string key, storage::PreconditionCheck) override {
    throw unsupported(key);
  }
  asio::awaitable<storage::KeyValue> guaranteed_update(std::string key, bool, storage::PreconditionCheck,
                                                       storage::TryUpdate, storage::WriteOptions) override {
    throw unsupported(key);
  }
  asio::awaitable<std::unique_ptr<storage::WatchStream>> watch(std::string key, storage::WatchOptions) override {
    throw unsupported(key);
  }
  asio::awaitable<void> compact(storage::Revision) override { co_return; }
  asio::awaitable<void> request_watch_progress() override { co_return; }
  bool can_request_watch_progress() const override { return false; }
  asio::awaitable<storage::Revision> current_revision() override { co_return 0; }
  asio::awaitable<std::int64_t> count(std::string) override { co_return 1; }

  asio::awaitable<std::optional<storage::KeyValue>> get(std::string key, storage::GetOptions options) override {
    const std::string name = key.starts_with(prefix_) ? key.substr(prefix_.size()) : key;
    if (name != kEtcd) {
      if (options.ignore_not_found) co_return std::nullopt;
      // kube names the resource in the singular here (api.Resource("componentstatus")).
      throw apierrors::ApiError(apierrors::not_found("", "componentstatus", name));
    }
    auto pending = probe_etcd();
    storage::KeyValue object = co_await std::move(pending);
    co_return object;
  }

  asio::awaitable<storage::ListResult> list(std::string, storage::ListOptions options) override {
    storage::ListResult result;
    auto pending = probe_etcd();
    storage::KeyValue etcd = co_await std::move(pending);
    if (!options.predicate || options.predicate(etcd)) result.items.push_back(std::move(etcd));
    co_return result;
  }

 private:
  storage::StorageError unsupported(const std::string& key) const {
    return storage::StorageError(storage::ErrorCode::Internal, key, "componentstatuses are not stored");
  }

  // getComponentStatus for the storage backend: one Healthy condition, True with "ok" when it answers.
  asio::awaitable<storage::KeyValue> probe_etcd() {
    json::object condition{{"type", "Healthy"}};
    try {
      auto pending = backend_.current_revision();
      co_await std::move(pending);
      condition["status"] = "True";
      condition["message"] = "ok";
    } catch (const std::exception& error) {
      condition["status"] = "False";
      condition["error"] = error.what();
    }
    json::object status{{"kind", "ComponentStatus"},
                        {"apiVersion", "v1"},
                        {"metadata", json::object{{"name", kEtcd}, {"creationTimestamp", nullptr}}},
                        {"conditions", json::array{std::move(condition)}}};
    co_return storage::KeyValue{.key = prefix_ + std::string(kEtcd), .value = json::serialize(status)};
  }

  storage::Interface& backend_;
  std::string prefix_;
};

class ComponentStatusStrategy final : public registry::Strategy {
 public:
  std::vector<std::string> request_warnings() const override { return {"v1 ComponentStatus is deprecated in v1.19+"}; }

  std::vector<registry::TableColumn> table_columns() const override {
    return {registry::name_column(),
            {"Status", "string", "", "Status of the component conditions", 0},
            {"Message", "string", "", "Message of the component conditions", 0},
            {"Error", "string", "", "Error of the component conditions", 0}};
  }
  json::array table_cells(const json::object& object) const override {
    std::string status = "Unknown", message, error;
    bool found = false;
    for_each_object(&object, "conditions", [&](const json::object& condition, std::size_t) {
      if (found || string_at(condition, "type") != "Healthy") return;
      found = true;
      status = string_at(condition, "status") == "True" ? "Healthy" : "Unhealthy";
      message = string_at(condition, "message");
      error = string_at(condition, "error");
    });
    return {json::string(registry::meta_string(object, "name")), json::string(status), json::string(message),
            json::string(error)};
  }
};

}  // namespace

ResourceStorage componentstatuses() {
  registry::ResourceDefinition definition{.group = "", .version = "v1", .resource = "componentstatuses",
                                          .kind = "ComponentStatus", .singular = "componentstatus",
                                          .namespaced = false, .short_names = {"cs"}, .verbs = {"get", "list"}};
  return {std::move(definition), std::make_shared<ComponentStatusStrategy>()};
}

std::unique_ptr<storage::Interface> component_status_source(storage::Interface& backend, std::string key_root) {
  return std::make_unique<ComponentStatusSource>(backend, std::move(key_root));
}

}  // namespace kapi::apis
