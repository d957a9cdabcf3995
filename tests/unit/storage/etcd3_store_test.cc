// The etcd3 store against a real etcd: the parts the shared conformance suite does not see — the Txn shapes and
// their retry loops under real concurrency, lease reuse, paging over etcd's Range, compaction by the compactor,
// endpoint failover and TLS.
#include "storage/etcd3/store.h"
#include "tests/support/etcd_process.h"
#include "tests/support/io_thread.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <future>
#include <thread>

namespace kapi::storage::etcd3::etcd3_store_test {
namespace {

using namespace std::chrono_literals;
using test_support::EtcdProcess;
using test_support::IoThread;

GetOptions allow_missing() {
  GetOptions options;
  options.ignore_not_found = true;
  return options;
}

GetOptions not_older_than(std::string resource_version) {
  GetOptions options;
  options.resource_version = std::move(resource_version);
  return options;
}

class Etcd3StoreTest : public ::testing::Test {
 protected:
  StoreOptions options_for(std::vector<std::string> endpoints) {
    StoreOptions options;
    options.client.endpoints = std::move(endpoints);
    options.client.request_timeout = 5s;
    options.compaction_interval = 0s;
    return options;
  }
  void SetUp() override { store_ = std::make_unique<Store>(io_.executor(), options_for({etcd_.endpoint()})); }
  void TearDown() override { store_.reset(); }

  template <typename T>
  T run(asio::awaitable<T> task) {
    return io_.run(std::move(task));
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

  EtcdProcess etcd_;
  IoThread io_;
  std::unique_ptr<Store> store_;
};

TEST_F(Etcd3StoreTest, CreateGetRemoveFollowEtcdRevisions) {
  auto created = run(store_->create("/registry/pods/default/a", "v1", {}));
  EXPECT_EQ(created.create_revision, created.mod_revision);
  EXPECT_EQ(run(store_->current_revision()), created.mod_revision);

  auto got = run(store_->get("/registry/pods/default/a", {}));
  ASSERT_TRUE(got);
  EXPECT_EQ(got->value, "v1");
  EXPECT_EQ(got->mod_revision, created.mod_revision);

  EXPECT_EQ(code_of([&] { run(store_->create("/registry/pods/default/a", "v2", {})); }), ErrorCode::KeyExists);

  auto removed = run(store_->remove("/registry/pods/default/a", {}));
  EXPECT_EQ(removed.value, "v1");
  EXPECT_EQ(removed.create_revision, created.create_revision);
  EXPECT_EQ(removed.mod_revision, created.mod_revision + 1);  // the deletion's revision
  EXPECT_FALSE(run(store_->get("/registry/pods/default/a", allow_missing())));
  EXPECT_EQ(code_of([&] { run(store_->remove("/registry/pods/default/a", {})); }), ErrorCode::KeyNotFound);
}

TEST_F(Etcd3StoreTest, RejectsRelativeKeysAndTooNewRevisions) {
  EXPECT_EQ(code_of([&] { run(store_->get("/registry/../x", {})); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(code_of([&] { run(store_->get("/registry/x", not_older_than("abc"))); }),
            ErrorCode::InvalidArgument);
  const Revision current = run(store_->current_revision());
  try {
    run(store_->get("/registry/x", not_older_than(std::to_string(current + 10))));
    FAIL();
  } catch (const StorageError& error) {
    EXPECT_EQ(error.code(), ErrorCode::TooLargeResourceVersion);
    EXPECT_EQ(error.revision(), current);
  }
}

TEST_F(Etcd3StoreTest, ConcurrentGuaranteedUpdatesAllApply) {
  run(store_->create("/registry/counters/c", "0", {}));
  constexpr int kWriters = 8;
  constexpr int kIncrements = 5;
  std::atomic<int> attempts{0};
  auto writer = [&]() -> asio::awaitable<void> {
    // Built outside the co_await expression: g++ 12 destroys a lambda temporary inside one twice.
    TryUpdate increment = [&](const KeyValue* current) -> std::optional<std::string> {
      ++attempts;
      return std::to_string(std::stoi(current->value) + 1);
    };
    for (int i = 0; i < kIncrements; ++i) {
      co_await store_->guaranteed_update("/registry/counters/c", false, PreconditionCheck(), increment,
                                         WriteOptions());
    }
  };
  std::vector<std::future<void>> writers;
  for (int w = 0; w < kWriters; ++w) writers.push_back(asio::co_spawn(io_.context(), writer(), asio::use_future));
  for (auto& done : writers) {
    ASSERT_EQ(done.wait_for(20s), std::future_status::ready);
    done.get();
  }
  EXPECT_EQ(run(store_->get("/registry/counters/c", {}))->value, std::to_string(kWriters * kIncrements));
  EXPECT_GE(attempts.load(), kWriters * kIncrements);
}

TEST_F(Etcd3StoreTest, UpdateSkipsIdenticalBytesAndChecksPreconditions) {
  auto created = run(store_->create("/registry/cm/x", "same", {}));
  auto unchanged = run(store_->guaranteed_update(
      "/registry/cm/x", false, {}, [](const KeyValue*) { return std::optional<std::string>("same"); }, {}));
  EXPECT_EQ(unchanged.mod_revision, created.mod_revision);
  EXPECT_EQ(run(store_->current_revision()), created.mod_revision);

  auto refuse = [](const KeyValue& current) {
    throw StorageError(ErrorCode::ResourceVersionConflicts, current.key, "Precondition failed");
  };
  EXPECT_EQ(code_of([&] {
              run(store_->guaranteed_update(
                  "/registry/cm/x", false, refuse, [](const KeyValue*) { return std::optional<std::string>("n"); },
                  {}));
            }),
            ErrorCode::ResourceVersionConflicts);
  EXPECT_EQ(code_of([&] { run(store_->remove("/registry/cm/x", refuse)); }), ErrorCode::ResourceVersionConflicts);

  // Absent and allowed: the update creates, guarded by "still absent".
  auto made = run(store_->guaranteed_update(
      "/registry/cm/y", true, {}, [](const KeyValue* current) {
        EXPECT_EQ(current, nullptr);
        return std::optional<std::string>("new");
      },
      {}));
  EXPECT_EQ(made.create_revision, made.mod_revision);
}

// unchanged_since proves a quiet prefix from this store's own writes elsewhere; a write of another server (its own
// Store on the same etcd) is a revision the ledger lacks, so the check reads etcd, and sees a change under the
// prefix even when it left the count as it was.
TEST_F(Etcd3StoreTest, UnchangedSinceSeesAnotherServersWritesUnderThePrefix) {
  Store other(io_.executor(), options_for({etcd_.endpoint()}));
  const std::string prefix = "/registry/configmaps/shop/";
  run(store_->create(prefix + "a", "a", {}));
  const Revision seeded = run(store_->create(prefix + "b", "b", {})).mod_revision;
  auto unchanged = [&](Revision since) { return run(store_->unchanged_since(prefix, since, 2)); };

  const Revision lease = run(store_->create("/registry/leases/kube-system/x", "x", {})).mod_revision;
  EXPECT_EQ(unchanged(seeded), lease) << "our own write elsewhere";
  const Revision foreign = run(other.create("/registry/leases/kube-system/y", "y", {})).mod_revision;
  EXPECT_EQ(unchanged(seeded), foreign) << "another server's write elsewhere: proven by reading etcd";

  auto replace = [](const KeyValue*) { return std::optional<std::string>("a2"); };
  const Revision changed = run(other.guaranteed_update(prefix + "a", false, {}, replace, {})).mod_revision;
  EXPECT_FALSE(unchanged(seeded).has_value()) << "another server changed an object: same count, newer revision";
  EXPECT_EQ(unchanged(changed), changed);
  EXPECT_FALSE(run(store_->unchanged_since(prefix, changed, 3)).has_value()) << "the count is checked either way";
}

// known_changes_since answers from the ledger alone: etcd is only asked its revision. Every revision since must be
// this store's own write; the newest under the prefix is what a cache must reach.
TEST_F(Etcd3StoreTest, KnownChangesAreThisStoresOwnWrites) {
  Store other(io_.executor(), options_for({etcd_.endpoint()}));
  const std::string prefix = "/registry/configmaps/shop/";
  const Revision seeded = run(store_->create(prefix + "a", "a", {})).mod_revision;
  auto known = [&](Revision since) { return run(store_->known_changes_since(prefix, since)); };

  const Revision lease = run(store_->create("/registry/leases/kube-system/x", "x", {})).mod_revision;
  ASSERT_TRUE(known(seeded).has_value());
  EXPECT_EQ(known(seeded)->current, lease);
  EXPECT_EQ(known(seeded)->newest_under_prefix, seeded) << "nothing under the prefix since";
  const Revision made = run(store_->create(prefix + "b", "b", {})).mod_revision;
  run(store_->create("/registry/leases/kube-system/y", "y", {}));
  EXPECT_EQ(known(seeded)->newest_under_prefix, made);

  run(other.create("/registry/leases/kube-system/z", "z", {}));
  EXPECT_FALSE(known(seeded).has_value()) << "another server's write, even elsewhere";
  EXPECT_FALSE(known(made).has_value());
}

TEST_F(Etcd3StoreTest, TtlWritesShareALeaseAndExpire) {
  // A 1 h TTL has a 60 s reuse window (5%, capped): writes within it share one lease.
  auto first = run(store_->create("/registry/events/default/e1", "e", WriteOptions{.ttl = 1h}));
  auto second = run(store_->create("/registry/events/default/e2", "e", WriteOptions{.ttl = 1h}));
  EXPECT_NE(first.lease, 0);
  EXPECT_EQ(first.lease, second.lease);
  auto plain = run(store_->create("/registry/events/default/e3", "e", {}));
  EXPECT_EQ(plain.lease, 0);
  auto brief = run(store_->create("/registry/events/default/e4", "e", WriteOptions{.ttl = 2s}));
  EXPECT_NE(brief.lease, first.lease);  // the shared lease would outlive 2 s by far

  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (run(store_->count("/registry/events/default")) > 3 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(100ms);
  }
  EXPECT_EQ(run(store_->count("/registry/events/default")), 3);
  EXPECT_FALSE(run(store_->get("/registry/events/default/e4", allow_missing())));
}

TEST_F(Etcd3StoreTest, PagedFilteredListFillsTheLimitAtOneRevision) {
  for (int i = 0; i < 30; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "/registry/pods/ns/p%02d", i);
    run(store_->create(name, i % 3 == 0 ? "keep" : "drop", {}));
  }
  run(store_->create("/registry/podsx/outside", "keep", {}));  // a sibling prefix stays out of the list
  const Revision listed_at = run(store_->current_revision());

  ListOptions options;
  options.limit = 4;
  options.predicate = [](const ObjectView& kv) { return kv.value == "keep"; };
  std::vector<std::string> keys;
  for (int page = 0;; ++page) {
    auto result = run(store_->list("/registry/pods", options));
    EXPECT_EQ(result.revision, listed_at);
    EXPECT_FALSE(result.remaining_item_count);  // unknown with a predicate
    for (auto& item : result.items) keys.push_back(item.key);
    if (result.continue_token.empty()) break;
    ASSERT_LT(page, 5);
    options.continue_token = result.continue_token;
    run(store_->create("/registry/pods/ns/p99-" + std::to_string(page), "keep", {}));  // not in this list
  }
  ASSERT_EQ(keys.size(), 10u);
  EXPECT_EQ(keys.front(), "/registry/pods/ns/p00");
  EXPECT_EQ(keys.back(), "/registry/pods/ns/p27");

  ListOptions unfiltered;
  unfiltered.limit = 25;
  auto first_page = run(store_->list("/registry/pods/", unfiltered));
  EXPECT_EQ(first_page.items.size(), 25u);
  ASSERT_TRUE(first_page.remaining_item_count);
  EXPECT_EQ(*first_page.remaining_item_count, run(store_->count("/registry/pods")) - 25);
}

TEST_F(Etcd3StoreTest, CompactedContinueGivesAnInconsistentContinueToken) {
  for (int i = 0; i < 4; ++i) run(store_->create("/registry/cm/ns/c" + std::to_string(i), "v", {}));
  ListOptions options;
  options.limit = 2;
  auto first = run(store_->list("/registry/cm/ns/", options));
  ASSERT_FALSE(first.continue_token.empty());
  run(store_->create("/registry/cm/ns/c9", "v", {}));
  run(store_->compact(run(store_->current_revision())));

  options.continue_token = first.continue_token;
  try {
    run(store_->list("/registry/cm/ns/", options));
    FAIL();
  } catch (const StorageError& error) {
    EXPECT_EQ(error.code(), ErrorCode::Expired);
    ASSERT_FALSE(error.continue_token().empty());
    options.continue_token = error.continue_token();
  }
  options.limit = 10;
  auto rest = run(store_->list("/registry/cm/ns/", options));
  ASSERT_EQ(rest.items.size(), 3u);  // c2, c3 and the later c9: continued at the latest revision
  EXPECT_EQ(rest.items.back().key, "/registry/cm/ns/c9");

  ListOptions exact;
  exact.resource_version = std::to_string(first.revision);
  exact.resource_version_match = ResourceVersionMatch::Exact;
  EXPECT_EQ(code_of([&] { run(store_->list("/registry/cm/ns/", exact)); }), ErrorCode::Expired);
  run(store_->compact(first.revision));  // already compacted further: nothing to do
}

TEST_F(Etcd3StoreTest, ExactListReadsHistory) {
  auto before = run(store_->create("/registry/cm/h/a", "1", {}));
  run(store_->guaranteed_update(
      "/registry/cm/h/a", false, {}, [](const KeyValue*) { return std::optional<std::string>("2"); }, {}));
  run(store_->create("/registry/cm/h/b", "1", {}));
  ListOptions exact;
  exact.resource_version = std::to_string(before.mod_revision);
  exact.resource_version_match = ResourceVersionMatch::Exact;
  auto old = run(store_->list("/registry/cm/h", exact));
  EXPECT_EQ(old.revision, before.mod_revision);
  ASSERT_EQ(old.items.size(), 1u);
  EXPECT_EQ(old.items[0].value, "1");
  EXPECT_EQ(run(store_->list("/registry/cm/h", {})).items.size(), 2u);
}

TEST_F(Etcd3StoreTest, CompactorCompactsOneIntervalBehind) {
  auto created = run(store_->create("/registry/cm/k/a", "1", {}));
  run(store_->guaranteed_update(
      "/registry/cm/k/a", false, {}, [](const KeyValue*) { return std::optional<std::string>("2"); }, {}));
  CompactionClock clock = run(compact_tick(store_->client(), {}));  // first tick: no compaction
  EXPECT_EQ(clock.time, 1);
  ListOptions exact;
  exact.resource_version = std::to_string(created.mod_revision);
  exact.resource_version_match = ResourceVersionMatch::Exact;
  EXPECT_NO_THROW(run(store_->list("/registry/cm/k", exact)));

  // A second compactor on the same etcd loses the race and adopts the winner's clock.
  CompactionClock other = run(compact_tick(store_->client(), {}));
  EXPECT_EQ(other.time, 1);

  clock = run(compact_tick(store_->client(), clock));  // compacts up to what the first tick saw
  EXPECT_EQ(clock.time, 2);
  EXPECT_EQ(code_of([&] { run(store_->list("/registry/cm/k", exact)); }), ErrorCode::Expired);
}

TEST_F(Etcd3StoreTest, BackgroundCompactorRuns) {
  auto options = options_for({etcd_.endpoint()});
  options.compaction_interval = 300ms;
  auto store = std::make_unique<Store>(io_.executor(), options);
  auto created = run(store->create("/registry/cm/bg/a", "1", {}));
  run(store->remove("/registry/cm/bg/a", {}));
  ListOptions exact;
  exact.resource_version = std::to_string(created.mod_revision);
  exact.resource_version_match = ResourceVersionMatch::Exact;
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  bool compacted = false;
  while (!compacted && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(100ms);
    try {
      run(store->list("/registry/cm/bg", exact));
    } catch (const StorageError& error) {
      compacted = error.code() == ErrorCode::Expired;
    }
  }
  EXPECT_TRUE(compacted);
  store.reset();
}

TEST_F(Etcd3StoreTest, FailsOverToAnEndpointThatAnswers) {
  EtcdProcess dead;
  const std::string dead_endpoint = dead.endpoint();
  dead.kill();
  auto store = std::make_unique<Store>(io_.executor(), options_for({dead_endpoint, etcd_.endpoint()}));
  auto created = run(store->create("/registry/cm/f/a", "1", {}));
  EXPECT_EQ(run(store->get("/registry/cm/f/a", {}))->mod_revision, created.mod_revision);
  auto watch = run(store->watch("/registry/cm/f/", WatchOptions{.resource_version = "0"}));
  auto event = run(watch->next());
  ASSERT_TRUE(event);
  EXPECT_EQ(event->type, WatchEventType::Added);
  watch.reset();
  store.reset();
}

TEST_F(Etcd3StoreTest, UnreachableEtcdIsReportedWithinTheRequestTimeout) {
  EtcdProcess dead;
  auto options = options_for({dead.endpoint()});
  dead.kill();
  options.client.request_timeout = 1s;
  auto store = std::make_unique<Store>(io_.executor(), options);
  const auto started = std::chrono::steady_clock::now();
  EXPECT_EQ(code_of([&] { run(store->get("/registry/x", {})); }), ErrorCode::Unreachable);
  EXPECT_EQ(code_of([&] { run(store->create("/registry/x", "v", {})); }), ErrorCode::Unreachable);
  EXPECT_EQ(code_of([&] { run(store->watch("/registry/", {})); }), ErrorCode::Unreachable);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 6s);
  store.reset();
}

}  // namespace
}  // namespace kapi::storage::etcd3::etcd3_store_test
