// The Cacher's reads: served from the cache (and when), consistent reads waiting for the backend's revision,
// the time bounds, pagination from the cache, and index lists.
#include "storage/continue_token.h"
#include "tests/unit/storage/cacher_fixture.h"

#include <algorithm>
#include <future>

#include <asio/co_spawn.hpp>
#include <asio/use_future.hpp>

namespace kapi::storage::cacher::testing::cacher_read_test {
namespace {

ListOptions at(std::string resource_version) {
  ListOptions options;
  options.resource_version = std::move(resource_version);
  return options;
}

std::vector<std::string> keys(const ListResult& result) {
  std::vector<std::string> out;
  for (const KeyValue& item : result.items) out.push_back(item.key);
  return out;
}

TEST_F(CacherTest, ListsAtResourceVersionZeroAreTheCachesOwnObjects) {
  start();
  auto stream = watch(kPrefix, from(run(cacher_->current_revision())));
  const KeyValue a = write(pod("a"), "1");
  auto event = next(*stream);
  ASSERT_TRUE(event);
  const SharedListResult listed = run(cacher_->list_shared(kPrefix, at("0")));
  ASSERT_EQ(listed.items.size(), 1u);
  EXPECT_EQ(listed.items[0].get(), event->object.get()) << "served from the cache, no bytes copied";
  EXPECT_EQ(listed.revision, a.mod_revision);
}

TEST_F(CacherTest, ReadsFromTheCacheShareEachObjectVersionsEncodings) {
  start();
  auto stream = watch(kPrefix, from(run(cacher_->current_revision())));
  write(pod("a"), "1");
  ASSERT_TRUE(next(*stream));
  int encoded = 0;
  auto encode = [&encoded] { return "encoding " + std::to_string(++encoded); };

  const std::optional<ObjectRef> got = run(cacher_->get_shared(pod("a"), GetOptions{.resource_version = "0"}));
  ASSERT_TRUE(got && *got);
  const auto first = (*got)->encodings.get_or_encode("format", encode);
  const SharedListResult listed = run(cacher_->list_shared(kPrefix, at("0")));
  ASSERT_EQ(listed.items.size(), 1u);
  EXPECT_EQ(listed.items[0].get(), got->get()) << "GET and LIST share the cache's object";
  EXPECT_EQ(listed.items[0]->encodings.get_or_encode("format", encode), first) << "encoded once, shared";
  EXPECT_EQ(encoded, 1);

  // A new version of the object is a new cached object: nothing encoded for the old one is served for it.
  write(pod("a"), "2");
  ASSERT_TRUE(next(*stream));
  const std::optional<ObjectRef> updated = run(cacher_->get_shared(pod("a"), GetOptions{.resource_version = "0"}));
  ASSERT_TRUE(updated && *updated);
  EXPECT_EQ((*updated)->value, "2");
  EXPECT_EQ((*updated)->encodings.find("format"), nullptr);

  // A read the backend serves is wrapped as well, with encodings of its own.
  const std::optional<ObjectRef> live = run(cacher_->get_shared(pod("a"), GetOptions{}));
  ASSERT_TRUE(live && *live);
  EXPECT_NE(live->get(), updated->get());
  EXPECT_EQ((*live)->value, "2");
}

TEST_F(CacherTest, AConsistentListSeesAWriteMadeDirectlyToTheBackend) {
  start();
  for (int i = 0; i < 20; ++i) {
    const KeyValue written = write_to_backend(pod("p" + std::to_string(i)), "v");
    const ListResult listed = run(cacher_->list(kPrefix, at("")));
    ASSERT_EQ(listed.items.size(), static_cast<std::size_t>(i + 1));
    EXPECT_EQ(listed.revision, written.mod_revision);
    auto found = std::find_if(listed.items.begin(), listed.items.end(),
                              [&](const KeyValue& item) { return item.key == written.key; });
    ASSERT_NE(found, listed.items.end());
    EXPECT_EQ(found->mod_revision, written.mod_revision);
  }
  // A write to another resource moves the revision without an event for this cache: the Cacher asks the
  // backend for a progress notification to learn that it is up to date.
  const KeyValue other = write_to_backend("/registry/configmaps/ns/x", "v");
  EXPECT_EQ(run(cacher_->list(kPrefix, at(""))).revision, other.mod_revision);
  ListOptions single = at("");
  single.recursive = false;
  EXPECT_EQ(run(cacher_->list(pod("p3"), single)).items.size(), 1u);
}

TEST_F(CacherTest, AConsistentListThatCannotCatchUpFallsBackToTheBackend) {
  CacherOptions options;
  options.consistent_read_timeout = 300ms;
  start(options);
  write(pod("a"), "1");
  backend_->progress_enabled = false;  // the cache can no longer learn about revisions outside its resource
  const KeyValue other = write_to_backend("/registry/configmaps/ns/x", "v");
  const auto started = std::chrono::steady_clock::now();
  const ListResult listed = run(cacher_->list(kPrefix, at("")));
  EXPECT_GE(std::chrono::steady_clock::now() - started, 300ms);
  EXPECT_EQ(listed.revision, other.mod_revision) << "read from the backend";
  EXPECT_EQ(listed.items.size(), 1u);
}

TEST_F(CacherTest, AConsistentListThatCannotCatchUpTimesOutWithoutFallback) {
  CacherOptions options;
  options.consistent_read_timeout = 300ms;
  options.consistent_read_fallback = false;
  start(options);
  backend_->progress_enabled = false;
  write_to_backend("/registry/configmaps/ns/x", "v");
  try {
    run(cacher_->list(kPrefix, at("")));
    ADD_FAILURE() << "expected a Timeout";
  } catch (const StorageError& error) {
    EXPECT_EQ(error.code(), ErrorCode::Timeout);
  }
}

// With a backend that cannot be asked for progress (etcd before 3.4.31), only an event of this resource could
// bring the cache to a revision another resource's write made: reads at that revision go to the backend at once
// instead of waiting out fresh_wait_timeout, and so do consistent lists.
TEST_F(CacherTest, WithoutProgressRequestsReadsAheadOfTheCacheGoToTheBackend) {
  CacherOptions options;
  options.fresh_wait_timeout = 5s;
  start(options);
  backend_->progress_supported = false;
  const KeyValue a = write(pod("a"), "1");
  const KeyValue other = write_to_backend("/registry/configmaps/ns/x", "v");
  const std::string ahead = std::to_string(other.mod_revision);

  const auto started = std::chrono::steady_clock::now();
  const ListResult listed = run(cacher_->list(kPrefix, at(ahead)));
  EXPECT_EQ(listed.revision, other.mod_revision) << "read from the backend";
  EXPECT_EQ(keys(listed), std::vector<std::string>{a.key});
  const std::optional<KeyValue> got = run(cacher_->get(pod("a"), GetOptions{.resource_version = ahead}));
  ASSERT_TRUE(got);
  EXPECT_EQ(got->value, "1");
  EXPECT_EQ(run(cacher_->list(kPrefix, at(""))).revision, other.mod_revision);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 2s) << "nobody waited for the cache";

  // What the cache has reached it still serves itself.
  const SharedListResult cached = run(cacher_->list_shared(kPrefix, at(std::to_string(a.mod_revision))));
  EXPECT_EQ(cached.revision, a.mod_revision);
}

// kube reads such consistent lists from etcd. The Cacher first asks the backend whether anything under the
// resource changed since the cache's revision: when nothing did, the cache's own objects are the answer, at the
// backend's current revision; any change the cache has not seen yet sends the list to the backend.
TEST_F(CacherTest, WithoutProgressRequestsAConsistentListOfAnUnchangedResourceComesFromTheCache) {
  start();
  backend_->progress_supported = false;
  write(pod("a"), "1");
  const KeyValue b = write(pod("b"), "2");
  ASSERT_TRUE(cache_reaches(b.mod_revision));
  const SharedListResult cached = run(cacher_->list_shared(kPrefix, at("0")));
  const KeyValue other = write_to_backend("/registry/configmaps/ns/x", "v");

  const SharedListResult consistent = run(cacher_->list_shared(kPrefix, at("")));
  EXPECT_EQ(consistent.revision, other.mod_revision);
  ASSERT_EQ(consistent.items.size(), 2u);
  EXPECT_EQ(consistent.items[0].get(), cached.items[0].get()) << "the cache's own objects";
  EXPECT_EQ(consistent.items[1].get(), cached.items[1].get());

  // Changes the cache may not have seen yet: the list never misses them.
  const KeyValue c = write_to_backend(pod("c"), "3");
  const ListResult created = run(cacher_->list(kPrefix, at("")));
  EXPECT_EQ(keys(created), (std::vector<std::string>{pod("a"), pod("b"), pod("c")}));
  EXPECT_GE(created.revision, c.mod_revision);
  run(store_->remove(pod("a"), nullptr));
  const ListResult removed = run(cacher_->list(kPrefix, at("")));
  EXPECT_EQ(keys(removed), (std::vector<std::string>{pod("b"), pod("c")}));
}

// The check reads the whole prefix from the backend (etcd filters by mod revision after reading every value):
// LISTs that come while one runs share the next one, rather than each costing the backend a read of everything.
TEST_F(CacherTest, ConcurrentConsistentListsShareTheBackendsCheck) {
  start();
  backend_->progress_supported = false;
  backend_->unchanged_answer_delay = 100ms;
  write(pod("a"), "1");
  const KeyValue b = write(pod("b"), "2");
  ASSERT_TRUE(cache_reaches(b.mod_revision));
  const SharedListResult cached = run(cacher_->list_shared(kPrefix, at("0")));
  const int before = backend_->unchanged_checks;

  std::vector<std::future<SharedListResult>> lists;
  for (int i = 0; i < 8; ++i) {
    lists.push_back(asio::co_spawn(io_.executor(), cacher_->list_shared(kPrefix, at("")), asio::use_future));
  }
  for (auto& list : lists) {
    const SharedListResult listed = list.get();
    ASSERT_EQ(listed.items.size(), 2u);
    EXPECT_EQ(listed.items[0].get(), cached.items[0].get()) << "served from the cache";
    EXPECT_GE(listed.revision, b.mod_revision);
  }
  // The first LIST's check, then one for the seven that came while it ran (a third only if the test thread
  // stalled for the check's 100 ms between two of them).
  EXPECT_GE(backend_->unchanged_checks - before, 2);
  EXPECT_LE(backend_->unchanged_checks - before, 3);
}

// A check that read the backend before a LIST arrived cannot vouch for it: the LIST waits for the next check,
// which sees a write made in between.
TEST_F(CacherTest, AConsistentListNeverSharesACheckThatStartedBeforeIt) {
  start();
  backend_->progress_supported = false;
  backend_->unchanged_answer_delay = 300ms;
  const KeyValue a = write(pod("a"), "1");
  ASSERT_TRUE(cache_reaches(a.mod_revision));
  const int before = backend_->unchanged_checks;
  auto first = asio::co_spawn(io_.executor(), cacher_->list(kPrefix, at("")), asio::use_future);
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (backend_->unchanged_checks == before) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline);
    std::this_thread::sleep_for(1ms);
  }
  // The first check has read the backend; its answer is held back while this write is made.
  const KeyValue c = write_to_backend(pod("c"), "3");
  auto second = asio::co_spawn(io_.executor(), cacher_->list(kPrefix, at("")), asio::use_future);

  EXPECT_EQ(keys(first.get()), (std::vector<std::string>{pod("a")})) << "its check read the backend before c";
  const ListResult listed = second.get();
  EXPECT_EQ(keys(listed), (std::vector<std::string>{pod("a"), pod("c")}));
  EXPECT_GE(listed.revision, c.mod_revision);
}

// A backend that knows every change since the cache's revision without reading (etcd3: this process's own
// writes) needs no check: a consistent LIST asks its revision, waits for the cache to reach the changes under the
// prefix, and is served from the cache. A change the backend does not know (another server's) sends the LIST to
// the check as before.
TEST_F(CacherTest, WithoutProgressRequestsAConsistentListAfterOwnWritesNeedsNoCheck) {
  start();
  backend_->progress_supported = false;
  backend_->knows_own_writes = true;
  write(pod("a"), "1");
  const KeyValue b = write(pod("b"), "2");
  ASSERT_TRUE(cache_reaches(b.mod_revision));
  const SharedListResult cached = run(cacher_->list_shared(kPrefix, at("0")));
  const int checks = backend_->unchanged_checks;

  const KeyValue elsewhere = write("/registry/configmaps/ns/x", "v");
  const SharedListResult quiet = run(cacher_->list_shared(kPrefix, at("")));
  EXPECT_EQ(quiet.revision, elsewhere.mod_revision) << "the backend's revision";
  ASSERT_EQ(quiet.items.size(), 2u);
  EXPECT_EQ(quiet.items[0].get(), cached.items[0].get()) << "the cache's own objects";

  // Written under the prefix and read at once: the LIST waits for the cache to see it.
  for (int i = 0; i < 20; ++i) {
    const KeyValue made = write(pod("c" + std::to_string(i)), "3");
    const ListResult listed = run(cacher_->list(kPrefix, at("")));
    EXPECT_GE(listed.revision, made.mod_revision);
    ASSERT_EQ(listed.items.size(), 3u + i);
    EXPECT_TRUE(std::ranges::any_of(listed.items, [&](const KeyValue& item) { return item.key == made.key; }));
  }
  const KeyValue removed = run(backend_->remove(pod("a"), nullptr));
  const ListResult after_removal = run(cacher_->list(kPrefix, at("")));
  EXPECT_GE(after_removal.revision, removed.mod_revision);
  EXPECT_EQ(after_removal.items.size(), 21u) << "a is gone";
  EXPECT_EQ(backend_->unchanged_checks, checks) << "no LIST needed the check";

  // Another server's write, even one elsewhere, is a revision the backend cannot vouch for without reading.
  const KeyValue foreign = write_to_backend("/registry/configmaps/ns/y", "4");
  const ListResult checked = run(cacher_->list(kPrefix, at("")));
  EXPECT_GE(checked.revision, foreign.mod_revision);
  EXPECT_EQ(checked.items.size(), 21u);
  EXPECT_EQ(backend_->unchanged_checks, checks + 1) << "the check answered";
}

TEST_F(CacherTest, AResourceVersionTheCacheNeverReachesIsTooLarge) {
  CacherOptions options;
  options.fresh_wait_timeout = 300ms;
  start(options);
  const KeyValue a = write(pod("a"), "1");
  const Revision future = a.mod_revision + 100;
  for (bool as_get : {true, false}) {
    try {
      if (as_get) {
        GetOptions get;
        get.resource_version = std::to_string(future);
        run(cacher_->get(pod("a"), get));
      } else {
        run(cacher_->list(kPrefix, at(std::to_string(future))));
      }
      ADD_FAILURE() << "expected TooLargeResourceVersion";
    } catch (const StorageError& error) {
      EXPECT_EQ(error.code(), ErrorCode::TooLargeResourceVersion);
      EXPECT_EQ(std::string(error.what()), "Too large resource version: " + std::to_string(future) +
                                               ", current: " + std::to_string(a.mod_revision));
      EXPECT_EQ(error.revision(), a.mod_revision);
    }
  }
}

TEST_F(CacherTest, AGetAtARevisionWaitsForTheCacheToReachIt) {
  start();
  const KeyValue written = write_to_backend(pod("a"), "fresh");
  GetOptions options;
  options.resource_version = std::to_string(written.mod_revision);
  const auto got = run(cacher_->get(pod("a"), options));
  ASSERT_TRUE(got);
  EXPECT_EQ(got->value, "fresh");
  options.resource_version = "0";
  EXPECT_EQ(run(cacher_->get(pod("a"), options))->mod_revision, written.mod_revision);
  try {
    run(cacher_->get(pod("missing"), options));
    ADD_FAILURE() << "expected KeyNotFound";
  } catch (const StorageError& error) {
    EXPECT_EQ(error.code(), ErrorCode::KeyNotFound);
  }
  options.ignore_not_found = true;
  EXPECT_FALSE(run(cacher_->get(pod("missing"), options)));
}

TEST_F(CacherTest, ALimitedListFromTheCacheContinuesOnTheBackend) {
  start();
  std::vector<KeyValue> written;
  for (const char* name : {"a", "b", "c", "d", "e"}) written.push_back(write(pod(name), name));
  ListOptions first = at("0");
  first.limit = 2;
  const ListResult page = run(cacher_->list(kPrefix, first));
  ASSERT_EQ(keys(page), (std::vector<std::string>{pod("a"), pod("b")}));
  EXPECT_EQ(page.remaining_item_count, 3);
  const ContinuePosition position = decode_continue(page.continue_token, kPrefix);
  EXPECT_EQ(position.start_key, pod("b") + '\0');
  EXPECT_EQ(position.revision, page.revision);

  write(pod("f"), "after the first page");
  ListOptions rest;
  rest.continue_token = page.continue_token;
  const ListResult remainder = run(cacher_->list(kPrefix, rest));
  EXPECT_EQ(keys(remainder), (std::vector<std::string>{pod("c"), pod("d"), pod("e")}))
      << "the continuation reads at the first page's revision";
  EXPECT_EQ(remainder.revision, page.revision);
}

TEST_F(CacherTest, AListByIndexReadsOnlyTheIndexedObjects) {
  CacherOptions options;
  options.indexers.push_back({"spec.nodeName", [](const ObjectView& kv) {
                                const auto at = kv.value.find("node=");
                                if (at == std::string_view::npos) return std::vector<std::string>{};
                                return std::vector<std::string>{std::string(kv.value.substr(at + 5))};
                              }});
  start(options);
  write(pod("a"), "node=n1");
  write(pod("b"), "node=n2");
  write(pod("c"), "node=n1");
  write(pod("d"), "unscheduled");
  write("/registry/pods/other-ns/e", "node=n1");

  auto by_node = [&](std::string prefix, std::string node) {
    // No predicate: what comes back is exactly what the index held.
    return keys(run(cacher_->list_by_index(std::move(prefix), {"spec.nodeName", std::move(node)}, at("0"))));
  };
  EXPECT_EQ(by_node(kPrefix, "n1"),
            (std::vector<std::string>{pod("a"), pod("c"), "/registry/pods/other-ns/e"}));
  EXPECT_EQ(by_node(std::string(kPrefix) + "ns", "n1"), (std::vector<std::string>{pod("a"), pod("c")}));
  EXPECT_EQ(by_node(kPrefix, "n2"), (std::vector<std::string>{pod("b")}));

  write(pod("a"), "node=n2");
  run(cacher_->remove(pod("c"), nullptr));
  const KeyValue last = write(pod("d"), "node=n1");
  ListOptions fresh = at(std::to_string(last.mod_revision));
  EXPECT_EQ(keys(run(cacher_->list_by_index(kPrefix, {"spec.nodeName", "n1"}, fresh))),
            (std::vector<std::string>{pod("d"), "/registry/pods/other-ns/e"}));
  EXPECT_EQ(by_node(kPrefix, "n2"), (std::vector<std::string>{pod("a"), pod("b")}));
  EXPECT_EQ(by_node(kPrefix, "n3"), std::vector<std::string>{});
  EXPECT_EQ(keys(run(cacher_->list_by_index(kPrefix, {"no-such-index", "n1"}, at("0")))).size(), 4u)
      << "an unknown index scans the prefix";
}

TEST_F(CacherTest, KeysOutsideTheResourceGoToTheBackend) {
  start();
  write_to_backend("/registry/configmaps/ns/x", "v");
  EXPECT_EQ(run(cacher_->list("/registry/configmaps/", at("0"))).items.size(), 1u);
  std::unique_ptr<WatchStream> stream = run(cacher_->watch("/registry/configmaps/", {}));
  EXPECT_EQ(dynamic_cast<CacheWatchStream*>(stream.get()), nullptr);
}

TEST_F(CacherTest, KeysThatClimbOutOfThePrefixAreRejected) {
  start();
  try {
    run(cacher_->list(std::string(kPrefix) + "../secrets/", at("0")));
    ADD_FAILURE() << "expected InvalidArgument";
  } catch (const StorageError& error) {
    EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
  }
}

}  // namespace
}  // namespace kapi::storage::cacher::testing::cacher_read_test
