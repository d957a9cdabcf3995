// The Cacher's watches: fan-out to many watchers, slow watchers, history replay and 410, bookmarks, and the
// reflector riding out a broken or expired backend watch.
#include "tests/unit/storage/cacher_fixture.h"

#include <asio/co_spawn.hpp>
#include <asio/use_future.hpp>

#include <future>

namespace kapi::storage::cacher::testing::cacher_watch_test {
namespace {

// Reads `count` events from `stream` on the io thread, recording when each arrived.
struct Collected {
  std::vector<SharedWatchEvent> events;
  std::vector<std::chrono::steady_clock::time_point> arrivals;
};
asio::awaitable<Collected> collect(CacheWatchStream& stream, std::size_t count) {
  Collected collected;
  while (collected.events.size() < count) {
    std::optional<SharedWatchEvent> event = co_await stream.next_shared();
    if (!event) break;
    collected.events.push_back(std::move(*event));
    collected.arrivals.push_back(std::chrono::steady_clock::now());
  }
  co_return collected;
}

TEST_F(CacherTest, ManyWatchersGetEveryEventInOrderSharingTheBytes) {
  CacherOptions options;
  options.watcher_buffer = 16;  // far fewer than the events: watchers fall behind and catch up from the history
  options.blocked_watcher_budget = 30s;
  start(options);
  const Revision start_revision = run(cacher_->current_revision());
  constexpr int kWatchers = 40;
  constexpr int kEvents = 120;
  std::vector<std::unique_ptr<CacheWatchStream>> streams;
  std::vector<std::future<Collected>> results;
  for (int w = 0; w < kWatchers; ++w) {
    streams.push_back(watch(kPrefix, from(start_revision)));
    results.push_back(asio::co_spawn(io_.context(), collect(*streams.back(), kEvents), asio::use_future));
  }
  std::vector<KeyValue> written;
  for (int i = 0; i < kEvents; ++i) written.push_back(write(pod("p" + std::to_string(i % 30)), "v" + std::to_string(i)));

  std::vector<Collected> collected;
  for (auto& result : results) {
    ASSERT_EQ(result.wait_for(30s), std::future_status::ready);
    collected.push_back(result.get());
  }
  for (int w = 0; w < kWatchers; ++w) {
    SCOPED_TRACE("watcher " + std::to_string(w));
    ASSERT_EQ(collected[w].events.size(), static_cast<std::size_t>(kEvents));
    for (int i = 0; i < kEvents; ++i) {
      const SharedWatchEvent& event = collected[w].events[i];
      EXPECT_EQ(event.revision, written[i].mod_revision);
      EXPECT_EQ(event.object->value, written[i].value);
      EXPECT_EQ(type_name(event.type), std::string(i < 30 ? "ADDED" : "MODIFIED"));
      // Every watcher got the very same object and encoding cache: nothing was copied per watcher.
      EXPECT_EQ(event.object.get(), collected[0].events[i].object.get());
      EXPECT_EQ(event.encodings.get(), collected[0].events[i].encodings.get());
    }
  }
}

TEST_F(CacherTest, EachEventIsEncodedOncePerFormatForAllWatchers) {
  start();
  const Revision start_revision = run(cacher_->current_revision());
  auto first = watch(kPrefix, from(start_revision));
  auto second = watch(kPrefix, from(start_revision));
  write(pod("a"), "{}");
  auto a = next(*first);
  auto b = next(*second);
  ASSERT_TRUE(a && b && a->encodings && b->encodings);
  int encodes = 0;
  auto encode = [&encodes] {
    ++encodes;
    return std::string("encoded");
  };
  EXPECT_EQ(*a->encodings->get_or_encode("json", encode), "encoded");
  EXPECT_EQ(b->encodings->get_or_encode("json", encode).get(), a->encodings->find("json").get());
  EXPECT_EQ(encodes, 1);
  b->encodings->get_or_encode("protobuf", encode);
  EXPECT_EQ(encodes, 2);
}

TEST_F(CacherTest, ABlockedWatcherIsClosedWithoutDelayingTheOthers) {
  CacherOptions options;
  options.watcher_buffer = 4;
  options.blocked_watcher_budget = 1s;
  start(options);
  const Revision start_revision = run(cacher_->current_revision());
  auto blocked = watch(kPrefix, from(start_revision));  // never read until the end
  auto fast = watch(kPrefix, from(start_revision));
  constexpr int kEvents = 30;
  auto fast_events = asio::co_spawn(io_.context(), collect(*fast, kEvents), asio::use_future);
  std::vector<std::chrono::steady_clock::time_point> acknowledged;
  for (int i = 0; i < kEvents; ++i) {
    write(pod("p" + std::to_string(i)), "v");
    acknowledged.push_back(std::chrono::steady_clock::now());
  }
  ASSERT_EQ(fast_events.wait_for(10s), std::future_status::ready);
  Collected fast_collected = fast_events.get();
  ASSERT_EQ(fast_collected.events.size(), static_cast<std::size_t>(kEvents));
  for (int i = 0; i < kEvents; ++i) {
    // The fast watcher never waits for the blocked one: well within the blocked budget of each write.
    EXPECT_LT(fast_collected.arrivals[i] - acknowledged[i], 500ms) << "event " << i;
  }

  // Behind (4 buffered, the rest waiting in the history) and silent past its budget: closed.
  std::this_thread::sleep_for(2s);
  std::optional<SharedWatchEvent> after_close = next(*blocked, 2s);
  EXPECT_FALSE(after_close) << "a closed watcher's stream ends; its client re-watches";
  EXPECT_EQ(cacher_->stats().watchers, 1u);

  // The survivor keeps going.
  const KeyValue later = write(pod("later"), "v");
  auto event = next(*fast);
  ASSERT_TRUE(event);
  EXPECT_EQ(event->revision, later.mod_revision);
}

TEST_F(CacherTest, AWatchFromAPastRevisionReplaysTheHistory) {
  CacherOptions options;
  options.watcher_buffer = 3;  // the replay is longer than the buffer
  start(options);
  const KeyValue first = write(pod("a"), "1");
  std::vector<KeyValue> later;
  for (int i = 2; i <= 10; ++i) later.push_back(write(pod("a"), std::to_string(i)));
  later.push_back(run(cacher_->remove(pod("a"), nullptr)));

  auto stream = watch(pod("a"), [&] {
    WatchOptions o = from(first.mod_revision);
    o.recursive = false;
    return o;
  }());
  for (std::size_t i = 0; i < later.size(); ++i) {
    auto event = next(*stream);
    ASSERT_TRUE(event) << i;
    EXPECT_EQ(event->revision, later[i].mod_revision);
    EXPECT_EQ(type_name(event->type), std::string(i + 1 < later.size() ? "MODIFIED" : "DELETED"));
    EXPECT_EQ(event->object->value, i + 1 < later.size() ? later[i].value : "10");
  }
  const KeyValue again = write(pod("a"), "back");
  auto live = next(*stream);
  ASSERT_TRUE(live);
  EXPECT_EQ(type_name(live->type), std::string("ADDED"));
  EXPECT_EQ(live->revision, again.mod_revision);
}

TEST_F(CacherTest, AWatchOlderThanTheHistoryIsExpiredWith410) {
  CacherOptions options;
  options.history.lower_bound = 8;
  options.history.upper_bound = 8;
  start(options);
  std::vector<KeyValue> written;
  for (int i = 0; i < 20; ++i) written.push_back(write(pod("p" + std::to_string(i)), "v"));
  const Revision oldest_kept = written[20 - 8].mod_revision;
  const Revision floor = oldest_kept - 1;

  auto too_old = watch(kPrefix, from(written[0].mod_revision));
  auto error = next(*too_old);
  ASSERT_TRUE(error);
  ASSERT_EQ(type_name(error->type), std::string("ERROR"));
  ASSERT_TRUE(error->error);
  EXPECT_EQ(error->error->code(), ErrorCode::Expired);
  EXPECT_EQ(std::string(error->error->what()),
            "too old resource version: " + std::to_string(written[0].mod_revision) + " (" + std::to_string(floor) + ")");
  EXPECT_FALSE(next(*too_old, 1s)) << "the watch ends after its error";

  auto just_in_time = watch(kPrefix, from(floor));
  auto event = next(*just_in_time);
  ASSERT_TRUE(event);
  EXPECT_EQ(event->revision, oldest_kept);
}

TEST_F(CacherTest, CompactTrimsTheHistory) {
  start();
  const KeyValue a = write(pod("a"), "1");
  const KeyValue b = write(pod("a"), "2");
  run(cacher_->compact(b.mod_revision));
  auto expired = watch(kPrefix, from(a.mod_revision));
  auto error = next(*expired);
  ASSERT_TRUE(error && error->error);
  EXPECT_EQ(error->error->code(), ErrorCode::Expired);
}

TEST_F(CacherTest, BookmarksArePeriodicOnlyForWatchesThatAskForThem) {
  CacherOptions options;
  options.bookmark_interval = 200ms;
  start(options);
  const KeyValue a = write(pod("a"), "1");
  auto with_bookmarks = watch(kPrefix, from(a.mod_revision, true));
  auto without = watch(kPrefix, from(a.mod_revision, false));
  const KeyValue other = write_to_backend("/registry/configmaps/ns/x", "outside the resource");
  run(cacher_->request_watch_progress());  // brings the cache's revision to `other` without an event
  // The requested bookmark covers `other` (a periodic one may come first); later ones keep coming.
  Revision reached = 0;
  for (int i = 0; i < 10 && reached < other.mod_revision; ++i) {
    auto bookmark = next(*with_bookmarks, 3s);
    ASSERT_TRUE(bookmark);
    EXPECT_EQ(type_name(bookmark->type), std::string("BOOKMARK"));
    EXPECT_FALSE(bookmark->initial_events_end);
    reached = bookmark->revision;
  }
  EXPECT_GE(reached, other.mod_revision);
  auto periodic = next(*with_bookmarks, 3s);
  ASSERT_TRUE(periodic);
  EXPECT_EQ(type_name(periodic->type), std::string("BOOKMARK"));
  EXPECT_GE(periodic->revision, other.mod_revision);
  EXPECT_FALSE(next(*without, 600ms)) << "no bookmark for a watch without progress_notify";
}

TEST_F(CacherTest, SendInitialEventsEndsTheInitialStateWithABookmark) {
  start();
  const KeyValue a = write(pod("a"), "1");
  const KeyValue b = write(pod("b"), "2");
  WatchOptions options;
  options.send_initial_events = true;
  options.progress_notify = true;
  auto stream = watch(kPrefix, options);
  auto first = next(*stream);
  auto second = next(*stream);
  auto end = next(*stream);
  ASSERT_TRUE(first && second && end);
  EXPECT_EQ(first->object->key, a.key);
  EXPECT_EQ(second->object->key, b.key);
  EXPECT_EQ(type_name(end->type), std::string("BOOKMARK"));
  EXPECT_TRUE(end->initial_events_end);
  EXPECT_GE(end->revision, b.mod_revision);
  EXPECT_TRUE(to_watch_event(*end).initial_events_end);
  // Only a watch that asked for bookmarks gets that one (kube's getBookmarkAfterResourceVersionLockedFunc).
  options.progress_notify = false;
  auto without_bookmarks = watch(kPrefix, options);

  const KeyValue c = write(pod("c"), "3");
  auto live = next(*stream);
  ASSERT_TRUE(live);
  EXPECT_EQ(live->revision, c.mod_revision);
  for (const KeyValue* expected : {&a, &b, &c}) {
    auto event = next(*without_bookmarks);
    ASSERT_TRUE(event);
    EXPECT_EQ(type_name(event->type), std::string("ADDED"));
    EXPECT_EQ(event->object->key, expected->key);
  }
}

TEST_F(CacherTest, ABrokenBackendWatchResumesWithoutLosingEvents) {
  start();
  const Revision start_revision = run(cacher_->current_revision());
  auto stream = watch(kPrefix, from(start_revision));
  std::vector<KeyValue> written;
  written.push_back(write(pod("a"), "1"));
  const int opened = backend_->watches_opened;
  backend_->break_watches();
  for (int i = 2; i <= 5; ++i) written.push_back(write(pod("a"), std::to_string(i)));
  for (const KeyValue& expected : written) {
    auto event = next(*stream);
    ASSERT_TRUE(event);
    EXPECT_EQ(event->revision, expected.mod_revision);
  }
  EXPECT_GT(backend_->watches_opened, opened) << "the reflector re-watched";
  EXPECT_FALSE(next(*stream, 300ms)) << "and nothing was delivered twice";
}

TEST_F(CacherTest, AnExpiredBackendWatchRelistsAndEndsTheWatchers) {
  CacherOptions options;
  options.retry_initial = 50ms;
  options.retry_max = 50ms;
  start(options);
  write(pod("a"), "1");
  auto stream = watch(kPrefix, from(0));
  ASSERT_TRUE(next(*stream));  // the initial state

  backend_->refuse_watches = true;
  backend_->break_watches();
  write_to_backend(pod("b"), "2");
  const KeyValue c = write_to_backend(pod("c"), "3");
  run(store_->compact(c.mod_revision));  // the reflector's resume point is gone
  backend_->refuse_watches = false;

  EXPECT_FALSE(next(*stream)) << "a relist ends every watcher: what they missed is unknowable";
  ListOptions at_least;
  at_least.resource_version = std::to_string(c.mod_revision);
  const ListResult listed = run(cacher_->list(kPrefix, at_least));
  EXPECT_EQ(listed.items.size(), 3u);
  auto fresh = watch(kPrefix, from(c.mod_revision));
  const KeyValue d = write(pod("d"), "4");
  auto event = next(*fresh);
  ASSERT_TRUE(event);
  EXPECT_EQ(event->revision, d.mod_revision);
}

// Issue 27: a backend whose progress notification runs ahead of its events (etcd-io/etcd#15220) made the cache
// take the late change for a replay and drop it: the object never reached the cache, and no watcher ever saw it.
// The change must not vanish: the cache relists and ends its watchers, whose clients resume or get 410 Gone.
TEST_F(CacherTest, AChangeBehindAProgressNotificationIsNotDropped) {
  CacherOptions options;
  options.retry_initial = 50ms;
  start(options);
  const KeyValue a = write(pod("a"), "1");
  auto stream = watch(kPrefix, from(a.mod_revision));

  const Revision current = run(store_->current_revision());
  backend_->run_progress_ahead_once(current + 1);  // claims the next write before delivering it
  const KeyValue b = write(pod("b"), "2");
  ASSERT_EQ(b.mod_revision, current + 1);

  std::optional<SharedWatchEvent> event = next(*stream);
  if (event) {
    // Delivered in order after all: it must be the change itself, never a Bookmark that skips it.
    EXPECT_EQ(type_name(event->type), std::string("ADDED"));
    EXPECT_EQ(event->revision, b.mod_revision);
  }
  // Either way the cache holds it, and reads at its revision find it.
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  std::optional<KeyValue> found;
  while (!found && std::chrono::steady_clock::now() < deadline) {
    found = run(cacher_->get(pod("b"), GetOptions{.resource_version = "0", .ignore_not_found = true}));
    if (!found) std::this_thread::sleep_for(10ms);
  }
  ASSERT_TRUE(found) << "the change was dropped from the cache";
  EXPECT_EQ(found->mod_revision, b.mod_revision);
  const ListResult listed = run(cacher_->list(kPrefix, ListOptions{.resource_version = std::to_string(b.mod_revision)}));
  EXPECT_EQ(listed.items.size(), 2u);
  if (!event) {
    // The watch ended instead: its client resumes from the last revision it saw, which the relisted cache's
    // history no longer covers, so it is told 410 Gone and relists; it is never silently resumed past `b`.
    auto resumed = watch(kPrefix, from(a.mod_revision));
    auto gone = next(*resumed);
    ASSERT_TRUE(gone && gone->error);
    EXPECT_EQ(gone->error->code(), ErrorCode::Expired);
  }
}

TEST_F(CacherTest, AStreamOutlivesItsCacher) {
  start();
  auto stream = watch(kPrefix, from(0));
  cacher_.reset();
  EXPECT_FALSE(next(*stream, 2s));
}

}  // namespace
}  // namespace kapi::storage::cacher::testing::cacher_watch_test
