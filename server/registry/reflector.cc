#include "server/registry/reflector.h"

#include "base/log.h"
#include "base/sleep.h"
#include "server/apierrors/errors.h"
#include "server/registry/object_meta.h"

#include <boost/json.hpp>

namespace kapi::registry {

asio::awaitable<void> reflect(Store& store, ReflectorHandlers handlers, ReflectorOptions options,
                              std::shared_ptr<const std::atomic<bool>> stopping, base::Logger& logger) {
  while (!stopping->load()) {
    try {
      ListRequest request;
      ObjectList list = co_await store.list("", std::move(request));
      std::vector<boost::json::object> objects;
      objects.reserve(list.items.size());
      for (const auto& item : list.items)
        if (auto object = parse_json_object(item.json)) objects.push_back(std::move(*object));
      auto replaced = handlers.replace(std::move(objects), list.revision);  // no temporaries in a co_await (g++ 12)
      co_await std::move(replaced);
      storage::WatchOptions watch_options;
      watch_options.resource_version = std::to_string(list.revision);
      auto stream = co_await store.watch("", std::move(watch_options));
      while (auto event = co_await stream->next()) {
        if (event->type == storage::WatchEventType::Error) break;  // expired: relist
        if (event->type == storage::WatchEventType::Bookmark) continue;
        auto object = parse_json_object(event->object.value);
        if (!object) continue;
        auto applied = handlers.apply(*event, std::move(*object));
        co_await std::move(applied);
      }
    } catch (const apierrors::ApiError& error) {
      if (!stopping->load()) logger.warning("following " + options.following + ": " + error.status().message);
    } catch (const std::exception& error) {
      if (!stopping->load()) logger.warning("following " + options.following + ": " + error.what());
    }
    if (stopping->load()) break;
    co_await base::sleep_for(options.relist_delay);
  }
}

}  // namespace kapi::registry
