// Watches of the etcd3 store against a real etcd: event translation (kube's watchChan.transform), initial state,
// compaction, progress requests and stopping.
#include "storage/etcd3/store.h"
#include "tests/support/etcd_process.h"
#include "tests/support/io_thread.h"

#include <gtest/gtest.h>

#include <asio/steady_timer.hpp>

#include <future>
#include <thread>

namespace kapi::storage::etcd3::etcd3_watch_test {
namespace {

using namespace std::chrono_literals;
using test_support::EtcdProcess;
using test_support::IoThread;

class Etcd3WatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    StoreOptions options;
    options.client.endpoints = {etcd_.endpoint()};
    options.client.request_timeout = 5s;
    options.compaction_interval = 0s;
    store_ = std::make_unique<Store>(io_.executor(), options);
  }
  void TearDown() override { store_.reset(); }

  template <typename T>
  T run(asio::awaitable<T> task) {
    return io_.run(std::move(task));
  }
  std::unique_ptr<WatchStream> watch(const std::string& key, WatchOptions options) {
    return run(store_->watch(key, std::move(options)));
  }
  WatchEvent next(WatchStream& stream) {
    auto event = run(stream.next());
    if (!event) throw std::runtime_error("watch ended");
    return *event;
  }
  KeyValue update(const std::string& key, const std::string& value) {
    return run(store_->guaranteed_update(
        key, false, {}, [value](const KeyValue*) { return std::optional<std::string>(value); }, {}));
  }

  EtcdProcess etcd_;
  IoThread io_;
  std::unique_ptr<Store> store_;
};

TEST_F(Etcd3WatchTest, ChangesAfterTheRevisionCarryTheirPreviousState) {
  auto a = run(store_->create("/registry/cm/ns/a", "a1", {}));
  auto stream = watch("/registry/cm/ns", WatchOptions{.resource_version = std::to_string(a.mod_revision)});
  auto a2 = update("/registry/cm/ns/a", "a2");
  auto b = run(store_->create("/registry/cm/ns/b", "b1", {}));
  run(store_->create("/registry/cm/nsx/outside", "x", {}));
  auto removed = run(store_->remove("/registry/cm/ns/a", {}));

  auto modified = next(*stream);
  EXPECT_EQ(modified.type, WatchEventType::Modified);
  EXPECT_EQ(modified.object.value, "a2");
  EXPECT_EQ(modified.prev_object.value, "a1");
  EXPECT_EQ(modified.revision, a2.mod_revision);

  auto added = next(*stream);
  EXPECT_EQ(added.type, WatchEventType::Added);
  EXPECT_EQ(added.object.key, "/registry/cm/ns/b");
  EXPECT_EQ(added.revision, b.mod_revision);

  auto deleted = next(*stream);
  EXPECT_EQ(deleted.type, WatchEventType::Deleted);
  EXPECT_EQ(deleted.object.value, "a2");  // the last state…
  EXPECT_EQ(deleted.object.mod_revision, removed.mod_revision);  // …at the deletion's revision
  EXPECT_EQ(deleted.prev_object.mod_revision, a2.mod_revision);
}

TEST_F(Etcd3WatchTest, FromZeroStartsWithTheCurrentState) {
  run(store_->create("/registry/cm/z/a", "1", {}));
  run(store_->create("/registry/cm/z/b", "1", {}));
  auto stream = watch("/registry/cm/z/", WatchOptions{.resource_version = "0"});
  EXPECT_EQ(next(*stream).object.key, "/registry/cm/z/a");
  EXPECT_EQ(next(*stream).object.key, "/registry/cm/z/b");
  run(store_->create("/registry/cm/z/c", "1", {}));
  auto live = next(*stream);
  EXPECT_EQ(live.type, WatchEventType::Added);
  EXPECT_EQ(live.object.key, "/registry/cm/z/c");
}

TEST_F(Etcd3WatchTest, PredicateTurnsTransitionsIntoAddedAndDeleted) {
  auto created = run(store_->create("/registry/cm/p/a", "out", {}));
  WatchOptions options = WatchOptions{.resource_version = std::to_string(created.mod_revision)};
  options.predicate = [](const ObjectView& kv) { return kv.value == "in"; };
  auto stream = watch("/registry/cm/p", options);
  update("/registry/cm/p/a", "in");
  update("/registry/cm/p/a", "in ");        // leaves the selection
  update("/registry/cm/p/a", "still out");  // outside before and after: nothing
  auto back_in = update("/registry/cm/p/a", "in");

  auto entered = next(*stream);
  EXPECT_EQ(entered.type, WatchEventType::Added);
  auto left = next(*stream);
  EXPECT_EQ(left.type, WatchEventType::Deleted);
  EXPECT_EQ(left.object.value, "in");
  auto reentered = next(*stream);
  EXPECT_EQ(reentered.type, WatchEventType::Added);
  EXPECT_EQ(reentered.revision, back_in.mod_revision);
}

TEST_F(Etcd3WatchTest, SingleKeyWatchSeesOnlyThatKey) {
  auto created = run(store_->create("/registry/cm/s/a", "1", {}));
  WatchOptions options = WatchOptions{.resource_version = std::to_string(created.mod_revision)};
  options.recursive = false;
  auto stream = watch("/registry/cm/s/a", options);
  run(store_->create("/registry/cm/s/ab", "1", {}));
  run(store_->create("/registry/cm/s/a/child", "1", {}));
  update("/registry/cm/s/a", "2");
  auto event = next(*stream);
  EXPECT_EQ(event.object.key, "/registry/cm/s/a");
  EXPECT_EQ(event.type, WatchEventType::Modified);
}

TEST_F(Etcd3WatchTest, SendInitialEventsMeansAWatchFromNow) {
  run(store_->create("/registry/cm/i/a", "1", {}));
  WatchOptions options;
  options.send_initial_events = true;
  auto stream = watch("/registry/cm/i", options);
  EXPECT_EQ(next(*stream).object.key, "/registry/cm/i/a");

  options.resource_version = std::to_string(run(store_->current_revision()));
  try {
    watch("/registry/cm/i", options);
    FAIL();
  } catch (const StorageError& error) {
    EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);  // the Cacher serves WatchList; etcd3 only "from now"
  }
}

TEST_F(Etcd3WatchTest, CompactedStartEndsWithExpired) {
  auto first = run(store_->create("/registry/cm/c/a", "1", {}));
  update("/registry/cm/c/a", "2");
  update("/registry/cm/c/a", "3");
  run(store_->compact(run(store_->current_revision())));
  auto stream = watch("/registry/cm/c", WatchOptions{.resource_version = std::to_string(first.mod_revision)});
  auto event = next(*stream);
  ASSERT_EQ(event.type, WatchEventType::Error);
  ASSERT_TRUE(event.error);
  EXPECT_EQ(event.error->code(), ErrorCode::Expired);
  EXPECT_STREQ(event.error->what(), "The resourceVersion for the provided watch is too old.");
  EXPECT_FALSE(run(stream->next()));
}

// Whether this test's etcd answers progress requests in order with its events, read from etcd itself.
bool etcd_orders_progress_responses(Store& store, IoThread& io) {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!store.features_checked() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(store.features_checked()) << "the store did not learn etcd's version";
  const auto versions = io.run(store.client().member_versions(2s));
  EXPECT_EQ(versions.size(), 1u);
  EXPECT_TRUE(versions.front().has_value());
  const bool ordered = versions.front() && orders_progress_responses(*versions.front());
  EXPECT_EQ(store.can_request_watch_progress(), ordered) << "etcd " << versions.front().value_or("?");
  return ordered;
}

TEST(EtcdFeatureSupport, ProgressAnswersAreOrderedFrom3_4_31And3_5_13) {
  EXPECT_FALSE(orders_progress_responses("3.4.23"));  // Debian 12's etcd
  EXPECT_FALSE(orders_progress_responses("3.4.30"));
  EXPECT_TRUE(orders_progress_responses("3.4.31"));
  EXPECT_FALSE(orders_progress_responses("3.5.0"));
  EXPECT_FALSE(orders_progress_responses("3.5.12"));
  EXPECT_TRUE(orders_progress_responses("3.5.13"));
  EXPECT_TRUE(orders_progress_responses("v3.6.0-rc.1"));
  EXPECT_FALSE(orders_progress_responses("3.3.27"));
  EXPECT_FALSE(orders_progress_responses("garbage"));
  EXPECT_FALSE(orders_progress_responses(""));
}

// Issue 27: a watch resumed from an old revision is still catching up inside etcd when a progress request is
// answered; etcd 3.4.23 answers at once with its current revision, ahead of the events. Such an answer reaching
// the watch cache as a Bookmark made it skip those events. Whatever the etcd, no Bookmark may precede an event
// it claims to cover.
TEST_F(Etcd3WatchTest, NoBookmarkRunsAheadOfTheEventsOfAWatchThatIsCatchingUp) {
  etcd_orders_progress_responses(*store_, io_);
  const auto first = run(store_->create("/registry/cm/late/0", "v", {}));
  constexpr int kBacklog = 300;
  for (int i = 1; i < kBacklog; ++i) run(store_->create("/registry/cm/late/" + std::to_string(i), "v", {}));
  const Revision current = run(store_->current_revision());

  for (int attempt = 0; attempt < 5; ++attempt) {
    WatchOptions notified = WatchOptions{.resource_version = std::to_string(first.mod_revision - 1)};
    notified.progress_notify = true;
    auto stream = watch("/registry/cm/late", notified);
    run(store_->request_watch_progress());  // while etcd is still replaying the backlog to the new watch
    Revision newest_event = 0;
    int events = 0;
    while (events < kBacklog) {
      WatchEvent event = next(*stream);
      if (event.type == WatchEventType::Bookmark) {
        EXPECT_GE(newest_event, event.revision) << "a Bookmark at " << event.revision << " before the event at "
                                                << newest_event + 1 << " (attempt " << attempt << ")";
        continue;
      }
      newest_event = event.revision;
      ++events;
    }
    EXPECT_EQ(newest_event, current);
  }
}

TEST_F(Etcd3WatchTest, ProgressRequestYieldsABookmarkFromAnEtcdThatOrdersIt) {
  const bool ordered = etcd_orders_progress_responses(*store_, io_);
  auto created = run(store_->create("/registry/cm/b/a", "1", {}));
  auto silent = watch("/registry/cm/b",
                      WatchOptions{.resource_version = std::to_string(created.mod_revision)});  // no bookmarks
  WatchOptions notified = WatchOptions{.resource_version = std::to_string(created.mod_revision)};
  notified.progress_notify = true;
  auto stream = watch("/registry/cm/b", notified);
  run(store_->create("/registry/cm/other", "1", {}));  // progress outside the watched prefix
  const Revision current = run(store_->current_revision());
  run(store_->request_watch_progress());
  if (ordered) {
    auto bookmark = next(*stream);
    EXPECT_EQ(bookmark.type, WatchEventType::Bookmark);
    EXPECT_EQ(bookmark.revision, current);
    EXPECT_EQ(bookmark.object.mod_revision, current);
  }

  const KeyValue changed = update("/registry/cm/b/a", "2");
  EXPECT_EQ(next(*silent).type, WatchEventType::Modified);  // the request left no bookmark here
  // Nor, from an etcd that may answer out of order (the store asks it nothing), on the watch that asked for them.
  WatchEvent after = next(*stream);
  EXPECT_EQ(after.type, WatchEventType::Modified);
  EXPECT_EQ(after.revision, changed.mod_revision);
}

TEST_F(Etcd3WatchTest, StopEndsAPendingNext) {
  auto stream = watch("/registry/cm/idle/", {});
  auto pending = asio::co_spawn(io_.context(), stream->next(), asio::use_future);
  std::this_thread::sleep_for(100ms);
  stream->stop();
  ASSERT_EQ(pending.wait_for(5s), std::future_status::ready);
  EXPECT_FALSE(pending.get());
}

TEST_F(Etcd3WatchTest, PeriodicProgressNotifications) {
  EtcdProcess::Options etcd_options;
  etcd_options.progress_notify_interval = 300ms;
  EtcdProcess fast_etcd(etcd_options);
  StoreOptions options;
  options.client.endpoints = {fast_etcd.endpoint()};
  options.compaction_interval = 0s;
  auto store = std::make_unique<Store>(io_.executor(), options);
  WatchOptions notified;
  notified.progress_notify = true;
  auto stream = run(store->watch("/registry/cm/", notified));
  const Revision current = run(store->current_revision());
  auto event = run(stream->next());
  ASSERT_TRUE(event);
  EXPECT_EQ(event->type, WatchEventType::Bookmark);
  EXPECT_GE(event->revision, current);
  stream.reset();
  store.reset();
}

}  // namespace
}  // namespace kapi::storage::etcd3::etcd3_watch_test
