// What only the embedded store has: its files, group commit, the slow-watcher policy, compaction details and
// the periodic compactor. The Interface semantics are covered by the conformance suite.
#include "storage/embedded/store.h"
#include "tests/support/io_thread.h"
#include "tests/support/temp_dir.h"

#include <gtest/gtest.h>

#include <asio/co_spawn.hpp>
#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_future.hpp>

#include <future>
#include <set>
#include <thread>

namespace kapi::storage::embedded::embedded_store_test {
namespace {

using namespace std::chrono_literals;
using test_support::IoThread;
using test_support::TempDir;

class EmbeddedStoreTest : public ::testing::Test {
 protected:
  void open(Options options = {}) {
    store_.reset();
    options.data_dir = dir_.path() / "data";
    store_ = Store::open(std::move(options));
  }
  void SetUp() override { open(); }

  template <typename T>
  T run(asio::awaitable<T> task) {
    return io_.run(std::move(task));
  }
  KeyValue create(const std::string& key, std::string value, std::chrono::seconds ttl = 0s) {
    WriteOptions options;
    options.ttl = ttl;
    return run(store_->create(key, std::move(value), options));
  }
  KeyValue update(const std::string& key, std::string value) {
    return run(store_->guaranteed_update(
        key, true, nullptr, [value](const KeyValue*) { return std::optional<std::string>(value); }, {}));
  }
  std::optional<WatchEvent> next(WatchStream& stream) {
    return run([](WatchStream& s) -> asio::awaitable<std::optional<WatchEvent>> {
      asio::steady_timer deadline(co_await asio::this_coro::executor, 10s);
      deadline.async_wait([&s](std::error_code error) {
        if (!error) s.stop();
      });
      auto event = co_await s.next();
      deadline.cancel();
      co_return event;
    }(stream));
  }
  static ErrorCode code_of(const std::function<void()>& action) {
    try {
      action();
    } catch (const StorageError& error) {
      return error.code();
    }
    ADD_FAILURE() << "no StorageError";
    return ErrorCode::Internal;
  }

  TempDir dir_{"kapi-embedded"};
  IoThread io_;
  std::unique_ptr<Store> store_;
};

TEST_F(EmbeddedStoreTest, DataAndRevisionsSurviveReopening) {
  EXPECT_EQ(run(store_->current_revision()), 1) << "a fresh store starts at revision 1, like etcd";
  create("/registry/a", "1");
  const KeyValue b = create("/registry/b", "2");
  run(store_->remove("/registry/a", nullptr));
  const Revision before = run(store_->current_revision());
  EXPECT_TRUE(std::filesystem::exists(dir_.path() / "data" / "kapi.db"));

  open();
  EXPECT_EQ(run(store_->current_revision()), before);
  auto got = run(store_->get("/registry/b", {}));
  ASSERT_TRUE(got);
  EXPECT_EQ(got->mod_revision, b.mod_revision);
  EXPECT_EQ(code_of([&] { run(store_->get("/registry/a", {})); }), ErrorCode::KeyNotFound);
  // History survives too: a watch from the first revision replays the deletion.
  WatchOptions options;
  options.resource_version = std::to_string(b.mod_revision);
  auto stream = run(store_->watch("/registry", options));
  auto event = next(*stream);
  ASSERT_TRUE(event);
  EXPECT_EQ(event->type, WatchEventType::Deleted);
  EXPECT_EQ(event->object.key, "/registry/a");
  EXPECT_EQ(create("/registry/c", "3").mod_revision, before + 1);
}

TEST_F(EmbeddedStoreTest, GroupCommitKeepsEachWriteItsOwnRevisionAndFailure) {
  create("/registry/dup-0", "x");
  create("/registry/dup-1", "x");
  const Revision start = run(store_->current_revision());
  constexpr int kWrites = 100;
  std::vector<std::future<KeyValue>> results;
  for (int i = 0; i < kWrites; ++i) {
    // Every 50th write collides with an existing key; it must fail alone.
    const std::string key = i % 50 == 0 ? "/registry/dup-" + std::to_string(i / 50) : "/registry/k" + std::to_string(i);
    results.push_back(asio::co_spawn(io_.context(), store_->create(key, "v", {}), asio::use_future));
  }
  std::set<Revision> revisions;
  int exists = 0;
  for (auto& result : results) {
    ASSERT_EQ(result.wait_for(20s), std::future_status::ready);
    try {
      revisions.insert(result.get().mod_revision);
    } catch (const StorageError& error) {
      EXPECT_EQ(error.code(), ErrorCode::KeyExists);
      ++exists;
    }
  }
  EXPECT_EQ(exists, 2);
  ASSERT_EQ(revisions.size(), std::size_t(kWrites - 2)) << "every successful write has its own revision";
  EXPECT_EQ(*revisions.begin(), start + 1);
  EXPECT_EQ(*revisions.rbegin(), start + kWrites - 2) << "revisions are dense: failures take none";
  EXPECT_EQ(run(store_->current_revision()), start + kWrites - 2);
}

TEST_F(EmbeddedStoreTest, RemoveRechecksPreconditionsAfterAConflictingWrite) {
  // RunTestDeleteWithConflict: a write lands between the delete's read and its conditional delete. The other
  // writer runs on its own io thread while this one is inside the precondition check.
  create("/registry/pods/ns/foo", "v1");
  IoThread other;
  int checks = 0;
  const KeyValue deleted = run(store_->remove("/registry/pods/ns/foo", [&](const KeyValue& current) {
    if (++checks == 1) {
      EXPECT_EQ(current.value, "v1");
      other.run(store_->guaranteed_update(
          "/registry/pods/ns/foo", false, nullptr,
          [](const KeyValue*) { return std::optional<std::string>("v2"); }, {}));
    }
  }));
  EXPECT_EQ(checks, 2);
  EXPECT_EQ(deleted.value, "v2") << "the delete returns the state it actually deleted";
}

TEST_F(EmbeddedStoreTest, AWatcherTooFarBehindIsClosedAndResumesFromHistory) {
  Options small;
  small.watch_queue_capacity = 4;
  open(small);
  const Revision start = run(store_->current_revision());
  WatchOptions options;
  options.resource_version = std::to_string(start);
  auto stream = run(store_->watch("/registry", options));
  for (int i = 0; i < 10; ++i) create("/registry/k" + std::to_string(i), "v");

  Revision last_seen = start;
  int delivered = 0;
  while (auto event = next(*stream)) {
    EXPECT_EQ(event->revision, last_seen + 1) << "what was delivered is a gap-free prefix";
    last_seen = event->revision;
    ++delivered;
  }
  EXPECT_EQ(delivered, 4);
  // The consumer re-watches from the last revision it saw and gets the rest from history.
  options.resource_version = std::to_string(last_seen);
  auto resumed = run(store_->watch("/registry", options));
  for (int i = delivered; i < 10; ++i) {
    auto event = next(*resumed);
    ASSERT_TRUE(event);
    EXPECT_EQ(event->object.key, "/registry/k" + std::to_string(i));
  }
}

TEST_F(EmbeddedStoreTest, CompactionKeepsEachKeysLatestStateReadable) {
  const KeyValue a1 = create("/registry/a", "1");
  create("/registry/b", "1");
  update("/registry/a", "2");
  run(store_->remove("/registry/b", nullptr));
  const KeyValue c = create("/registry/c", "1");
  run(store_->compact(c.mod_revision));
  run(store_->compact(a1.mod_revision));  // older than the compaction: a no-op, not an error
  EXPECT_EQ(code_of([&] { run(store_->compact(c.mod_revision + 100)); }), ErrorCode::InvalidArgument);

  ListOptions exact;
  exact.resource_version = std::to_string(c.mod_revision);
  exact.resource_version_match = ResourceVersionMatch::Exact;
  const ListResult at_compaction = run(store_->list("/registry", exact));
  ASSERT_EQ(at_compaction.items.size(), 2u);
  EXPECT_EQ(at_compaction.items[0].value, "2");
  EXPECT_EQ(at_compaction.items[1].key, "/registry/c");
  exact.resource_version = std::to_string(c.mod_revision - 1);
  EXPECT_EQ(code_of([&] { run(store_->list("/registry", exact)); }), ErrorCode::Expired);

  open();  // the compaction revision is durable
  EXPECT_EQ(code_of([&] { run(store_->list("/registry", exact)); }), ErrorCode::Expired);
}

TEST_F(EmbeddedStoreTest, PeriodicCompactionKeepsOneIntervalOfHistory) {
  Options periodic;
  periodic.compaction_interval = 1s;
  open(periodic);
  const KeyValue first = create("/registry/a", "1");
  update("/registry/a", "2");
  ListOptions exact;
  exact.resource_version = std::to_string(first.mod_revision);
  exact.resource_version_match = ResourceVersionMatch::Exact;
  EXPECT_EQ(run(store_->list("/registry", exact)).items.size(), 1u) << "not compacted before two ticks";
  // The first tick records the revision, the second compacts to it.
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  bool compacted = false;
  while (!compacted && std::chrono::steady_clock::now() < deadline) {
    try {
      run(store_->list("/registry", exact));
      std::this_thread::sleep_for(100ms);
    } catch (const StorageError& error) {
      EXPECT_EQ(error.code(), ErrorCode::Expired);
      compacted = true;
    }
  }
  EXPECT_TRUE(compacted);
  EXPECT_EQ(run(store_->get("/registry/a", {}))->value, "2");
}

TEST_F(EmbeddedStoreTest, TtlsSurviveARestart) {
  const KeyValue created = create("/registry/ephemeral", "v", 1s);
  open();
  WatchOptions options;
  options.resource_version = std::to_string(created.mod_revision);
  auto stream = run(store_->watch("/registry", options));
  auto event = next(*stream);
  ASSERT_TRUE(event);
  EXPECT_EQ(event->type, WatchEventType::Deleted);
  EXPECT_EQ(event->object.key, "/registry/ephemeral");
}

TEST_F(EmbeddedStoreTest, SendInitialEventsClosesTheInitialStateWithABookmark) {
  const KeyValue a = create("/registry/a", "1");
  WatchOptions options;
  options.send_initial_events = true;
  // Only a watch that asked for bookmarks gets that one, as from kube's etcd3 store.
  auto without_bookmarks = run(store_->watch("/registry", options));
  options.progress_notify = true;
  auto stream = run(store_->watch("/registry", options));
  auto added = next(*stream);
  ASSERT_TRUE(added);
  EXPECT_EQ(added->type, WatchEventType::Added);
  auto end = next(*stream);
  ASSERT_TRUE(end);
  EXPECT_EQ(end->type, WatchEventType::Bookmark);
  EXPECT_TRUE(end->initial_events_end);
  EXPECT_EQ(end->revision, a.mod_revision);
  const KeyValue b = create("/registry/b", "2");
  for (const KeyValue* expected : {&a, &b}) {
    auto event = next(*without_bookmarks);
    ASSERT_TRUE(event);
    EXPECT_EQ(event->type, WatchEventType::Added);
    EXPECT_EQ(event->revision, expected->mod_revision);
  }
  // Like kube's etcd3 store, initial events from an explicit resourceVersion are not offered.
  options.resource_version = std::to_string(a.mod_revision);
  EXPECT_EQ(code_of([&] { run(store_->watch("/registry", options)); }), ErrorCode::InvalidArgument);
}

TEST_F(EmbeddedStoreTest, WatchesEndWhenTheStoreCloses) {
  auto stream = run(store_->watch("/registry", {}));
  store_.reset();
  EXPECT_FALSE(next(*stream));
}

}  // namespace
}  // namespace kapi::storage::embedded::embedded_store_test
