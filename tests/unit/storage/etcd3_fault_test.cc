// etcd taken away under a running watch: SIGKILLed and restarted on the same data dir and ports, the watch goes on
// with every event exactly once; when the history it needs was compacted meanwhile, it ends with Expired.
#include "storage/etcd3/store.h"
#include "tests/support/etcd_process.h"
#include "tests/support/io_thread.h"

#include <gtest/gtest.h>

#include <future>
#include <set>

namespace kapi::storage::etcd3::etcd3_fault_test {
namespace {

using namespace std::chrono_literals;
using test_support::EtcdProcess;
using test_support::IoThread;

class Etcd3FaultTest : public ::testing::Test {
 protected:
  void SetUp() override {
    StoreOptions options;
    options.client.endpoints = {etcd_.endpoint()};
    options.client.request_timeout = 10s;
    options.client.max_backoff = 500ms;
    options.compaction_interval = 0s;
    store_ = std::make_unique<Store>(io_.executor(), options);
  }
  void TearDown() override { store_.reset(); }

  template <typename T>
  T run(asio::awaitable<T> task) {
    return io_.run(std::move(task));
  }
  void create(const std::string& key) { run(store_->create(key, "v", {})); }

  // Collects `count` events on the io thread while the test body plays with etcd.
  std::future<std::vector<WatchEvent>> collect(WatchStream& stream, std::size_t count) {
    auto collector = [](WatchStream& stream, std::size_t count) -> asio::awaitable<std::vector<WatchEvent>> {
      std::vector<WatchEvent> events;
      while (events.size() < count) {
        auto event = co_await stream.next();
        if (!event) break;
        events.push_back(std::move(*event));
      }
      co_return events;
    };
    return asio::co_spawn(io_.context(), collector(stream, count), asio::use_future);
  }

  static void expect_each_key_once_in_order(const std::vector<WatchEvent>& events, std::size_t expected) {
    ASSERT_EQ(events.size(), expected);
    std::set<std::string> keys;
    Revision previous = 0;
    for (const auto& event : events) {
      EXPECT_EQ(event.type, WatchEventType::Added);
      EXPECT_GT(event.revision, previous);
      previous = event.revision;
      EXPECT_TRUE(keys.insert(event.object.key).second) << "duplicate " << event.object.key;
    }
  }

  EtcdProcess etcd_;
  IoThread io_;
  std::unique_ptr<Store> store_;
};

TEST_F(Etcd3FaultTest, WatchResumesAfterEtcdIsKilledAndRestarted) {
  const Revision start = run(store_->current_revision());
  auto stream = run(store_->watch("/registry/jobs/", WatchOptions{.resource_version = std::to_string(start)}));
  auto events = collect(*stream, 30);
  int written = 0;
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 10; ++i) create("/registry/jobs/j" + std::to_string(written++));
    // Half the time the watcher is still reading these when etcd dies.
    if (round % 2 == 1) std::this_thread::sleep_for(200ms);
    etcd_.kill();
    etcd_.start();
  }
  ASSERT_EQ(events.wait_for(20s), std::future_status::ready);
  expect_each_key_once_in_order(events.get(), 30);

  // And it is still live.
  auto more = collect(*stream, 1);
  create("/registry/jobs/after");
  ASSERT_EQ(more.wait_for(10s), std::future_status::ready);
  auto last = more.get();
  ASSERT_EQ(last.size(), 1u);
  EXPECT_EQ(last[0].object.key, "/registry/jobs/after");
}

TEST_F(Etcd3FaultTest, WritesMadeWhileTheWatcherIsDisconnectedAreDelivered) {
  const Revision start = run(store_->current_revision());
  auto stream = run(store_->watch("/registry/jobs/", WatchOptions{.resource_version = std::to_string(start)}));
  create("/registry/jobs/before");
  etcd_.kill();
  etcd_.start();
  // The watcher is not reading: its stream is broken, and these land before it reconnects.
  for (int i = 0; i < 5; ++i) create("/registry/jobs/during" + std::to_string(i));
  auto events = collect(*stream, 6);
  ASSERT_EQ(events.wait_for(20s), std::future_status::ready);
  auto got = events.get();
  expect_each_key_once_in_order(got, 6);
  EXPECT_EQ(got.front().object.key, "/registry/jobs/before");
}

TEST_F(Etcd3FaultTest, HistoryCompactedWhileDisconnectedEndsWithExpired) {
  const Revision start = run(store_->current_revision());
  auto stream = run(store_->watch("/registry/jobs/", WatchOptions{.resource_version = std::to_string(start)}));
  etcd_.kill();
  etcd_.start();
  create("/registry/jobs/a");
  create("/registry/jobs/b");
  run(store_->compact(run(store_->current_revision())));
  auto events = collect(*stream, 5);
  ASSERT_EQ(events.wait_for(20s), std::future_status::ready);
  auto got = events.get();
  ASSERT_EQ(got.size(), 1u);  // the Error, then the end
  EXPECT_EQ(got[0].type, WatchEventType::Error);
  ASSERT_TRUE(got[0].error);
  EXPECT_EQ(got[0].error->code(), ErrorCode::Expired);
}

}  // namespace
}  // namespace kapi::storage::etcd3::etcd3_fault_test
