#pragma once
// The shared storage conformance suite: every storage::Interface backend (backends.h) must pass these tests,
// which follow k8s.io/apiserver/pkg/storage/testing/store_tests.go and watcher_tests.go. Test bodies are plain
// code; each storage call runs as a coroutine on the fixture's io thread and is awaited with a time bound.
#include "storage/interface.h"
#include "tests/support/io_thread.h"
#include "tests/unit/storage/backends.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kapi::storage::conformance {

class StorageConformance : public ::testing::TestWithParam<BackendFactory> {
 protected:
  void SetUp() override;
  void TearDown() override;

  Interface& store() { return backend_->store(); }
  // A full key: the backend's key root + `suffix` (which starts with '/').
  std::string key(std::string_view suffix) const { return root_ + std::string(suffix); }

  template <typename T>
  T run(asio::awaitable<T> task) {
    return io_.run(std::move(task));
  }

  KeyValue create(const std::string& full_key, std::string value, std::chrono::seconds ttl = std::chrono::seconds(0));
  // guaranteed_update that writes `value` unconditionally.
  KeyValue update(const std::string& full_key, std::string value);
  KeyValue remove(const std::string& full_key);
  ListResult list(const std::string& full_key, ListOptions options);
  Revision current_revision();

  // The code of the StorageError `action` throws (a test failure when it throws none).
  static std::optional<ErrorCode> error_of(const std::function<void()>& action);
  // The StorageError itself.
  static std::optional<StorageError> storage_error_of(const std::function<void()>& action);

  std::unique_ptr<WatchStream> watch(const std::string& full_key, WatchOptions options);
  // The next event, or nullopt when the stream ended or nothing came within `timeout` (the stream is then
  // stopped, so a test fails instead of hanging).
  std::optional<WatchEvent> next(WatchStream& stream, std::chrono::milliseconds timeout = std::chrono::seconds(10));
  // Fails the test unless the next event has this type and key (and value, when given).
  WatchEvent expect_event(WatchStream& stream, WatchEventType type, const std::string& full_key,
                          std::optional<std::string> value = std::nullopt);

  test_support::IoThread io_;  // outlives the backend
  std::unique_ptr<TestBackend> backend_;
  std::string root_;
};

// Keys and values as compact text for failure messages and comparisons.
std::string describe(const KeyValue& kv);
std::string describe(const std::vector<KeyValue>& items);
const char* type_name(WatchEventType type);

}  // namespace kapi::storage::conformance
