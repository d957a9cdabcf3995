// The watch cache's data structures on their own: the adaptive event ring and the keyed store with indexes.
#include "storage/cacher/event_history.h"
#include "storage/cacher/watch_cache.h"

#include <gtest/gtest.h>

namespace kapi::storage::cacher::cacher_history_test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

EventRef event_at(Revision revision, Clock::time_point recorded) {
  auto event = std::make_shared<CachedEvent>();
  event->recorded = recorded;
  event->object = share(KeyValue{"/k", "v", revision, revision, 0});
  return event;
}

TEST(CacherEventHistory, GrowsWhileEventsAreEvictedWithinTheWindowAndShrinksWhenStale) {
  EventHistory history({4, 32, 10s});
  history.reset(100);
  const Clock::time_point t0 = Clock::now();
  Revision revision = 100;
  // A burst: the ring fills while its oldest event is still fresh, so it doubles instead of evicting.
  for (int i = 0; i < 32; ++i) history.append(event_at(++revision, t0 + i * 1ms));
  EXPECT_EQ(history.capacity(), 32u);
  EXPECT_EQ(history.size(), 32u);
  EXPECT_EQ(history.floor(), 100) << "nothing evicted yet";
  // At the upper bound it evicts.
  history.append(event_at(++revision, t0 + 40ms));
  EXPECT_EQ(history.capacity(), 32u);
  EXPECT_EQ(history.floor(), 101);

  // Quiet: the newest quarter is older than the window, so each event at a full ring halves it.
  Clock::time_point later = t0 + 1min;
  history.append(event_at(++revision, later));
  EXPECT_EQ(history.capacity(), 16u);
  EXPECT_EQ(history.size(), 16u);
  EXPECT_EQ(history.floor(), revision - 16);
  for (int i = 0; i < 3; ++i) {
    later += 1min;
    history.append(event_at(++revision, later));
  }
  EXPECT_EQ(history.capacity(), 4u) << "never below the lower bound";
  EXPECT_EQ(history.size(), 4u);
  EXPECT_EQ(history.first_after(history.floor()), 0u);
  EXPECT_EQ(history.at(0)->revision(), history.floor() + 1);
}

TEST(CacherEventHistory, CompactionRaisesTheFloor) {
  EventHistory history({8, 8, 10s});
  history.reset(10);
  const Clock::time_point now = Clock::now();
  for (Revision r = 11; r <= 15; ++r) history.append(event_at(r, now));
  history.compact(13);
  EXPECT_EQ(history.floor(), 13);
  EXPECT_EQ(history.size(), 2u);
  EXPECT_EQ(history.first_after(13), 0u);
  EXPECT_EQ(history.first_after(14), 1u);
  EXPECT_EQ(history.first_after(15), 2u);
  history.compact(20);  // beyond what it has seen: nothing older than 20 can be replayed
  EXPECT_EQ(history.floor(), 20);
  EXPECT_EQ(history.last_revision(), 20);
}

WatchEvent change(WatchEventType type, std::string key, std::string value, Revision revision) {
  WatchEvent event;
  event.type = type;
  event.object = KeyValue{std::move(key), std::move(value), revision, revision, 0};
  event.revision = revision;
  return event;
}

TEST(CacherWatchCache, TracksPreviousStatesAndIgnoresReplays) {
  WatchCache cache({}, {});
  cache.replace({KeyValue{"/r/a", "a1", 5, 5, 0}}, 7);
  EXPECT_EQ(cache.revision(), 7);
  EXPECT_EQ(cache.history().floor(), 7);

  EXPECT_FALSE(cache.apply(change(WatchEventType::Modified, "/r/a", "stale", 6), Clock::now()));
  EventRef modified = cache.apply(change(WatchEventType::Added, "/r/a", "a2", 8), Clock::now());
  ASSERT_TRUE(modified);
  EXPECT_EQ(modified->type, WatchEventType::Modified) << "the cache knew the key";
  EXPECT_EQ(modified->prev->value, "a1");
  EventRef deleted = cache.apply(change(WatchEventType::Deleted, "/r/a", "", 9), Clock::now());
  ASSERT_TRUE(deleted);
  EXPECT_EQ(deleted->object->value, "a2") << "the last state, from the cache";
  EXPECT_EQ(deleted->object->mod_revision, 9);
  EXPECT_FALSE(cache.get("/r/a"));
  EXPECT_FALSE(cache.apply(change(WatchEventType::Deleted, "/r/unknown", "", 10), Clock::now()));
  EXPECT_EQ(cache.revision(), 10);
  EXPECT_EQ(cache.history().size(), 2u);
}

TEST(CacherWatchCache, ListsAPrefixInKeyOrderAndKeepsIndexesCurrent) {
  Indexer by_first_letter{"first", [](const ObjectView& kv) {
                            return std::vector<std::string>{std::string(kv.value.substr(0, 1))};
                          }};
  WatchCache cache({by_first_letter}, {});
  cache.replace({KeyValue{"/r/b", "x1", 1, 1, 0}, KeyValue{"/r/a", "y1", 2, 2, 0}, KeyValue{"/rx/c", "x", 3, 3, 0}},
                3);
  auto keys = [](const std::vector<ObjectRef>& items) {
    std::vector<std::string> out;
    for (const auto& item : items) out.emplace_back(item->key);
    return out;
  };
  EXPECT_EQ(keys(cache.list("/r/")), (std::vector<std::string>{"/r/a", "/r/b"}));
  EXPECT_EQ(keys(*cache.list_indexed("first", "x", "/r/")), (std::vector<std::string>{"/r/b"}));
  cache.apply(change(WatchEventType::Modified, "/r/a", "x2", 4), Clock::now());
  EXPECT_EQ(keys(*cache.list_indexed("first", "x", "/r/")), (std::vector<std::string>{"/r/a", "/r/b"}));
  EXPECT_TRUE(cache.list_indexed("first", "y", "/r/")->empty());
  cache.apply(change(WatchEventType::Deleted, "/r/b", "", 5), Clock::now());
  EXPECT_EQ(keys(*cache.list_indexed("first", "x", "/")), (std::vector<std::string>{"/r/a", "/rx/c"}));
  EXPECT_FALSE(cache.list_indexed("missing", "x", "/"));
}

}  // namespace
}  // namespace kapi::storage::cacher::cacher_history_test
