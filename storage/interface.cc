#include "storage/interface.h"

#include "storage/shared_object.h"

namespace kapi::storage {

asio::awaitable<std::optional<SharedWatchEvent>> WatchStream::next_shared() {
  std::optional<WatchEvent> event = co_await next();
  if (!event) co_return std::nullopt;
  co_return to_shared_event(std::move(*event));
}

asio::awaitable<std::optional<ObjectRef>> Interface::get_shared(std::string key, GetOptions options) {
  std::optional<KeyValue> found = co_await get(std::move(key), std::move(options));
  if (!found) co_return std::nullopt;
  co_return share(*found);
}

asio::awaitable<SharedListResult> Interface::list_shared(std::string key_prefix, ListOptions options) {
  ListResult listed = co_await list(std::move(key_prefix), std::move(options));
  SharedListResult result;
  result.items.reserve(listed.items.size());
  for (const KeyValue& item : listed.items) result.items.push_back(share(item));
  result.revision = listed.revision;
  result.continue_token = std::move(listed.continue_token);
  result.remaining_item_count = listed.remaining_item_count;
  co_return result;
}

// Watch handlers need only the object: the previous state is left out rather than copied.
SharedWatchEvent to_shared_event(WatchEvent event) {
  SharedWatchEvent shared;
  shared.type = event.type;
  shared.revision = event.type == WatchEventType::Bookmark ? event.revision : event.object.mod_revision;
  shared.initial_events_end = event.initial_events_end;
  shared.error = std::move(event.error);
  if (event.type != WatchEventType::Bookmark && event.type != WatchEventType::Error) {
    shared.object = share(event.object);
  }
  return shared;
}

}  // namespace kapi::storage
