#include "server/registry/informer.h"

#include "server/registry/object_meta.h"
#include "server/registry/reflector.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <boost/json.hpp>

#include <map>
#include <mutex>

namespace kapi::registry {

namespace json = boost::json;

struct Informer::State {
  // The reflector's own copy, by "namespace/name" (only its coroutine touches it).
  std::map<std::string, json::object> by_key;
  std::uint64_t version = 0;

  mutable std::mutex mutex;
  std::shared_ptr<const Objects> synced;  // null until the first list is in

  void publish() {
    auto objects = std::make_shared<Objects>();
    objects->items.reserve(by_key.size());
    for (const auto& [key, object] : by_key) objects->items.push_back(object);
    objects->version = ++version;
    std::lock_guard lock(mutex);
    synced = std::move(objects);
  }
};

namespace {

std::string key_of(const json::object& object) {
  return std::string(meta_string(object, "namespace")) + "/" + std::string(meta_string(object, "name"));
}

}  // namespace

Informer::Informer(Store* store) : store_(store), state_(std::make_shared<State>()) {}

void Informer::start(asio::any_io_executor executor, std::shared_ptr<const std::atomic<bool>> stopping,
                     base::Logger& logger, std::string following) {
  if (!store_) return;
  ReflectorHandlers handlers;
  handlers.replace = [state = state_](std::vector<json::object> listed, storage::Revision) -> asio::awaitable<void> {
    state->by_key.clear();
    for (json::object& object : listed) {
      std::string key = key_of(object);
      state->by_key.emplace(std::move(key), std::move(object));
    }
    state->publish();
    co_return;
  };
  handlers.apply = [state = state_](const storage::WatchEvent& event, json::object object) -> asio::awaitable<void> {
    std::string key = key_of(object);
    if (event.type == storage::WatchEventType::Deleted) state->by_key.erase(key);
    else state->by_key.insert_or_assign(std::move(key), std::move(object));
    state->publish();
    co_return;
  };
  ReflectorOptions options{std::move(following)};
  asio::co_spawn(executor, reflect(*store_, std::move(handlers), std::move(options), std::move(stopping), logger),
                 asio::detached);
}

std::shared_ptr<const Informer::Objects> Informer::synced() const {
  std::lock_guard lock(state_->mutex);
  return state_->synced;
}

asio::awaitable<std::shared_ptr<const Informer::Objects>> Informer::objects() const {
  if (std::shared_ptr<const Objects> objects = synced()) co_return objects;
  auto objects = std::make_shared<Objects>();
  if (!store_) co_return objects;
  ListRequest request{.resource_version = "0"};
  ObjectList listed = co_await store_->list("", std::move(request));
  for (const ReadObject& item : listed.items)
    if (std::optional<json::object> parsed = parse_json_object(item.json)) objects->items.push_back(std::move(*parsed));
  co_return objects;
}

}  // namespace kapi::registry
