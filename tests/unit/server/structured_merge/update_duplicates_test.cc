// Ported from structured-merge-diff v4.4.2's merge/duplicates_test.go: each case runs its operations through the
// Updater (update_fixture.h) and checks the live object and the managers at the end.
#include "tests/unit/server/structured_merge/update_test_schemas.h"

#include <gtest/gtest.h>

namespace kapi::structured_merge::testing::update_duplicates_test {
namespace {

// sets/ownership/duplicates
TEST(SmdDuplicatesTest, SetsOwnershipDuplicates) {
  TestCase test;
  test.ops = {
      Update{"updater-one", "v1", R"(
          set: [1, 1, 3, 4]
        )"},
  };
  test.managed = ManagedFields{
      {"updater-one", VersionedSet{NS(P("set"), P("set", V(1)), P("set", V(3)), P("set", V(4))), "v1", false}}};
  run(test, duplicates_parser());
}

// sets/ownership/add_duplicate
TEST(SmdDuplicatesTest, SetsOwnershipAddDuplicate) {
  TestCase test;
  test.ops = {
      Update{"updater-one", "v1", R"(
          set: [1, 3, 4]
        )"},
      Update{"updater-two", "v1", R"(
          set: [1, 1, 3, 4]
        )"},
  };
  test.managed = ManagedFields{{"updater-one", VersionedSet{NS(P("set"), P("set", V(3)), P("set", V(4))), "v1", false}},
                               {"updater-two", VersionedSet{NS(P("set", V(1))), "v1", false}}};
  run(test, duplicates_parser());
}

// sets/ownership/remove_duplicate
TEST(SmdDuplicatesTest, SetsOwnershipRemoveDuplicate) {
  TestCase test;
  test.ops = {
      Update{"updater-one", "v1", R"(
          set: [1, 1, 3, 4]
        )"},
      Update{"updater-two", "v1", R"(
          set: [1, 3, 4]
        )"},
  };
  test.managed = ManagedFields{{"updater-one", VersionedSet{NS(P("set"), P("set", V(3)), P("set", V(4))), "v1", false}},
                               {"updater-two", VersionedSet{NS(P("set", V(1))), "v1", false}}};
  run(test, duplicates_parser());
}

// sets/merging/remove_duplicate
TEST(SmdDuplicatesTest, SetsMergingRemoveDuplicate) {
  TestCase test;
  test.ops = {
      Update{"updater", "v1", R"(
          set: [1, 1, 3, 4]
        )"},
      Apply{"applier", "v1", R"(
          set: [1]
        )",
            std::vector<Conflict>{Conflict{"updater", P("set", V(1))}}},
      ForceApply{"applier", "v1", R"(
          set: [1]
        )"},
  };
  test.object = R"(
    set: [1, 3, 4]
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{{"updater", VersionedSet{NS(P("set"), P("set", V(3)), P("set", V(4))), "v1", false}},
                               {"applier", VersionedSet{NS(P("set", V(1))), "v1", true}}};
  run(test, duplicates_parser());
}

// sets/merging/ignore_duplicate
TEST(SmdDuplicatesTest, SetsMergingIgnoreDuplicate) {
  TestCase test;
  test.ops = {
      Update{"updater", "v1", R"(
          set: [1, 1, 3, 4]
        )"},
      Apply{"applier", "v1", R"(
          set: [5]
        )"},
  };
  test.object = R"(
    set: [1, 1, 3, 4, 5]
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{
      {"updater", VersionedSet{NS(P("set"), P("set", V(1)), P("set", V(3)), P("set", V(4))), "v1", false}},
      {"applier", VersionedSet{NS(P("set", V(5))), "v1", true}}};
  run(test, duplicates_parser());
}

// list/ownership/duplicated_items
TEST(SmdDuplicatesTest, ListOwnershipDuplicatedItems) {
  TestCase test;
  test.ops = {
      Update{"updater", "v1", R"(
          list:
          - name: a
            value1: 1
          - name: a
            value1: 2
          - name: b
            value1: 3
        )"},
  };
  test.managed = ManagedFields{
      {"updater", VersionedSet{NS(P("list"), P("list", KBF("name", "a")), P("list", KBF("name", "b")),
                                  P("list", KBF("name", "b"), "name"), P("list", KBF("name", "b"), "value1")),
                               "v1", false}}};
  run(test, duplicates_parser());
}

// list/ownership/change_duplicated_items
TEST(SmdDuplicatesTest, ListOwnershipChangeDuplicatedItems) {
  TestCase test;
  test.ops = {
      Update{"updater-one", "v1", R"(
          list:
          - name: a
            value1: 1
          - name: a
            value1: 2
          - name: b
            value1: 3
        )"},
      Update{"updater-two", "v1", R"(
          list:
          - name: a
            value1: 1
          - name: a
            value1: 3
          - name: b
            value1: 3
        )"},
  };
  test.managed = ManagedFields{
      {"updater-one", VersionedSet{NS(P("list"), P("list", KBF("name", "b")), P("list", KBF("name", "b"), "name"),
                                      P("list", KBF("name", "b"), "value1")),
                                   "v1", false}},
      {"updater-two", VersionedSet{NS(P("list", KBF("name", "a"))), "v1", false}}};
  run(test, duplicates_parser());
}

// list/ownership/change_fields_duplicated_items
TEST(SmdDuplicatesTest, ListOwnershipChangeFieldsDuplicatedItems) {
  TestCase test;
  test.ops = {
      Update{"updater-one", "v1", R"(
          list:
          - name: a
            value1: 1
          - name: a
            value1: 2
          - name: b
            value1: 3
        )"},
      Update{"updater-two", "v1", R"(
          list:
          - name: a
            value1: 1
          - name: a
            value1: 2
            value2: 3 # New field
          - name: b
            value1: 3
        )"},
  };
  test.managed = ManagedFields{
      {"updater-one", VersionedSet{NS(P("list"), P("list", KBF("name", "b")), P("list", KBF("name", "b"), "name"),
                                      P("list", KBF("name", "b"), "value1")),
                                   "v1", false}},
      {"updater-two", VersionedSet{NS(P("list", KBF("name", "a"))), "v1", false}}};
  run(test, duplicates_parser());
}

// list/ownership/add_duplicated_items_different_field
TEST(SmdDuplicatesTest, ListOwnershipAddDuplicatedItemsDifferentField) {
  TestCase test;
  test.ops = {
      Update{"updater-one", "v1", R"(
          list:
          - name: a
            value1: 1
          - name: b
            value1: 3
        )"},
      Update{"updater-two", "v1", R"(
          list:
          - name: a
            value1: 1
          - name: a
            value2: 3 # New field
          - name: b
            value1: 3
        )"},
  };
  test.managed = ManagedFields{
      {"updater-one", VersionedSet{NS(P("list"), P("list", KBF("name", "b")), P("list", KBF("name", "b"), "name"),
                                      P("list", KBF("name", "b"), "value1")),
                                   "v1", false}},
      {"updater-two", VersionedSet{NS(P("list", KBF("name", "a"))), "v1", false}}};
  run(test, duplicates_parser());
}

// list/ownership/add_unrelated_to_list_with_duplicates
TEST(SmdDuplicatesTest, ListOwnershipAddUnrelatedToListWithDuplicates) {
  TestCase test;
  test.ops = {
      Update{"updater-one", "v1", R"(
          list:
          - name: a
            value1: 1
          - name: a
            value1: 2
        )"},
      Update{"updater-two", "v1", R"(
          list:
          - name: a
            value1: 1
          - name: a
            value1: 2
          - name: b
            value1: 3
        )"},
  };
  test.managed =
      ManagedFields{{"updater-one", VersionedSet{NS(P("list"), P("list", KBF("name", "a"))), "v1", false}},
                    {"updater-two", VersionedSet{NS(P("list", KBF("name", "b")), P("list", KBF("name", "b"), "name"),
                                                    P("list", KBF("name", "b"), "value1")),
                                                 "v1", false}}};
  run(test, duplicates_parser());
}

// list/merge/unrelated_with_duplicated_items
TEST(SmdDuplicatesTest, ListMergeUnrelatedWithDuplicatedItems) {
  TestCase test;
  test.ops = {
      Update{"updater", "v1", R"(
          list:
          - name: a
            value1: 1
          - name: a
            value1: 2
          - name: b
            value1: 3
        )"},
      ForceApply{"applier", "v1", R"(
          unrelated: 5
        )"},
  };
  test.object = R"(
    list:
    - name: a
      value1: 1
    - name: a
      value1: 2
    - name: b
      value1: 3
    unrelated: 5
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{
      {"updater", VersionedSet{NS(P("list"), P("list", KBF("name", "a")), P("list", KBF("name", "b")),
                                  P("list", KBF("name", "b"), "name"), P("list", KBF("name", "b"), "value1")),
                               "v1", false}},
      {"applier", VersionedSet{NS(P("unrelated")), "v1", true}}};
  run(test, duplicates_parser());
}

// list/merge/change_duplicated_item
TEST(SmdDuplicatesTest, ListMergeChangeDuplicatedItem) {
  TestCase test;
  test.ops = {
      Update{"updater", "v1", R"(
          list:
          - name: a
            value1: 1
          - name: a
            value1: 2
          - name: b
            value1: 3
        )"},
      Apply{"applier", "v1", R"(
          list:
          - name: a
            value1: 3
        )",
            std::vector<Conflict>{Conflict{"updater", P("list", KBF("name", "a"))}}},
      ForceApply{"applier", "v1", R"(
          list:
          - name: a
            value1: 3
        )"},
  };
  test.object = R"(
    list:
    - name: a
      value1: 3
    - name: b
      value1: 3
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{
      {"updater", VersionedSet{NS(P("list"), P("list", KBF("name", "b")), P("list", KBF("name", "b"), "name"),
                                  P("list", KBF("name", "b"), "value1")),
                               "v1", false}},
      {"applier", VersionedSet{NS(P("list", KBF("name", "a")), P("list", KBF("name", "a"), "name"),
                                  P("list", KBF("name", "a"), "value1")),
                               "v1", true}}};
  run(test, duplicates_parser());
}

// list/merge/unchanged_duplicated_item
TEST(SmdDuplicatesTest, ListMergeUnchangedDuplicatedItem) {
  TestCase test;
  test.ops = {
      Update{"updater", "v1", R"(
          list:
          - name: a
            value1: 1
          - name: a
            value1: 2
          - name: b
            value1: 3
        )"},
      Apply{"applier", "v1", R"(
          list:
          - name: a
            value1: 2
        )",
            std::vector<Conflict>{Conflict{"updater", P("list", KBF("name", "a"))}}},
      ForceApply{"applier", "v1", R"(
          list:
          - name: a
            value1: 3
        )"},
  };
  test.object = R"(
    list:
    - name: a
      value1: 3
    - name: b
      value1: 3
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{
      {"updater", VersionedSet{NS(P("list"), P("list", KBF("name", "b")), P("list", KBF("name", "b"), "name"),
                                  P("list", KBF("name", "b"), "value1")),
                               "v1", false}},
      {"applier", VersionedSet{NS(P("list", KBF("name", "a")), P("list", KBF("name", "a"), "name"),
                                  P("list", KBF("name", "a"), "value1")),
                               "v1", true}}};
  run(test, duplicates_parser());
}

// list/merge/change_non_duplicated_item
TEST(SmdDuplicatesTest, ListMergeChangeNonDuplicatedItem) {
  TestCase test;
  test.ops = {
      Update{"updater", "v1", R"(
          list:
          - name: a
            value1: 1
          - name: a
            value1: 2
          - name: b
            value1: 3
        )"},
      ForceApply{"applier", "v1", R"(
          list:
          - name: b
            value1: 4
        )"},
  };
  test.object = R"(
    list:
    - name: a
      value1: 1
    - name: a
      value1: 2
    - name: b
      value1: 4
  )";
  test.api_version = "v1";
  test.managed =
      ManagedFields{{"updater", VersionedSet{NS(P("list"), P("list", KBF("name", "a")), P("list", KBF("name", "b")),
                                                P("list", KBF("name", "b"), "name")),
                                             "v1", false}},
                    {"applier", VersionedSet{NS(P("list", KBF("name", "b")), P("list", KBF("name", "b"), "name"),
                                                P("list", KBF("name", "b"), "value1")),
                                             "v1", true}}};
  run(test, duplicates_parser());
}

// list/merge/apply_update_duplicates_apply_without
TEST(SmdDuplicatesTest, ListMergeApplyUpdateDuplicatesApplyWithout) {
  TestCase test;
  test.ops = {
      Apply{"applier", "v1", R"(
          list:
          - name: a
            value1: 1
          - name: b
            value1: 3
        )"},
      Update{"updater", "v1", R"(
          list:
          - name: a
            value1: 1
          - name: a
            value1: 2
          - name: b
            value1: 3
        )"},
      Apply{"applier", "v1", R"(
          list:
          - name: b
            value1: 3
        )"},
  };
  test.object = R"(
    list:
    - name: a
      value1: 1
    - name: a
      value1: 2
    - name: b
      value1: 3
  )";
  test.api_version = "v1";
  test.managed =
      ManagedFields{{"applier", VersionedSet{NS(P("list", KBF("name", "b")), P("list", KBF("name", "b"), "name"),
                                                P("list", KBF("name", "b"), "value1")),
                                             "v1", true}},
                    {"updater", VersionedSet{NS(P("list", KBF("name", "a"))), "v1", false}}};
  run(test, duplicates_parser());
}

}  // namespace
}  // namespace kapi::structured_merge::testing::update_duplicates_test
