// Conflicts' text (smd v4.4.2's merge/conflict_test.go), and the conflicts an apply reports.
#include "tests/unit/server/structured_merge/update_test_schemas.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace kapi::structured_merge::testing::conflict_test {
namespace {

TEST(SmdConflictTest, OneConflictIsOneLine) {
  Conflicts conflicts({Conflict{"Bob", P("list", KBF("key", "a", "id", 2), "id")}});
  EXPECT_STREQ(conflicts.what(), R"(conflict with "Bob": .list[id=2,key="a"].id)");
}

TEST(SmdConflictTest, ConflictsAreGroupedByManagerInNameOrder) {
  Conflicts conflicts({Conflict{"Bob", P("key")}, Conflict{"Bob", P("list", KBF("key", "a", "id", 2), "id")},
                       Conflict{"Alice", P("value")}, Conflict{"Alice", P("list", KBF("key", "a", "id", 2), "key")}});
  EXPECT_STREQ(conflicts.what(), R"(conflicts with "Alice":
- .value
- .list[id=2,key="a"].key
conflicts with "Bob":
- .key
- .list[id=2,key="a"].id)");
  EXPECT_EQ(conflicts.conflicts().size(), 4u);
}

TEST(SmdConflictTest, ManagerNamesAreQuotedAsGoQuotesThem) {
  Conflicts conflicts({Conflict{R"({"manager":"kubectl","operation":"Update"})", P("a")}});
  EXPECT_STREQ(conflicts.what(), R"(conflict with "{\"manager\":\"kubectl\",\"operation\":\"Update\"}": .a)");
}

// An apply conflicts on each field another manager owns with another value, per manager and in path order
// (ConflictsFromManagers, whose Go map order smd leaves random).
TEST(SmdConflictTest, ApplyReportsEveryConflictOfEveryManager) {
  const Parser& parser = deduced_parser();
  DummyConverter converter;
  Updater updater(converter, UpdaterOptions{});
  ManagedFields managers;
  TypedValue live = parser.empty("v1");
  TypedValue updated = parser.parse("obj:\n  template:\n    a: 1\n    b: 2\n", "v1");
  managers = updater.update(live, updated, "v1", managers, "Bob");
  live = std::exchange(updated, parser.parse("obj:\n  template:\n    a: 1\n    b: 2\nkey: x\n", "v1"));
  managers = updater.update(live, updated, "v1", managers, "Alice");
  live = updated;
  try {
    updater.apply(live, parser.parse("obj:\n  template:\n    a: 3\n    b: 2\nkey: y\nnew: z\n", "v1"), "v1", managers,
                  "applier", false);
    FAIL() << "the apply did not conflict";
  } catch (const Conflicts& conflicts) {
    EXPECT_STREQ(conflicts.what(), R"(conflicts with "Alice":
- .key
conflicts with "Bob":
- .obj.template.a)");
    ASSERT_EQ(conflicts.conflicts().size(), 2u);
    EXPECT_EQ(conflicts.conflicts()[0].manager, "Alice");
    EXPECT_EQ(path_to_string(conflicts.conflicts()[1].path), ".obj.template.a");
  }
}

}  // namespace
}  // namespace kapi::structured_merge::testing::conflict_test
