// Conformance: list with every resourceVersion / resourceVersionMatch combination, predicates, limit and continue
// (RunTestList, RunTestListContinuation, RunTestListInconsistentContinuation, RunTestGetListNonRecursive in
// store_tests.go), on the same multi-level data set.
#include "storage/continue_token.h"
#include "tests/unit/storage/conformance.h"

#include <limits>

namespace kapi::storage::conformance::conformance_list_test {
namespace {

// The last path segment of a key, like a pod's name.
std::string name_of(const ObjectView& kv) { return std::string(kv.key.substr(kv.key.rfind('/') + 1)); }
Predicate name_is(std::string name) {
  return [name](const ObjectView& kv) { return name_of(kv) == name; };
}
Predicate name_is_not(std::string name) {
  return [name](const ObjectView& kv) { return name_of(kv) != name; };
}
Predicate on_node(std::string node) {
  return [node](const ObjectView& kv) { return kv.value.find(";node=" + node) != std::string_view::npos; };
}

class StorageConformanceList : public StorageConformance {
 protected:
  // seedMultiLevelData: /pods/{first/bar, second/bar, second/foo, third/barfoo, third/foo, second/baz}, then
  // first/bar updated (node=fakeNode) and second/baz deleted.
  void seed() {
    initial_rv_ = list(key("/pods/"), {}).revision;
    for (const char* name : {"first/bar", "second/bar", "second/foo", "third/barfoo", "third/foo", "second/baz"}) {
      created_.push_back(create(key("/pods/") + name, name));
    }
    updated_ = update(key("/pods/first/bar"), "first/bar;node=fakeNode");
    remove(key("/pods/second/baz"));
    continue_rv_ = list(key("/pods/second"), {}).revision;
  }

  ListOptions options(std::string rv = "", ResourceVersionMatch match = ResourceVersionMatch::Unset) {
    ListOptions o;
    o.resource_version = std::move(rv);
    o.resource_version_match = match;
    return o;
  }

  void expect_items(const ListResult& result, const std::vector<KeyValue>& expected) {
    EXPECT_EQ(describe(result.items), describe(expected));
  }

  std::string token(const std::string& list_prefix, const std::string& start, Revision rv) {
    return encode_continue(key(list_prefix) + start, key(list_prefix), rv);
  }

  Revision initial_rv_ = 0;
  Revision continue_rv_ = 0;
  std::vector<KeyValue> created_;
  KeyValue updated_;
};

TEST_P(StorageConformanceList, ResourceVersionAndMatchCombinations) {
  seed();
  // Compact at the first write, and move the revision on, to tell consistent reads from stale ones.
  run(store().compact(created_[0].mod_revision));
  const Revision current_rv = create(key("/other/bump"), "x").mod_revision;
  const auto& c = created_;
  using M = ResourceVersionMatch;

  EXPECT_EQ(error_of([&] { list(key("/pods/"), options("abc")); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(error_of([&] { list(key("/pods/"), options(std::to_string(std::numeric_limits<std::int64_t>::max()))); }),
            ErrorCode::TooLargeResourceVersion);

  auto r = list(key("/pods/first/"), {});
  expect_items(r, {updated_});
  EXPECT_EQ(r.revision, current_rv) << "a list without resourceVersion is a consistent read";

  expect_items(list(key("/pods/first/"), options("0")), {updated_});
  expect_items(list(key("/pods/first/"), options("0", M::NotOlderThan)), {updated_});
  expect_items(list(key("/pods/first/"), options(std::to_string(initial_rv_), M::NotOlderThan)), {updated_});
  expect_items(list(key("/pods/first/"), options(std::to_string(continue_rv_))), {updated_});
  expect_items(list(key("/pods/first/"), options(std::to_string(continue_rv_), M::NotOlderThan)), {updated_});

  r = list(key("/pods/first/"), options(std::to_string(c[0].mod_revision), M::Exact));
  expect_items(r, {c[0]});
  EXPECT_EQ(r.revision, c[0].mod_revision) << "an exact list echoes the revision it read at";
  r = list(key("/pods/second/"), options(std::to_string(c[0].mod_revision), M::Exact));
  expect_items(r, {});
  EXPECT_EQ(r.revision, c[0].mod_revision);
  expect_items(list(key("/pods/second/"), options(std::to_string(c[1].mod_revision), M::Exact)), {c[1]});
  expect_items(list(key("/pods/first/"), options(std::to_string(continue_rv_), M::Exact)), {updated_});
  auto expired = storage_error_of([&] { list(key("/pods/first/"), options(std::to_string(initial_rv_), M::Exact)); });
  ASSERT_TRUE(expired);
  EXPECT_EQ(expired->code(), ErrorCode::Expired) << "exact reads below the compaction revision are gone";

  // Exact at each write of the seed, then after it, then in the future.
  const std::vector<std::vector<KeyValue>> at_write = {
      {c[0]}, {c[0], c[1]}, {c[0], c[1], c[2]}, {c[0], c[1], c[2], c[3]}, {c[0], c[1], c[2], c[3], c[4]},
      {c[0], c[1], c[5], c[2], c[3], c[4]}, {updated_, c[1], c[5], c[2], c[3], c[4]}};
  for (std::size_t i = 0; i < at_write.size(); ++i) {
    SCOPED_TRACE("exact at write " + std::to_string(i));
    const Revision rv = i < c.size() ? c[i].mod_revision : updated_.mod_revision;
    expect_items(list(key("/pods/"), options(std::to_string(rv), M::Exact)), at_write[i]);
  }
  const std::vector<KeyValue> now = {updated_, c[1], c[2], c[3], c[4]};
  expect_items(list(key("/pods/"), options(std::to_string(continue_rv_), M::Exact)), now);
  expect_items(list(key("/pods/"), options(std::to_string(current_rv), M::Exact)), now);
  EXPECT_EQ(error_of([&] { list(key("/pods/"), options(std::to_string(current_rv + 1), M::Exact)); }),
            ErrorCode::TooLargeResourceVersion);

  // Consistent list of an empty prefix still reports the current revision; RV=0 anything not older.
  EXPECT_EQ(list(key("/pods/empty"), {}).revision, current_rv);
  EXPECT_GE(list(key("/pods/empty"), options("0")).revision, initial_rv_);
  expect_items(list(key("/pods/non-existing/"), {}), {});
  auto named = options();
  named.predicate = name_is_not("bar");
  expect_items(list(key("/pods/first/"), named), {});
  expect_items(list(key("/pods/second/"), {}), {c[1], c[2]});
  expect_items(list(key("/pods/"), {}), now);
}

TEST_P(StorageConformanceList, LimitAndContinue) {
  seed();
  run(store().compact(created_[0].mod_revision));
  const Revision current_rv = create(key("/other/bump"), "x").mod_revision;
  const auto& c = created_;
  using M = ResourceVersionMatch;
  auto limited = [&](std::string rv, M match, std::int64_t limit) {
    ListOptions o = options(std::move(rv), match);
    o.limit = limit;
    return o;
  };

  auto r = list(key("/pods/second/"), limited("", M::Unset, 1));
  expect_items(r, {c[1]});
  EXPECT_EQ(r.continue_token, token("/pods/second/", "bar" + std::string(1, '\0'), current_rv));
  EXPECT_EQ(r.remaining_item_count, 1);
  EXPECT_EQ(r.revision, current_rv);

  for (M match : {M::Unset, M::Exact}) {
    r = list(key("/pods/second/"), limited(std::to_string(continue_rv_), match, 1));
    expect_items(r, {c[1]});
    EXPECT_EQ(r.continue_token, token("/pods/second/", "bar" + std::string(1, '\0'), continue_rv_))
        << "a paginated list with a resourceVersion reads exactly there";
    EXPECT_EQ(r.remaining_item_count, 1);
    EXPECT_EQ(r.revision, continue_rv_);
  }
  for (auto [rv, match] : {std::pair{std::to_string(continue_rv_), M::NotOlderThan}, std::pair{std::string("0"), M::Unset},
                           std::pair{std::string("0"), M::NotOlderThan}}) {
    r = list(key("/pods/second/"), limited(rv, match, 1));
    expect_items(r, {c[1]});
    EXPECT_FALSE(r.continue_token.empty());
    EXPECT_EQ(r.remaining_item_count, 1);
    EXPECT_GE(r.revision, continue_rv_);
  }
  r = list(key("/pods/second/"), limited(std::to_string(c[0].mod_revision), M::Exact, 1));
  expect_items(r, {});
  EXPECT_TRUE(r.continue_token.empty());
  r = list(key("/pods/second/"), limited(std::to_string(c[1].mod_revision), M::Exact, 1));
  expect_items(r, {c[1]});
  EXPECT_TRUE(r.continue_token.empty());

  // Exact with limits across the seed's history.
  r = list(key("/pods/"), limited(std::to_string(c[1].mod_revision), M::Exact, 1));
  expect_items(r, {c[0]});
  EXPECT_EQ(r.continue_token, token("/pods/", "first/bar" + std::string(1, '\0'), c[1].mod_revision));
  EXPECT_EQ(r.remaining_item_count, 1);
  r = list(key("/pods/"), limited(std::to_string(c[2].mod_revision), M::Exact, 2));
  expect_items(r, {c[0], c[1]});
  EXPECT_EQ(r.continue_token, token("/pods/", "second/bar" + std::string(1, '\0'), c[2].mod_revision));
  EXPECT_EQ(r.remaining_item_count, 1);
  r = list(key("/pods/"), limited(std::to_string(c[3].mod_revision), M::Exact, 4));
  expect_items(r, {c[0], c[1], c[2], c[3]});
  EXPECT_TRUE(r.continue_token.empty());
  r = list(key("/pods/"), limited(std::to_string(c[4].mod_revision), M::Exact, 1));
  expect_items(r, {c[0]});
  EXPECT_EQ(r.remaining_item_count, 4);

  // A pre-made token: resumes at its key and revision; "0" is tolerated, any other resourceVersion is not.
  const std::string second_continuation = token("/pods/second/", "foo", continue_rv_);
  ListOptions resume = limited("", M::Unset, 1);
  resume.continue_token = second_continuation;
  r = list(key("/pods/second/"), resume);
  expect_items(r, {c[2]});
  EXPECT_TRUE(r.continue_token.empty());
  EXPECT_EQ(r.revision, continue_rv_);
  resume.resource_version = "0";
  expect_items(list(key("/pods/second/"), resume), {c[2]});
  resume.resource_version = "1";
  EXPECT_EQ(error_of([&] { list(key("/pods/second/"), resume); }), ErrorCode::InvalidArgument);
  resume.resource_version = "";
  resume.continue_token = "not-a-token";
  EXPECT_EQ(error_of([&] { list(key("/pods/second/"), resume); }), ErrorCode::InvalidArgument);
}

TEST_P(StorageConformanceList, PredicateFillsPagesLikeKube) {
  seed();
  auto filtered = [&](Predicate predicate, std::int64_t limit, std::string continue_token = "") {
    ListOptions o;
    o.predicate = std::move(predicate);
    o.limit = limit;
    o.continue_token = std::move(continue_token);
    return list(key("/pods/"), o);
  };
  const auto& c = created_;
  // Keys in order: first/bar, second/bar, second/foo, third/barfoo, third/foo.
  auto r = filtered(name_is("barfoo"), 1);
  expect_items(r, {c[3]});
  EXPECT_FALSE(r.continue_token.empty()) << "a full page with keys left means more pages are possible";
  EXPECT_FALSE(r.remaining_item_count) << "no remaining count under a predicate";
  r = filtered(name_is("barfoo"), 2);
  expect_items(r, {c[3]});
  EXPECT_TRUE(r.continue_token.empty());
  r = filtered(name_is("bar"), 2);
  expect_items(r, {updated_, c[1]});
  EXPECT_FALSE(r.continue_token.empty());
  r = filtered(name_is("foo"), 2);
  expect_items(r, {c[2], c[4]});
  EXPECT_TRUE(r.continue_token.empty()) << "the page is filled by reading further, not cut at `limit` keys";
  expect_items(filtered(name_is("foo"), 5), {c[2], c[4]});
  expect_items(filtered(name_is("baz"), 5), {});
  expect_items(filtered(on_node("fakeNode"), 5), {updated_});
  r = filtered(name_is("foo"), 2, token("/pods/", "third/barfoo", continue_rv_));
  expect_items(r, {c[4]});
  EXPECT_TRUE(r.continue_token.empty());
  r = filtered(name_is("foo"), 1, token("/pods/", "third/barfoo", continue_rv_));
  expect_items(r, {c[4]});
  EXPECT_TRUE(r.continue_token.empty());

  // Walking pages of one item each collects every match exactly once.
  std::vector<KeyValue> all;
  std::string next;
  for (int page = 0; page < 10; ++page) {
    r = filtered(name_is("bar"), 1, next);
    all.insert(all.end(), r.items.begin(), r.items.end());
    next = r.continue_token;
    if (next.empty()) break;
  }
  EXPECT_EQ(describe(all), describe(std::vector<KeyValue>{updated_, c[1]}));
}

TEST_P(StorageConformanceList, ContinuationReadsTheFirstPagesRevision) {
  const KeyValue a = create(key("/pods/ns/a"), "a1");
  const KeyValue b = create(key("/pods/ns/b"), "b1");
  const KeyValue c = create(key("/pods/ns/c"), "c1");
  ListOptions first;
  first.limit = 1;
  auto page = list(key("/pods/"), first);
  expect_items(page, {a});
  EXPECT_EQ(page.remaining_item_count, 2);
  const Revision first_revision = page.revision;
  // Writes after the first page must not show up in the next ones.
  update(key("/pods/ns/b"), "b2");
  create(key("/pods/ns/d"), "d1");
  ListOptions rest;
  rest.limit = 1;
  rest.continue_token = page.continue_token;
  page = list(key("/pods/"), rest);
  expect_items(page, {b});
  EXPECT_EQ(page.revision, first_revision);
  EXPECT_EQ(page.remaining_item_count, 1);
  rest.continue_token = page.continue_token;
  rest.limit = 5;
  page = list(key("/pods/"), rest);
  expect_items(page, {c});
  EXPECT_TRUE(page.continue_token.empty());
}

TEST_P(StorageConformanceList, ExpiredContinueOffersATokenAtTheLatestRevision) {
  // RunTestListInconsistentContinuation.
  create(key("/pods/ns/a"), "a");
  create(key("/pods/ns/b"), "b");
  create(key("/pods/ns/c"), "c");
  ListOptions first;
  first.limit = 1;
  auto page = list(key("/pods/"), first);
  ASSERT_FALSE(page.continue_token.empty());
  const KeyValue d = create(key("/pods/ns/d"), "d");
  run(store().compact(d.mod_revision));

  ListOptions rest;
  rest.limit = 1;
  rest.continue_token = page.continue_token;
  auto expired = storage_error_of([&] { list(key("/pods/"), rest); });
  ASSERT_TRUE(expired);
  EXPECT_EQ(expired->code(), ErrorCode::Expired);
  ASSERT_FALSE(expired->continue_token().empty());
  const ContinuePosition position = decode_continue(expired->continue_token(), key("/pods/"));
  EXPECT_EQ(position.revision, -1);
  EXPECT_EQ(position.start_key, key("/pods/ns/a") + '\0');

  rest.continue_token = expired->continue_token();
  rest.limit = 10;
  page = list(key("/pods/"), rest);
  EXPECT_EQ(page.items.size(), 3u) << describe(page.items);
  EXPECT_EQ(page.revision, d.mod_revision) << "the inconsistent continuation reads at the latest revision";
}

TEST_P(StorageConformanceList, NonRecursiveListReadsOneKey) {
  const std::string k = key("/pods/test-ns/foo");
  const KeyValue previous = create(k, "v1");
  const KeyValue stored = update(k, "v2");
  create(key("/pods/test-ns/foo/child"), "c");
  create(key("/pods/test-ns/foobar"), "x");
  auto single = [&](std::string rv, ResourceVersionMatch match = ResourceVersionMatch::Unset) {
    ListOptions o = options(std::move(rv), match);
    o.recursive = false;
    return list(k, o);
  };
  expect_items(single(""), {stored});
  expect_items(single(std::to_string(stored.mod_revision)), {stored});
  expect_items(single(std::to_string(previous.mod_revision), ResourceVersionMatch::Exact), {previous});
  expect_items(single(std::to_string(stored.mod_revision), ResourceVersionMatch::Exact), {stored});
  EXPECT_EQ(error_of([&] { single(std::to_string(std::numeric_limits<std::int64_t>::max())); }),
            ErrorCode::TooLargeResourceVersion);
  ListOptions missing;
  missing.recursive = false;
  expect_items(list(key("/pods/non-existing"), missing), {});
  ListOptions filtered;
  filtered.recursive = false;
  filtered.predicate = name_is_not("foo");
  expect_items(list(k, filtered), {});
}

// unchanged_since: what a cache without progress requests may serve a consistent LIST on. It confirms a prefix
// only when it holds exactly the counted objects, none modified since the revision, and answers a revision at
// least as new as every write made before the call.
TEST_P(StorageConformanceList, UnchangedSinceConfirmsOnlyAPrefixNothingChangedUnder) {
  const std::string prefix = key("/widgets/");
  auto unchanged = [&](Revision since, std::int64_t count) { return run(store().unchanged_since(prefix, since, count)); };
  create(key("/widgets/a"), "a");
  const KeyValue b = create(key("/widgets/b"), "b");
  const Revision seeded = b.mod_revision;
  ASSERT_TRUE(unchanged(seeded, 2).has_value());
  EXPECT_GE(*unchanged(seeded, 2), seeded);
  EXPECT_FALSE(unchanged(seeded, 3).has_value()) << "one object fewer than counted";

  const KeyValue other = create(key("/gadgets/x"), "x");  // outside the prefix: no change to it
  EXPECT_GE(unchanged(seeded, 2).value_or(0), other.mod_revision);

  const Revision updated = update(key("/widgets/a"), "a2").mod_revision;
  EXPECT_FALSE(unchanged(seeded, 2).has_value()) << "an object changed";
  EXPECT_TRUE(unchanged(updated, 2).has_value());

  remove(key("/widgets/b"));
  EXPECT_FALSE(unchanged(updated, 2).has_value()) << "an object deleted";

  // Created and deleted again after the revision: the same objects, unchanged, at a revision past both.
  const Revision settled = current_revision();
  create(key("/widgets/c"), "c");
  remove(key("/widgets/c"));
  const Revision gone = current_revision();
  ASSERT_TRUE(unchanged(settled, 1).has_value());
  EXPECT_GE(*unchanged(settled, 1), gone);
  // Replaced: one deleted, another created, same count.
  remove(key("/widgets/a"));
  create(key("/widgets/d"), "d");
  EXPECT_FALSE(unchanged(settled, 1).has_value());
}

INSTANTIATE_TEST_SUITE_P(Backends, StorageConformanceList, ::testing::ValuesIn(all_backends()),
                         [](const ::testing::TestParamInfo<BackendFactory>& info) { return info.param.name; });

}  // namespace
}  // namespace kapi::storage::conformance::conformance_list_test
