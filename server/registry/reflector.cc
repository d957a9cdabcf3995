#include "server/registry/reflector.h"

#include "base/log.h"
#include "base/sleep.h"
#include "server/apierrors/errors.h"
#include "server/registry/object_meta.h"

#include <boost/json.hpp>

#include <algorithm>
#include <functional>
#include <optional>
#include <stop_token>

namespace kapi::registry {
namespace {

// The list-and-watch loop while `stopped` says no; `wake`, when given, also ends the wait for a watch event.
asio::awaitable<void> reflect_until(Store& store, ReflectorHandlers handlers, ReflectorOptions options,
                                    std::function<bool()> stopped, std::shared_ptr<const base::StopSignal> wake,
                                    base::Logger& logger) {
  bool relisted_at_once = false;
  while (!stopped()) {
    bool expired = false;  // the watch's revision is gone from the history
    try {
      // The watch cache's own objects, each parsed (and trimmed) in turn: a relist of a large resource never
      // holds a copy of every object's bytes beside the parsed objects. At resourceVersion 0, as kube's reflector
      // lists: what the cache holds now, so the watch that follows starts where the cache is. A consistent list
      // would name the store's newest revision, which the cache may not reach within a watch's wait while writes
      // pour in (a 504 and another whole relist).
      ListRequest request;
      request.resource_version = "0";
      auto listing = store.list_shared("", std::move(request));
      storage::SharedListResult list = co_await std::move(listing);
      if (handlers.replace) {
        std::vector<boost::json::object> objects;
        objects.reserve(list.items.size());
        for (const storage::ObjectRef& item : list.items) {
          std::optional<boost::json::object> object = parse_json_object(item->value);
          if (!object) continue;
          metadata_of(*object)["resourceVersion"] = std::to_string(item->mod_revision);
          if (options.trim) options.trim(*object);
          objects.push_back(std::move(*object));
        }
        list.items.clear();
        auto replaced = handlers.replace(std::move(objects), list.revision);  // no temporaries in a co_await (g++ 12)
        co_await std::move(replaced);
      }
      // Watches from the newest revision seen. A watch that just ends (the cache closes a watcher that fell too far
      // behind, a server restarts its watches) is started again from there, as kube's reflector does; only an
      // error (the revision was compacted away: 410) costs a relist.
      storage::Revision seen = list.revision;
      bool relist = false;
      while (!relist && !stopped()) {
        storage::WatchOptions watch_options;
        watch_options.resource_version = std::to_string(seen);
        auto watching = store.watch("", std::move(watch_options));
        auto stream = co_await std::move(watching);
        // A stop request ends the stream, so a wait for the next event ends with it.
        std::optional<std::stop_callback<std::function<void()>>> ending;
        if (wake) ending.emplace(wake->token(), std::function<void()>([&stream] { stream->stop(); }));
        bool delivered = false;
        for (;;) {
          std::optional<storage::WatchEvent> event = co_await stream->next();
          if (!event && !delivered && !stopped()) co_await base::sleep_for(options.relist_delay);  // no busy loop
          if (!event || stopped()) break;
          delivered = true;
          if (event->type == storage::WatchEventType::Error) {
            // As kube's reflector logs "watch of ... ended with: ...": a relist of a large resource is worth knowing.
            logger.info("following " + options.following + ": the watch ended with \"" +
                        (event->error ? std::string(event->error->what()) : std::string("an error")) +
                        "\"; listing again");
            relist = true;
            expired = event->error && event->error->code() == storage::ErrorCode::Expired;
            break;
          }
          seen = std::max(seen, event->revision);
          relisted_at_once = false;  // this watch worked: a later expiry relists at once again
          if (event->type == storage::WatchEventType::Bookmark) continue;
          auto object = parse_json_object(event->object.value);
          if (!object) continue;
          if (options.trim) options.trim(*object);
          auto applied = handlers.apply(*event, std::move(*object));
          co_await std::move(applied);
        }
      }
    } catch (const apierrors::ApiError& error) {
      if (!stopped()) logger.warning("following " + options.following + ": " + error.status().message);
    } catch (const std::exception& error) {
      if (!stopped()) logger.warning("following " + options.following + ": " + error.what());
    }
    if (stopped()) break;
    // A watch refused as too old right after its list most often met a watch cache that was initialising when
    // the list was served (by the backend, at the revision of then) and now starts its history at a later
    // revision: the next list finds it ready. So such a relist is at once, unless the one before was too and its
    // watch saw nothing; any other waits.
    if (expired && !relisted_at_once) {
      relisted_at_once = true;
      continue;
    }
    relisted_at_once = false;
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
