#include "server/registry/reflector.h"

#include "base/log.h"
#include "base/sleep.h"
#include "server/apierrors/errors.h"
#include "server/registry/object_meta.h"

#include <boost/json.hpp>

#include <functional>
#include <optional>
#include <stop_token>

namespace kapi::registry {
namespace {

// The list-and-watch loop while `stopped` says no; `wake`, when given, also ends the wait for a watch event.
asio::awaitable<void> reflect_until(Store& store, ReflectorHandlers handlers, ReflectorOptions options,
                                    std::function<bool()> stopped, std::shared_ptr<const base::StopSignal> wake,
                                    base::Logger& logger) {
  while (!stopped()) {
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
      // A stop request ends the stream, so a wait for the next event ends with it.
      std::optional<std::stop_callback<std::function<void()>>> ending;
      if (wake) ending.emplace(wake->token(), std::function<void()>([&stream] { stream->stop(); }));
      for (;;) {
        std::optional<storage::WatchEvent> event = co_await stream->next();
        if (!event || stopped()) break;
        if (event->type == storage::WatchEventType::Error) break;  // expired: relist
        if (event->type == storage::WatchEventType::Bookmark) continue;
        auto object = parse_json_object(event->object.value);
        if (!object) continue;
        auto applied = handlers.apply(*event, std::move(*object));
        co_await std::move(applied);
      }
    } catch (const apierrors::ApiError& error) {
      if (!stopped()) logger.warning("following " + options.following + ": " + error.status().message);
    } catch (const std::exception& error) {
      if (!stopped()) logger.warning("following " + options.following + ": " + error.what());
    }
    if (stopped()) break;
    co_await base::sleep_for(options.relist_delay);
  }
}

}  // namespace

asio::awaitable<void> reflect(Store& store, ReflectorHandlers handlers, ReflectorOptions options,
                              std::shared_ptr<const std::atomic<bool>> stopping, base::Logger& logger) {
  auto stopped = [stopping] { return stopping->load(); };
  auto following = reflect_until(store, std::move(handlers), std::move(options), std::move(stopped), nullptr, logger);
  co_await std::move(following);
}

asio::awaitable<void> reflect(Store& store, ReflectorHandlers handlers, ReflectorOptions options,
                              std::shared_ptr<const base::StopSignal> stop, base::Logger& logger) {
  auto stopped = [stop] { return stop->requested(); };
  auto following = reflect_until(store, std::move(handlers), std::move(options), std::move(stopped), stop, logger);
  co_await std::move(following);
}

}  // namespace kapi::registry
