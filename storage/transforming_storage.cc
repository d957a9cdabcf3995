#include "storage/transforming_storage.h"

namespace kapi::storage {
namespace {

// The stored value read back, or kube's error for one that cannot be.
value::FromStorage read(const value::Transformer& transformer, const KeyValue& stored) {
  try {
    return transformer.from_storage(stored.value, stored.key);
  } catch (const value::TransformError& error) {
    throw StorageError(ErrorCode::Internal, stored.key,
                       "unable to transform key \"" + stored.key + "\": " + std::string(error.what()));
  }
}

KeyValue read_back(const value::Transformer& transformer, KeyValue stored) {
  stored.value = read(transformer, stored).value;
  return stored;
}

class TransformingWatch final : public WatchStream {
 public:
  TransformingWatch(std::unique_ptr<WatchStream> inner, std::shared_ptr<const value::Transformer> transformer)
      : inner_(std::move(inner)), transformer_(std::move(transformer)) {}

  asio::awaitable<std::optional<WatchEvent>> next() override {
    std::optional<WatchEvent> event = co_await inner_->next();
    if (event) {
      if (!event->object.value.empty()) event->object.value = read(*transformer_, event->object).value;
      if (!event->prev_object.value.empty()) event->prev_object.value = read(*transformer_, event->prev_object).value;
    }
    co_return event;
  }
  void stop() override { inner_->stop(); }

 private:
  std::unique_ptr<WatchStream> inner_;
  std::shared_ptr<const value::Transformer> transformer_;
};

}  // namespace

Predicate TransformingStorage::on_stored(Predicate predicate) const {
  if (!predicate) return {};
  return [this, predicate = std::move(predicate)](const ObjectView& stored) {
    return predicate(read_back(*transformer_, stored.to_key_value()));
  };
}

PreconditionCheck TransformingStorage::on_stored(PreconditionCheck preconditions) const {
  if (!preconditions) return {};
  return [this, preconditions = std::move(preconditions)](const KeyValue& current) {
    preconditions(read_back(*transformer_, current));
  };
}

asio::awaitable<KeyValue> TransformingStorage::create(std::string key, std::string value, WriteOptions options) {
  std::string stored = transformer_->to_storage(value, key);
  auto pending = backend_.create(std::move(key), std::move(stored), options);
  KeyValue created = co_await std::move(pending);
  // What was stored, read back, as kube's etcd3 store decodes its create's data into the object it returns.
  co_return read_back(*transformer_, std::move(created));
}

asio::awaitable<KeyValue> TransformingStorage::remove(std::string key, PreconditionCheck preconditions) {
  auto pending = backend_.remove(std::move(key), on_stored(std::move(preconditions)));
  KeyValue removed = co_await std::move(pending);
  co_return read_back(*transformer_, std::move(removed));
}

asio::awaitable<std::optional<KeyValue>> TransformingStorage::get(std::string key, GetOptions options) {
  auto pending = backend_.get(std::move(key), std::move(options));
  std::optional<KeyValue> found = co_await std::move(pending);
  if (found) found = read_back(*transformer_, std::move(*found));
  co_return found;
}

asio::awaitable<ListResult> TransformingStorage::list(std::string key_prefix, ListOptions options) {
  options.predicate = on_stored(std::move(options.predicate));
  auto pending = backend_.list(std::move(key_prefix), std::move(options));
  ListResult result = co_await std::move(pending);
  for (auto& item : result.items) item.value = read(*transformer_, item).value;
  co_return result;
}

asio::awaitable<KeyValue> TransformingStorage::guaranteed_update(std::string key, bool ignore_not_found,
                                                                 PreconditionCheck preconditions, TryUpdate try_update,
                                                                 WriteOptions options) {
  TryUpdate transforming = [this, key, try_update = std::move(try_update)](
                               const KeyValue* current) -> asio::awaitable<std::optional<std::string>> {
    std::optional<KeyValue> plain;
    bool stale = false;
    if (current) {
      value::FromStorage found = read(*transformer_, *current);
      stale = found.stale;
      plain = *current;
      plain->value = std::move(found.value);
    }
    std::optional<std::string> wanted = co_await try_update(plain ? &*plain : nullptr);
    // kube's GuaranteedUpdate: unchanged bytes are not written, unless they are stale.
    if (plain && (!wanted || *wanted == plain->value)) {
      if (!stale) co_return std::nullopt;
      wanted = plain->value;
    }
    if (!wanted) co_return std::nullopt;
    co_return transformer_->to_storage(*wanted, key);
  };
  auto pending = backend_.guaranteed_update(std::move(key), ignore_not_found, on_stored(std::move(preconditions)),
                                            std::move(transforming), options);
  KeyValue updated = co_await std::move(pending);
  co_return read_back(*transformer_, std::move(updated));
}

asio::awaitable<std::unique_ptr<WatchStream>> TransformingStorage::watch(std::string key, WatchOptions options) {
  options.predicate = on_stored(std::move(options.predicate));
  auto pending = backend_.watch(std::move(key), std::move(options));
  std::unique_ptr<WatchStream> inner = co_await std::move(pending);
  co_return std::make_unique<TransformingWatch>(std::move(inner), transformer_);
}

}  // namespace kapi::storage
