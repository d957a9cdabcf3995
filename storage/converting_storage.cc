#include "storage/converting_storage.h"

namespace kapi::storage {
namespace {

class ConvertingWatch final : public WatchStream {
 public:
  ConvertingWatch(std::unique_ptr<WatchStream> inner, std::shared_ptr<const ObjectConversion> conversion)
      : inner_(std::move(inner)), conversion_(std::move(conversion)) {}

  asio::awaitable<std::optional<WatchEvent>> next() override {
    std::optional<WatchEvent> event = co_await inner_->next();
    if (event) {
      if (!event->object.value.empty()) event->object.value = conversion_->from_storage(event->object.value);
      if (!event->prev_object.value.empty())
        event->prev_object.value = conversion_->from_storage(event->prev_object.value);
    }
    co_return event;
  }
  void stop() override { inner_->stop(); }

 private:
  std::unique_ptr<WatchStream> inner_;
  std::shared_ptr<const ObjectConversion> conversion_;
};

}  // namespace

KeyValue ConvertingStorage::served(KeyValue stored) const {
  stored.value = conversion_->from_storage(stored.value);
  return stored;
}

Predicate ConvertingStorage::on_stored(Predicate served_predicate) const {
  if (!served_predicate) return {};
  return [this, served_predicate = std::move(served_predicate)](const ObjectView& stored) {
    return served_predicate(served(stored.to_key_value()));
  };
}

asio::awaitable<KeyValue> ConvertingStorage::create(std::string key, std::string value, WriteOptions options) {
  auto pending = backend_.create(std::move(key), conversion_->to_storage(value), options);
  KeyValue created = co_await std::move(pending);
  co_return served(std::move(created));
}

asio::awaitable<KeyValue> ConvertingStorage::remove(std::string key, PreconditionCheck preconditions) {
  PreconditionCheck checks;
  if (preconditions)
    checks = [this, preconditions = std::move(preconditions)](const KeyValue& current) {
      preconditions(served(current));
    };
  auto pending = backend_.remove(std::move(key), std::move(checks));
  KeyValue removed = co_await std::move(pending);
  co_return served(std::move(removed));
}

asio::awaitable<std::optional<KeyValue>> ConvertingStorage::get(std::string key, GetOptions options) {
  auto pending = backend_.get(std::move(key), std::move(options));
  std::optional<KeyValue> found = co_await std::move(pending);
  if (found) found = served(std::move(*found));
  co_return found;
}

asio::awaitable<ListResult> ConvertingStorage::list(std::string key_prefix, ListOptions options) {
  options.predicate = on_stored(std::move(options.predicate));
  auto pending = backend_.list(std::move(key_prefix), std::move(options));
  ListResult result = co_await std::move(pending);
  for (auto& item : result.items) item.value = conversion_->from_storage(item.value);
  co_return result;
}

asio::awaitable<KeyValue> ConvertingStorage::guaranteed_update(std::string key, bool ignore_not_found,
                                                               PreconditionCheck preconditions, TryUpdate try_update,
                                                               WriteOptions options) {
  TryUpdate converting = [this, try_update = std::move(try_update)](
                             const KeyValue* current) -> asio::awaitable<std::optional<std::string>> {
    std::optional<KeyValue> as_served;
    if (current) as_served = served(*current);
    std::optional<std::string> wanted = co_await try_update(as_served ? &*as_served : nullptr);
    if (wanted) wanted = conversion_->to_storage(*wanted);
    co_return wanted;
  };
  PreconditionCheck checks;
  if (preconditions)
    checks = [this, preconditions = std::move(preconditions)](const KeyValue& current) {
      preconditions(served(current));
    };
  auto pending = backend_.guaranteed_update(std::move(key), ignore_not_found, std::move(checks), std::move(converting),
                                            options);
  KeyValue updated = co_await std::move(pending);
  co_return served(std::move(updated));
}

asio::awaitable<std::unique_ptr<WatchStream>> ConvertingStorage::watch(std::string key, WatchOptions options) {
  options.predicate = on_stored(std::move(options.predicate));
  auto pending = backend_.watch(std::move(key), std::move(options));
  std::unique_ptr<WatchStream> inner = co_await std::move(pending);
  co_return std::make_unique<ConvertingWatch>(std::move(inner), conversion_);
}

}  // namespace kapi::storage
