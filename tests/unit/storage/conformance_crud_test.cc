// Conformance: create/get/update/delete, preconditions, conflicts, TTL, count, current_revision
// (RunTestCreate…, RunTestGet, RunTestUnconditionalDelete, RunTestConditionalDelete, RunTestGuaranteedUpdate…,
// RunTestCount in store_tests.go).
#include "tests/unit/storage/conformance.h"

#include <asio/co_spawn.hpp>
#include <asio/use_future.hpp>

#include <atomic>
#include <future>
#include <limits>

namespace kapi::storage::conformance::conformance_crud_test {
namespace {

using namespace std::chrono_literals;

PreconditionCheck require_value(std::string expected) {
  return [expected](const KeyValue& current) {
    if (current.value != expected) {
      throw StorageError(ErrorCode::ResourceVersionConflicts, current.key, "Precondition failed");
    }
  };
}

TEST_P(StorageConformance, CreateThenGetReturnsTheObjectAtItsRevision) {
  const std::string k = key("/pods/test-ns/foo");
  EXPECT_EQ(error_of([&] { run(store().get(k, {})); }), ErrorCode::KeyNotFound);

  const KeyValue created = create(k, "v1");
  EXPECT_EQ(created.key, k);
  EXPECT_EQ(created.value, "v1");
  EXPECT_GT(created.mod_revision, 0);
  EXPECT_EQ(created.create_revision, created.mod_revision);
  EXPECT_EQ(created.lease, 0);
  EXPECT_EQ(current_revision(), created.mod_revision);

  const auto got = run(store().get(k, {}));
  ASSERT_TRUE(got);
  EXPECT_EQ(describe(*got), describe(created));
}

TEST_P(StorageConformance, CreateOfAnExistingKeyFailsWithKeyExists) {
  const std::string k = key("/pods/test-ns/foo");
  const KeyValue created = create(k, "v1");
  EXPECT_EQ(error_of([&] { create(k, "v2"); }), ErrorCode::KeyExists);
  EXPECT_EQ(run(store().get(k, {}))->value, "v1");
  EXPECT_EQ(current_revision(), created.mod_revision) << "a failed create must not take a revision";
}

TEST_P(StorageConformance, GetHonoursResourceVersion) {
  const std::string k = key("/pods/test-ns/foo");
  const KeyValue created = create(k, "v1");
  const KeyValue updated = update(k, "v2");
  const KeyValue other = create(key("/pods/test-ns/bar"), "x");

  auto get = [&](std::string rv) {
    GetOptions options;
    options.resource_version = std::move(rv);
    return run(store().get(k, options));
  };
  EXPECT_EQ(get("")->value, "v2");
  EXPECT_EQ(get("0")->value, "v2");
  // A get with a resourceVersion is "not older than": the current object satisfies an older one.
  EXPECT_EQ(get(std::to_string(created.mod_revision))->mod_revision, updated.mod_revision);
  EXPECT_EQ(get(std::to_string(updated.mod_revision))->mod_revision, updated.mod_revision);
  EXPECT_EQ(get(std::to_string(other.mod_revision))->mod_revision, updated.mod_revision);

  auto too_large = storage_error_of([&] { get(std::to_string(std::numeric_limits<std::int64_t>::max())); });
  ASSERT_TRUE(too_large);
  EXPECT_EQ(too_large->code(), ErrorCode::TooLargeResourceVersion);
  EXPECT_EQ(error_of([&] { get("abc"); }), ErrorCode::InvalidArgument);

  EXPECT_EQ(error_of([&] { run(store().get(key("/pods/non-existing"), {})); }), ErrorCode::KeyNotFound);
  GetOptions ignore;
  ignore.ignore_not_found = true;
  EXPECT_FALSE(run(store().get(key("/pods/non-existing"), ignore)));
}

TEST_P(StorageConformance, RemoveReturnsTheLastStateAtTheDeletionRevision) {
  const std::string k = key("/pods/test-ns/foo");
  const KeyValue created = create(k, "v1");
  const KeyValue deleted = remove(k);
  EXPECT_EQ(deleted.key, k);
  EXPECT_EQ(deleted.value, "v1");
  EXPECT_EQ(deleted.create_revision, created.create_revision);
  EXPECT_GT(deleted.mod_revision, created.mod_revision);
  EXPECT_EQ(current_revision(), deleted.mod_revision);
  EXPECT_EQ(error_of([&] { run(store().get(k, {})); }), ErrorCode::KeyNotFound);
  EXPECT_EQ(error_of([&] { remove(k); }), ErrorCode::KeyNotFound);
}

TEST_P(StorageConformance, RemoveChecksPreconditions) {
  const std::string k = key("/pods/test-ns/foo");
  create(k, "uid-A");
  EXPECT_EQ(error_of([&] { run(store().remove(k, require_value("uid-B"))); }), ErrorCode::ResourceVersionConflicts);
  EXPECT_TRUE(run(store().get(k, {})));
  EXPECT_EQ(run(store().remove(k, require_value("uid-A"))).value, "uid-A");
}

TEST_P(StorageConformance, GuaranteedUpdateAppliesTheUpdateFunction) {
  const std::string k = key("/pods/test-ns/foo");
  const KeyValue created = create(k, "1");
  const KeyValue updated = run(store().guaranteed_update(
      k, false, nullptr,
      [](const KeyValue* current) -> std::optional<std::string> { return current->value + "+1"; }, {}));
  EXPECT_EQ(updated.value, "1+1");
  EXPECT_EQ(updated.create_revision, created.create_revision);
  EXPECT_GT(updated.mod_revision, created.mod_revision);
  EXPECT_EQ(run(store().get(k, {}))->value, "1+1");
}

TEST_P(StorageConformance, GuaranteedUpdateOfAMissingKey) {
  const std::string k = key("/pods/test-ns/foo");
  auto set = [](const KeyValue* current) -> std::optional<std::string> {
    EXPECT_EQ(current, nullptr);
    return "new";
  };
  EXPECT_EQ(error_of([&] { run(store().guaranteed_update(k, false, nullptr, set, {})); }), ErrorCode::KeyNotFound);
  const KeyValue created = run(store().guaranteed_update(k, true, nullptr, set, {}));
  EXPECT_EQ(created.value, "new");
  EXPECT_EQ(created.create_revision, created.mod_revision);
}

TEST_P(StorageConformance, GuaranteedUpdateWithoutChangeDoesNotWrite) {
  const std::string k = key("/pods/test-ns/foo");
  const KeyValue created = create(k, "same");
  const KeyValue result = run(store().guaranteed_update(
      k, false, nullptr, [](const KeyValue* current) -> std::optional<std::string> { return current->value; }, {}));
  EXPECT_EQ(result.mod_revision, created.mod_revision);
  const KeyValue unchanged = run(store().guaranteed_update(
      k, false, nullptr, [](const KeyValue*) -> std::optional<std::string> { return std::nullopt; }, {}));
  EXPECT_EQ(unchanged.mod_revision, created.mod_revision);
  EXPECT_EQ(current_revision(), created.mod_revision);
}

TEST_P(StorageConformance, GuaranteedUpdateChecksPreconditions) {
  const std::string k = key("/pods/test-ns/foo");
  create(k, "uid-A");
  auto set = [](const KeyValue*) -> std::optional<std::string> { return "changed"; };
  EXPECT_EQ(error_of([&] { run(store().guaranteed_update(k, false, require_value("uid-B"), set, {})); }),
            ErrorCode::ResourceVersionConflicts);
  EXPECT_EQ(run(store().get(k, {}))->value, "uid-A");
  EXPECT_EQ(run(store().guaranteed_update(k, false, require_value("uid-A"), set, {})).value, "changed");
}

TEST_P(StorageConformance, GuaranteedUpdateRetriesUnderConcurrentWriters) {
  // Every writer increments the counter; optimistic retries must make every increment count exactly once.
  const std::string k = key("/pods/test-ns/counter");
  create(k, "0");
  constexpr int kWriters = 8;
  constexpr int kIncrements = 5;
  std::atomic<int> attempts = 0;
  auto writer = [&]() -> asio::awaitable<void> {
    for (int i = 0; i < kIncrements; ++i) {
      // Named before co_await: g++ 12 mishandles non-trivial temporaries inside a co_await expression.
      auto increment = store().guaranteed_update(
          k, false, nullptr,
          [&](const KeyValue* current) -> std::optional<std::string> {
            ++attempts;
            return std::to_string(std::stoi(current->value) + 1);
          },
          {});
      co_await std::move(increment);
    }
  };
  std::vector<std::future<void>> done;
  for (int w = 0; w < kWriters; ++w) done.push_back(asio::co_spawn(io_.context(), writer(), asio::use_future));
  for (auto& d : done) ASSERT_EQ(d.wait_for(30s), std::future_status::ready);
  for (auto& d : done) d.get();
  EXPECT_EQ(run(store().get(k, {}))->value, std::to_string(kWriters * kIncrements));
  EXPECT_GE(attempts.load(), kWriters * kIncrements);
}

TEST_P(StorageConformance, TtlExpiresTheKeyWithADeletedEvent) {
  // RunTestCreateWithTTL: the key goes away by itself, and watchers see it go.
  const std::string k = key("/pods/test-ns/ephemeral");
  const KeyValue created = create(k, "v", 1s);
  EXPECT_NE(created.lease, 0);
  WatchOptions options;
  options.resource_version = std::to_string(created.mod_revision);
  options.recursive = false;
  auto stream = watch(k, options);
  const WatchEvent deleted = expect_event(*stream, WatchEventType::Deleted, k, "v");
  EXPECT_GT(deleted.revision, created.mod_revision);
  EXPECT_EQ(error_of([&] { run(store().get(k, {})); }), ErrorCode::KeyNotFound);
}

TEST_P(StorageConformance, UpdateWithoutTtlKeepsTheKey) {
  const std::string k = key("/pods/test-ns/kept");
  const std::string sentinel = key("/pods/test-ns/sentinel");
  const KeyValue created = create(k, "v", 1s);
  const KeyValue updated = update(k, "v2");  // a put without a TTL detaches the lease, as in etcd
  EXPECT_EQ(updated.lease, 0);
  const KeyValue ephemeral = create(sentinel, "s", 1s);
  WatchOptions options;
  options.resource_version = std::to_string(ephemeral.mod_revision);
  auto stream = watch(key("/pods/test-ns"), options);
  // The sentinel expires after `k`'s original deadline; `k` must still be there when it does.
  expect_event(*stream, WatchEventType::Deleted, sentinel);
  EXPECT_EQ(run(store().get(k, {}))->value, "v2");
  (void)created;
}

TEST_P(StorageConformance, CountCountsTheKeysUnderAPrefix) {
  create(key("/pods/a/one"), "1");
  create(key("/pods/a/two"), "2");
  create(key("/pods/b/three"), "3");
  create(key("/podsx/four"), "4");
  EXPECT_EQ(run(store().count(key("/pods/"))), 3);
  EXPECT_EQ(run(store().count(key("/pods"))), 3) << "a prefix without '/' still means the directory";
  EXPECT_EQ(run(store().count(key("/pods/a"))), 2);
  EXPECT_EQ(run(store().count(key("/nothing"))), 0);
}

TEST_P(StorageConformance, CurrentRevisionFollowsEveryWrite) {
  const Revision start = current_revision();
  const KeyValue a = create(key("/pods/a/one"), "1");
  EXPECT_GT(a.mod_revision, start);
  EXPECT_EQ(current_revision(), a.mod_revision);
  const KeyValue b = update(key("/pods/a/one"), "2");
  EXPECT_EQ(b.mod_revision, a.mod_revision + 1) << "one write, one revision";
  EXPECT_EQ(current_revision(), b.mod_revision);
  const KeyValue c = remove(key("/pods/a/one"));
  EXPECT_EQ(c.mod_revision, b.mod_revision + 1);
  EXPECT_EQ(current_revision(), c.mod_revision);
}

}  // namespace
}  // namespace kapi::storage::conformance::conformance_crud_test
