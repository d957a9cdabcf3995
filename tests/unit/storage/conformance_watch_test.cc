// Conformance: watch from "", "0" and past revisions, recursive and single-key, predicates, compaction → Expired,
// progress notifications (watcher_tests.go: RunTestWatch, RunTestWatchFromZero, RunTestWatchFromNonZero,
// RunTestWatchError, RunTestWatchContextCancel, RunTestWatcherTimeout, RunTestWatchDeleteEventObjectHaveLatestRV,
// RunTestProgressNotify).
#include "tests/unit/storage/conformance.h"

namespace kapi::storage::conformance::conformance_watch_test {
namespace {

WatchOptions from(std::string resource_version, bool recursive = true) {
  WatchOptions options;
  options.resource_version = std::move(resource_version);
  options.recursive = recursive;
  return options;
}

TEST_P(StorageConformance, WatchFromEmptyOrZeroSendsTheCurrentStateThenChanges) {
  for (const char* rv : {"", "0"}) {
    SCOPED_TRACE(std::string("resourceVersion=\"") + rv + "\"");
    const std::string dir = key(std::string("/pods/ns") + (*rv ? "-zero" : "-empty"));
    const KeyValue a = create(dir + "/a", "a1");
    const KeyValue b = create(dir + "/b", "b1");
    auto stream = watch(dir, from(rv));
    EXPECT_EQ(expect_event(*stream, WatchEventType::Added, dir + "/a", "a1").revision, a.mod_revision);
    EXPECT_EQ(expect_event(*stream, WatchEventType::Added, dir + "/b", "b1").revision, b.mod_revision);

    const KeyValue a2 = update(dir + "/a", "a2");
    const WatchEvent modified = expect_event(*stream, WatchEventType::Modified, dir + "/a", "a2");
    EXPECT_EQ(modified.revision, a2.mod_revision);
    EXPECT_EQ(modified.prev_object.value, "a1");
    EXPECT_EQ(modified.prev_object.mod_revision, a.mod_revision);

    const KeyValue deleted = remove(dir + "/b");
    const WatchEvent gone = expect_event(*stream, WatchEventType::Deleted, dir + "/b", "b1");
    // RunTestWatchDeleteEventObjectHaveLatestRV: the deleted object carries the deletion's revision.
    EXPECT_EQ(gone.object.mod_revision, deleted.mod_revision);
    EXPECT_EQ(gone.prev_object.mod_revision, b.mod_revision);
  }
}

TEST_P(StorageConformance, WatchFromAPastRevisionReplaysThenFollows) {
  const std::string k = key("/pods/ns/foo");
  const KeyValue v1 = create(k, "v1");
  update(k, "v2");
  remove(k);
  auto stream = watch(k, from(std::to_string(v1.mod_revision), false));
  expect_event(*stream, WatchEventType::Modified, k, "v2");
  expect_event(*stream, WatchEventType::Deleted, k, "v2");
  const KeyValue again = create(k, "v3");
  EXPECT_EQ(expect_event(*stream, WatchEventType::Added, k, "v3").revision, again.mod_revision);

  // From the latest revision: nothing old, only what comes next.
  auto latest = watch(k, from(std::to_string(again.mod_revision), false));
  update(k, "v4");
  expect_event(*latest, WatchEventType::Modified, k, "v4");
}

TEST_P(StorageConformance, RecursiveAndSingleKeyWatchesSeeOnlyTheirKeys) {
  const Revision start = current_revision();
  auto single = watch(key("/pods/ns/a"), from(std::to_string(start), false));
  auto directory = watch(key("/pods/ns"), from(std::to_string(start), true));
  create(key("/pods/ns/ab"), "1");      // a sibling sharing the single key's prefix
  create(key("/pods/ns2/x"), "2");      // a sibling directory sharing the directory's prefix
  create(key("/pods/ns/a/child"), "3");  // below the single key
  create(key("/pods/ns/a"), "4");
  expect_event(*single, WatchEventType::Added, key("/pods/ns/a"), "4");
  expect_event(*directory, WatchEventType::Added, key("/pods/ns/ab"), "1");
  expect_event(*directory, WatchEventType::Added, key("/pods/ns/a/child"), "3");
  expect_event(*directory, WatchEventType::Added, key("/pods/ns/a"), "4");
  // Nothing else is pending on the single-key watch: its next event is the next write to its key.
  update(key("/pods/ns/a"), "5");
  expect_event(*single, WatchEventType::Modified, key("/pods/ns/a"), "5");
}

TEST_P(StorageConformance, PredicateTurnsTransitionsIntoAddedAndDeleted) {
  const std::string k = key("/pods/ns/x");
  const std::string sentinel = key("/pods/ns/zz-sentinel");
  WatchOptions options = from(std::to_string(current_revision()));
  options.predicate = [](const ObjectView& kv) { return kv.value.starts_with("match"); };
  auto stream = watch(key("/pods/ns"), options);
  create(k, "no");                   // never matched: nothing
  update(k, "match-1");              // enters the selection
  update(k, "match-2");              // stays
  const KeyValue left = update(k, "no-again");  // leaves it
  update(k, "no-still");             // still out: nothing
  create(sentinel, "match-sentinel");
  expect_event(*stream, WatchEventType::Added, k, "match-1");
  const WatchEvent modified = expect_event(*stream, WatchEventType::Modified, k, "match-2");
  EXPECT_EQ(modified.prev_object.value, "match-1");
  const WatchEvent deleted = expect_event(*stream, WatchEventType::Deleted, k, "match-2");
  EXPECT_EQ(deleted.revision, left.mod_revision);
  EXPECT_EQ(deleted.object.mod_revision, left.mod_revision) << "the old object at the revision it left";
  expect_event(*stream, WatchEventType::Added, sentinel, "match-sentinel");
}

TEST_P(StorageConformance, PredicateAppliesToTheInitialState) {
  create(key("/pods/ns/a"), "match");
  create(key("/pods/ns/b"), "other");
  WatchOptions options = from("");
  options.predicate = [](const ObjectView& kv) { return kv.value == "match"; };
  auto stream = watch(key("/pods/ns"), options);
  expect_event(*stream, WatchEventType::Added, key("/pods/ns/a"), "match");
  create(key("/pods/ns/c"), "match");
  expect_event(*stream, WatchEventType::Added, key("/pods/ns/c"), "match");
}

TEST_P(StorageConformance, WatchFromACompactedRevisionFailsWithExpired) {
  const KeyValue v1 = create(key("/pods/ns/a"), "1");
  update(key("/pods/ns/a"), "2");
  update(key("/pods/ns/a"), "3");
  const KeyValue last = update(key("/pods/ns/a"), "4");
  run(store().compact(last.mod_revision));
  auto stream = watch(key("/pods/ns"), from(std::to_string(v1.mod_revision)));
  std::optional<WatchEvent> event = next(*stream);
  ASSERT_TRUE(event);
  EXPECT_EQ(type_name(event->type), std::string("ERROR"));
  ASSERT_TRUE(event->error);
  EXPECT_EQ(event->error->code(), ErrorCode::Expired);
  EXPECT_FALSE(next(*stream)) << "the watch ends after its error";

  // From the compaction revision itself the history is complete.
  auto ok = watch(key("/pods/ns"), from(std::to_string(last.mod_revision)));
  update(key("/pods/ns/a"), "5");
  expect_event(*ok, WatchEventType::Modified, key("/pods/ns/a"), "5");
}

TEST_P(StorageConformance, ProgressNotificationsReachOnlyWatchesThatAskedForThem) {
  const KeyValue a = create(key("/pods/ns/a"), "1");
  WatchOptions with_progress = from(std::to_string(a.mod_revision));
  with_progress.progress_notify = true;
  auto notified = watch(key("/pods/ns"), with_progress);
  auto plain = watch(key("/pods/ns"), from(std::to_string(a.mod_revision)));
  const KeyValue b = create(key("/other/b"), "2");  // moves the revision without touching the watched keys

  run(store().request_watch_progress());
  if (store().can_request_watch_progress()) {
    std::optional<WatchEvent> bookmark = next(*notified);
    ASSERT_TRUE(bookmark);
    EXPECT_EQ(type_name(bookmark->type), std::string("BOOKMARK"));
    EXPECT_GE(bookmark->revision, b.mod_revision) << "progress covers revisions outside the watched range";
  }
  // A backend that cannot promise to answer after the events before it (etcd before 3.4.31) sends nothing:
  // the next thing either watch delivers is the next change.

  const KeyValue c = create(key("/pods/ns/c"), "3");
  const WatchEvent added = expect_event(*plain, WatchEventType::Added, key("/pods/ns/c"), "3");
  EXPECT_EQ(added.revision, c.mod_revision);
  const WatchEvent also_added = expect_event(*notified, WatchEventType::Added, key("/pods/ns/c"), "3");
  EXPECT_EQ(also_added.revision, c.mod_revision);
}

// Issue 27: a progress notification is a promise that every event up to its revision has been delivered. A
// watch resumed from an old revision is still catching up when the request is answered; no Bookmark may come
// before an event it claims to cover (etcd before 3.4.31 answers ahead, so kapi's etcd3 store asks it nothing).
TEST_P(StorageConformance, NoBookmarkRunsAheadOfTheEventsOfAWatchThatIsCatchingUp) {
  const KeyValue first = create(key("/late/0"), "v");
  constexpr int kBacklog = 200;
  for (int i = 1; i < kBacklog; ++i) create(key("/late/" + std::to_string(i)), "v");
  const Revision newest = current_revision();

  WatchOptions notified = from(std::to_string(first.mod_revision - 1));
  notified.progress_notify = true;
  auto stream = watch(key("/late"), notified);
  run(store().request_watch_progress());
  Revision delivered = 0;
  for (int events = 0; events < kBacklog;) {
    std::optional<WatchEvent> event = next(*stream);
    ASSERT_TRUE(event) << "after " << events << " events";
    if (event->type == WatchEventType::Bookmark) {
      EXPECT_LE(event->revision, delivered) << "a Bookmark at " << event->revision << " came before the event at "
                                            << delivered + 1;
      continue;
    }
    delivered = event->revision;
    ++events;
  }
  EXPECT_EQ(delivered, newest);
}

TEST_P(StorageConformance, StoppedWatchEnds) {
  auto stream = watch(key("/pods/ns"), from(""));
  stream->stop();
  EXPECT_FALSE(next(*stream));
  // Destroying a watch that is still waiting is safe too.
  auto waiting = watch(key("/pods/ns"), from(""));
  waiting.reset();
  create(key("/pods/ns/a"), "1");
}

}  // namespace
}  // namespace kapi::storage::conformance::conformance_watch_test
