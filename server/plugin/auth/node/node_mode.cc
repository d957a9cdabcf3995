#include "server/plugin/auth/node/node_mode.h"

#include "server/authorization/rbac/bootstrap_policy.h"
#include "server/registry/object_meta.h"
#include "server/registry/reflector.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>

namespace kapi::authorization::node {
namespace {

namespace json = boost::json;

// What the graph does with one kind's objects.
struct Kind {
  std::string following;
  void (Graph::*clear)();
  void (Graph::*set)(const json::object&);
  // Given the storage key: a deletion's event carries no object to read the name from.
  std::function<void(Graph&, std::string_view key)> remove;
};

// The last `n`-th segment of a storage key ("/registry/pods/<namespace>/<name>": 0 is the name).
std::string_view key_segment(std::string_view key, int n) {
  for (; n > 0 && key.rfind('/') != std::string_view::npos; --n) key = key.substr(0, key.rfind('/'));
  const auto slash = key.rfind('/');
  return slash == std::string_view::npos ? key : key.substr(slash + 1);
}

asio::awaitable<void> follow(registry::Store& store, std::shared_ptr<Graph> graph, Kind kind,
                             std::shared_ptr<const std::atomic<bool>> stopping, base::Logger& logger) {
  registry::ReflectorHandlers handlers;
  handlers.replace = [graph, kind](std::vector<json::object> objects, storage::Revision) -> asio::awaitable<void> {
    ((*graph).*kind.clear)();
    for (const json::object& object : objects) ((*graph).*kind.set)(object);
    co_return;
  };
  handlers.apply = [graph, kind](const storage::WatchEvent& event, json::object object) -> asio::awaitable<void> {
    if (event.type == storage::WatchEventType::Deleted) kind.remove(*graph, event.object.key);
    else ((*graph).*kind.set)(object);
    co_return;
  };
  registry::ReflectorOptions options{kind.following, std::chrono::seconds(1)};
  auto following = registry::reflect(store, std::move(handlers), std::move(options), std::move(stopping), logger);
  co_await std::move(following);
}

std::vector<rbac::PolicyRule> node_rules() {
  for (const json::object& role : rbac::bootstrap_cluster_roles())
    if (registry::meta_string(role, "name") == "system:node") return rbac::rules_of(role);
  return {};
}

}  // namespace

NodeMode::NodeMode(Stores stores, base::Logger& logger)
    : stores_(stores), authorizer_(std::make_shared<NodeAuthorizer>(graph_, node_rules())), logger_(logger) {}

void NodeMode::run(const asio::any_io_executor& executor) {
  const std::array<Kind, 3> kinds{{
      {"the node authorizer's pods", &Graph::clear_pods, &Graph::set_pod,
       [](Graph& graph, std::string_view key) { graph.remove_pod(key_segment(key, 1), key_segment(key, 0)); }},
      {"the node authorizer's persistent volumes", &Graph::clear_persistent_volumes, &Graph::set_persistent_volume,
       [](Graph& graph, std::string_view key) { graph.remove_persistent_volume(key_segment(key, 0)); }},
      {"the node authorizer's volume attachments", &Graph::clear_volume_attachments, &Graph::set_volume_attachment,
       [](Graph& graph, std::string_view key) { graph.remove_volume_attachment(key_segment(key, 0)); }},
  }};
  for (std::size_t i = 0; i < stores_.size(); ++i) {
    if (!stores_[i]) continue;
    asio::co_spawn(executor, follow(*stores_[i], graph_, kinds[i], stopping_, logger_), asio::detached);
  }
}

}  // namespace kapi::authorization::node
