#include "tests/unit/storage/conformance.h"

#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>

namespace kapi::storage::conformance {

void StorageConformance::SetUp() {
  backend_ = GetParam().create(io_.executor());
  root_ = backend_->key_root();
}

void StorageConformance::TearDown() { backend_.reset(); }

KeyValue StorageConformance::create(const std::string& full_key, std::string value, std::chrono::seconds ttl) {
  WriteOptions options;
  options.ttl = ttl;
  return run(store().create(full_key, std::move(value), options));
}

KeyValue StorageConformance::update(const std::string& full_key, std::string value) {
  return run(store().guaranteed_update(
      full_key, true, nullptr, [value](const KeyValue*) { return std::optional<std::string>(value); }, {}));
}

KeyValue StorageConformance::remove(const std::string& full_key) { return run(store().remove(full_key, nullptr)); }

ListResult StorageConformance::list(const std::string& full_key, ListOptions options) {
  return run(store().list(full_key, std::move(options)));
}

Revision StorageConformance::current_revision() { return run(store().current_revision()); }

std::optional<StorageError> StorageConformance::storage_error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const StorageError& error) {
    return error;
  }
  ADD_FAILURE() << "expected a StorageError, got none";
  return std::nullopt;
}

std::optional<ErrorCode> StorageConformance::error_of(const std::function<void()>& action) {
  auto error = storage_error_of(action);
  if (!error) return std::nullopt;
  return error->code();
}

std::unique_ptr<WatchStream> StorageConformance::watch(const std::string& full_key, WatchOptions options) {
  return run(store().watch(full_key, std::move(options)));
}

std::optional<WatchEvent> StorageConformance::next(WatchStream& stream, std::chrono::milliseconds timeout) {
  return run([](WatchStream& stream, std::chrono::milliseconds timeout) -> asio::awaitable<std::optional<WatchEvent>> {
    asio::steady_timer deadline(co_await asio::this_coro::executor, timeout);
    deadline.async_wait([&stream](std::error_code error) {
      if (!error) stream.stop();
    });
    std::optional<WatchEvent> event = co_await stream.next();
    deadline.cancel();
    co_return event;
  }(stream, timeout));
}

WatchEvent StorageConformance::expect_event(WatchStream& stream, WatchEventType type, const std::string& full_key,
                                            std::optional<std::string> value) {
  std::optional<WatchEvent> event = next(stream);
  if (!event) {
    ADD_FAILURE() << "expected " << type_name(type) << " " << full_key << ", the watch ended or timed out";
    return {};
  }
  EXPECT_EQ(type_name(event->type), std::string(type_name(type))) << describe(event->object);
  EXPECT_EQ(event->object.key, full_key);
  if (value) {
    EXPECT_EQ(event->object.value, *value);
  }
  if (event->type != WatchEventType::Error && event->type != WatchEventType::Bookmark) {
    EXPECT_EQ(event->revision, event->object.mod_revision);
  }
  return *event;
}

std::string describe(const KeyValue& kv) {
  return kv.key + "=" + kv.value + "@" + std::to_string(kv.mod_revision) + "(created " +
         std::to_string(kv.create_revision) + ")";
}

std::string describe(const std::vector<KeyValue>& items) {
  std::string out = "[";
  for (const KeyValue& kv : items) out += (out.size() > 1 ? ", " : "") + describe(kv);
  return out + "]";
}

const char* type_name(WatchEventType type) {
  switch (type) {
    case WatchEventType::Added: return "ADDED";
    case WatchEventType::Modified: return "MODIFIED";
    case WatchEventType::Deleted: return "DELETED";
    case WatchEventType::Bookmark: return "BOOKMARK";
    case WatchEventType::Error: return "ERROR";
  }
  return "?";
}

INSTANTIATE_TEST_SUITE_P(Backends, StorageConformance, ::testing::ValuesIn(all_backends()),
                         [](const ::testing::TestParamInfo<BackendFactory>& info) { return info.param.name; });

}  // namespace kapi::storage::conformance
