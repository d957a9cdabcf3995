#pragma once
// The Cacher's own tests: a real embedded store underneath, seen through a thin forwarder that can inject the
// faults a real backend has (a broken watch stream, watches refused for a while, progress requests ignored).
#include "base/sleep.h"
#include "storage/cacher/cacher.h"
#include "storage/embedded/store.h"
#include "storage/etcd3/own_writes.h"
#include "tests/support/io_thread.h"
#include "tests/support/temp_dir.h"

#include <gtest/gtest.h>

#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

namespace kapi::storage::cacher::testing {

using namespace std::chrono_literals;

class FaultyStore final : public Interface {
 public:
  explicit FaultyStore(Interface& real) : real_(real) {}

  std::atomic<bool> progress_enabled{true};     // false: progress requests are ignored (a faulty backend)
  std::atomic<bool> progress_supported{true};   // false: a backend that says it cannot be asked (etcd < 3.4.31)
  std::atomic<bool> refuse_watches{false};
  std::atomic<int> watches_opened{0};
  std::atomic<int> unchanged_checks{0};
  std::atomic<std::chrono::milliseconds> unchanged_answer_delay{0ms};
  // true: a ledger of the writes made through this store answers known_changes_since, as etcd3's own writes do;
  // writes made to the real store directly are another server's.
  std::atomic<bool> knows_own_writes{false};

  // The next change any watch delivers comes after a Bookmark at `claimed`, as etcd before 3.4.31 could answer
  // a progress request ahead of the events (etcd-io/etcd#15220).
  void run_progress_ahead_once(Revision claimed) { lying_bookmark_ = claimed; }

  // Ends every watch stream handed out so far, as a dropped connection would.
  void break_watches() {
    std::lock_guard lock(mutex_);
    for (const auto& alive : streams_) {
      if (auto stream = alive.lock()) (*stream)->stop();
    }
  }

  asio::awaitable<KeyValue> create(std::string key, std::string value, WriteOptions options) override {
    KeyValue created = co_await real_.create(std::move(key), std::move(value), options);
    co_return recorded(std::move(created));
  }
  asio::awaitable<KeyValue> remove(std::string key, PreconditionCheck preconditions) override {
    KeyValue removed = co_await real_.remove(std::move(key), std::move(preconditions));
    co_return recorded(std::move(removed));
  }
  asio::awaitable<std::optional<KeyValue>> get(std::string key, GetOptions options) override {
    co_return co_await real_.get(std::move(key), std::move(options));
  }
  asio::awaitable<ListResult> list(std::string key, ListOptions options) override {
    co_return co_await real_.list(std::move(key), std::move(options));
  }
  asio::awaitable<KeyValue> guaranteed_update(std::string key, bool ignore_not_found, PreconditionCheck preconditions,
                                              TryUpdate try_update, WriteOptions options) override {
    KeyValue updated = co_await real_.guaranteed_update(std::move(key), ignore_not_found, std::move(preconditions),
                                                        std::move(try_update), options);
    co_return recorded(std::move(updated));
  }
  asio::awaitable<std::unique_ptr<WatchStream>> watch(std::string key, WatchOptions options) override {
    if (refuse_watches) throw StorageError(ErrorCode::Unreachable, key, "injected: watch refused");
    std::unique_ptr<WatchStream> opened = co_await real_.watch(std::move(key), options);
    auto stream = std::make_shared<std::unique_ptr<WatchStream>>(std::move(opened));
    {
      std::lock_guard lock(mutex_);
      streams_.push_back(stream);
    }
    ++watches_opened;
    co_return std::make_unique<Forwarded>(stream, lying_bookmark_);
  }
  asio::awaitable<std::int64_t> count(std::string key) override { co_return co_await real_.count(std::move(key)); }
  asio::awaitable<Revision> current_revision() override { co_return co_await real_.current_revision(); }
  asio::awaitable<void> request_watch_progress() override {
    if (progress_enabled && progress_supported) co_await real_.request_watch_progress();
  }
  bool can_request_watch_progress() const override { return progress_supported; }
  asio::awaitable<std::optional<Revision>> unchanged_since(std::string key, Revision revision,
                                                           std::int64_t count) override {
    std::optional<Revision> answer = co_await real_.unchanged_since(std::move(key), revision, count);
    ++unchanged_checks;
    // The answer held back: writes made meanwhile happen after the backend was read.
    const std::chrono::milliseconds delay = unchanged_answer_delay;
    if (delay.count() > 0) co_await base::sleep_for(delay);
    co_return answer;
  }
  asio::awaitable<std::optional<KnownChanges>> known_changes_since(std::string key, Revision revision) override {
    if (!knows_own_writes) co_return std::nullopt;
    const Revision current = co_await real_.current_revision();
    const std::optional<Revision> newest = own_writes_.newest_under(key, revision, current);
    if (!newest) co_return std::nullopt;
    co_return KnownChanges{.current = current, .newest_under_prefix = *newest};
  }
  asio::awaitable<void> compact(Revision revision) override { co_await real_.compact(revision); }

 private:
  class Forwarded final : public WatchStream {
   public:
    Forwarded(std::shared_ptr<std::unique_ptr<WatchStream>> stream, std::atomic<Revision>& lying_bookmark)
        : stream_(std::move(stream)), lying_bookmark_(lying_bookmark) {}
    asio::awaitable<std::optional<WatchEvent>> next() override {
      if (held_back_) {
        std::optional<WatchEvent> event = std::move(*held_back_);
        held_back_.reset();
        co_return event;
      }
      std::optional<WatchEvent> event = co_await (*stream_)->next();
      const Revision claimed = event && event->type != WatchEventType::Bookmark ? lying_bookmark_.exchange(0) : 0;
      if (claimed == 0) co_return event;
      held_back_ = std::move(event);
      WatchEvent bookmark;
      bookmark.type = WatchEventType::Bookmark;
      bookmark.revision = claimed;
      bookmark.object.mod_revision = claimed;
      co_return bookmark;
    }
    void stop() override { (*stream_)->stop(); }

   private:
    std::shared_ptr<std::unique_ptr<WatchStream>> stream_;
    std::atomic<Revision>& lying_bookmark_;
    std::optional<std::optional<WatchEvent>> held_back_;
  };

  KeyValue recorded(KeyValue written) {
    own_writes_.record(written.mod_revision, written.key);
    return written;
  }

  std::atomic<Revision> lying_bookmark_{0};
  Interface& real_;
  etcd3::OwnWrites own_writes_;
  std::mutex mutex_;
  std::vector<std::weak_ptr<std::unique_ptr<WatchStream>>> streams_;
};

class CacherTest : public ::testing::Test {
 protected:
  static constexpr const char* kPrefix = "/registry/pods/";

  CacherTest() {
    embedded::Options options;
    options.data_dir = dir_.path() / "data";
    store_ = embedded::Store::open(std::move(options));
    backend_ = std::make_unique<FaultyStore>(*store_);
  }
  ~CacherTest() override { cacher_.reset(); }

  // Starts the Cacher under test (the options' prefix is set here) and waits until it is ready.
  void start(CacherOptions options = {}) {
    options.resource_prefix = kPrefix;
    cacher_ = std::make_unique<Cacher>(*backend_, io_.executor(), std::move(options));
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (!cacher_->ready() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(5ms);
    ASSERT_TRUE(cacher_->ready());
  }

  template <typename T>
  T run(asio::awaitable<T> task) {
    return io_.run(std::move(task));
  }

  // Waits (a bounded while) until a LIST from the cache is at `revision` or later.
  bool cache_reaches(Revision revision) {
    ListOptions from_cache;
    from_cache.resource_version = "0";
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (run(cacher_->list_shared(kPrefix, from_cache)).revision < revision) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(5ms);
    }
    return true;
  }

  static std::string pod(const std::string& name) { return std::string(kPrefix) + "ns/" + name; }
  KeyValue write(const std::string& key, std::string value) {  // through the Cacher, i.e. to the backend
    return run(cacher_->guaranteed_update(
        key, true, nullptr, [value](const KeyValue*) { return std::optional<std::string>(value); }, {}));
  }
  KeyValue write_to_backend(const std::string& key, std::string value) {
    return run(store_->guaranteed_update(
        key, true, nullptr, [value](const KeyValue*) { return std::optional<std::string>(value); }, {}));
  }

  std::unique_ptr<CacheWatchStream> watch(const std::string& key, WatchOptions options) {
    std::unique_ptr<WatchStream> stream = run(cacher_->watch(key, std::move(options)));
    auto* cached = dynamic_cast<CacheWatchStream*>(stream.get());
    EXPECT_NE(cached, nullptr) << "a watch under the prefix is served from the cache";
    if (!cached) return nullptr;
    stream.release();
    return std::unique_ptr<CacheWatchStream>(cached);
  }
  static WatchOptions from(Revision revision, bool progress_notify = false) {
    WatchOptions options;
    options.resource_version = std::to_string(revision);
    options.progress_notify = progress_notify;
    return options;
  }

  // The next event, or nullopt when the stream ended or nothing came within `timeout` (the stream is stopped).
  std::optional<SharedWatchEvent> next(CacheWatchStream& stream, std::chrono::milliseconds timeout = 10s) {
    return run([](CacheWatchStream& stream, std::chrono::milliseconds timeout)
                   -> asio::awaitable<std::optional<SharedWatchEvent>> {
      asio::steady_timer deadline(co_await asio::this_coro::executor, timeout);
      deadline.async_wait([&stream](std::error_code error) {
        if (!error) stream.stop();
      });
      std::optional<SharedWatchEvent> event = co_await stream.next_shared();
      deadline.cancel();
      co_return event;
    }(stream, timeout));
  }

  test_support::IoThread io_;
  test_support::TempDir dir_{"kapi-cacher-test"};
  std::unique_ptr<embedded::Store> store_;
  std::unique_ptr<FaultyStore> backend_;
  std::unique_ptr<Cacher> cacher_;
};

inline const char* type_name(WatchEventType type) {
  switch (type) {
    case WatchEventType::Added: return "ADDED";
    case WatchEventType::Modified: return "MODIFIED";
    case WatchEventType::Deleted: return "DELETED";
    case WatchEventType::Bookmark: return "BOOKMARK";
    case WatchEventType::Error: return "ERROR";
  }
  return "?";
}

}  // namespace kapi::storage::cacher::testing
