// Ported from structured-merge-diff v4.4.2's merge/leaf_test.go and merge/key_test.go: each case runs its operations
// through the Updater (update_fixture.h) and checks the live object and the managers at the end.
#include "tests/unit/server/structured_merge/update_test_schemas.h"

#include <gtest/gtest.h>

namespace kapi::structured_merge::testing::update_leaf_test {
namespace {

// apply_twice
TEST(SmdLeafTest, ApplyTwice) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          numeric: 1
          string: "string"
        )"},
      Apply{"default", "v1", R"(
          numeric: 2
          string: "string"
          bool: false
        )"},
  };
  test.object = R"(
    numeric: 2
    string: "string"
    bool: false
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{{"default", VersionedSet{NS(P("numeric"), P("string"), P("bool")), "v1", false}}};
  run(test, leaf_fields_parser());
}

// apply_twice_different_versions
TEST(SmdLeafTest, ApplyTwiceDifferentVersions) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          numeric: 1
          string: "string"
        )"},
      Apply{"default", "v2", R"(
          numeric: 2
          string: "string"
          bool: false
        )"},
  };
  test.object = R"(
    numeric: 2
    string: "string"
    bool: false
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{{"default", VersionedSet{NS(P("numeric"), P("string"), P("bool")), "v2", false}}};
  run(test, leaf_fields_parser());
}

// apply_update_apply_no_conflict
TEST(SmdLeafTest, ApplyUpdateApplyNoConflict) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          numeric: 1
          string: "string"
        )"},
      Update{"controller", "v1", R"(
          numeric: 1
          string: "string"
          bool: true
        )"},
      Apply{"default", "v1", R"(
          numeric: 2
          string: "string"
        )"},
  };
  test.object = R"(
    numeric: 2
    string: "string"
    bool: true
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{{"default", VersionedSet{NS(P("numeric"), P("string")), "v1", false}},
                               {"controller", VersionedSet{NS(P("bool")), "v1", false}}};
  run(test, leaf_fields_parser());
}

// apply_update_apply_no_conflict_different_version
TEST(SmdLeafTest, ApplyUpdateApplyNoConflictDifferentVersion) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          numeric: 1
          string: "string"
        )"},
      Update{"controller", "v2", R"(
          numeric: 1
          string: "string"
          bool: true
        )"},
      Apply{"default", "v1", R"(
          numeric: 2
          string: "string"
        )"},
  };
  test.object = R"(
    numeric: 2
    string: "string"
    bool: true
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{{"default", VersionedSet{NS(P("numeric"), P("string")), "v1", false}},
                               {"controller", VersionedSet{NS(P("bool")), "v2", false}}};
  run(test, leaf_fields_parser());
}

// apply_update_apply_with_conflict
TEST(SmdLeafTest, ApplyUpdateApplyWithConflict) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          numeric: 1
          string: "string"
        )"},
      Update{"controller", "v1", R"(
          numeric: 1
          string: "controller string"
          bool: true
        )"},
      Apply{"default", "v1", R"(
          numeric: 2
          string: "user string"
        )",
            std::vector<Conflict>{Conflict{"controller", P("string")}}},
      ForceApply{"default", "v1", R"(
          numeric: 2
          string: "user string"
        )"},
  };
  test.object = R"(
    numeric: 2
    string: "user string"
    bool: true
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{{"default", VersionedSet{NS(P("numeric"), P("string")), "v1", false}},
                               {"controller", VersionedSet{NS(P("bool")), "v1", false}}};
  run(test, leaf_fields_parser());
}

// apply_update_apply_with_conflict_across_version
TEST(SmdLeafTest, ApplyUpdateApplyWithConflictAcrossVersion) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          numeric: 1
          string: "string"
        )"},
      Update{"controller", "v2", R"(
          numeric: 1
          string: "controller string"
          bool: true
        )"},
      Apply{"default", "v1", R"(
          numeric: 2
          string: "user string"
        )",
            std::vector<Conflict>{Conflict{"controller", P("string")}}},
      ForceApply{"default", "v1", R"(
          numeric: 2
          string: "user string"
        )"},
  };
  test.object = R"(
    numeric: 2
    string: "user string"
    bool: true
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{{"default", VersionedSet{NS(P("numeric"), P("string")), "v1", false}},
                               {"controller", VersionedSet{NS(P("bool")), "v2", false}}};
  run(test, leaf_fields_parser());
}

// apply_twice_remove
TEST(SmdLeafTest, ApplyTwiceRemove) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          numeric: 1
          string: "string"
          bool: false
        )"},
      Apply{"default", "v1", R"(
          string: "new string"
        )"},
  };
  test.object = R"(
    string: "new string"
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{{"default", VersionedSet{NS(P("string")), "v1", false}}};
  run(test, leaf_fields_parser());
}

// update_apply_omits
TEST(SmdLeafTest, UpdateApplyOmits) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          numeric: 2
        )"},
      Update{"controller", "v1", R"(
          numeric: 1
        )"},
      Apply{"default", "v1", ""},
  };
  test.object = R"(
    numeric: 1
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{{"controller", VersionedSet{NS(P("numeric")), "v1", false}}};
  run(test, leaf_fields_parser());
}

// apply_twice_remove_different_version
TEST(SmdLeafTest, ApplyTwiceRemoveDifferentVersion) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          numeric: 1
          string: "string"
          bool: false
        )"},
      Apply{"default", "v2", R"(
          string: "new string"
        )"},
  };
  test.object = R"(
    string: "new string"
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{{"default", VersionedSet{NS(P("string")), "v2", false}}};
  run(test, leaf_fields_parser());
}

// update_remove_empty_set
TEST(SmdLeafTest, UpdateRemoveEmptySet) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          string: "string"
        )"},
      Update{"controller", "v1", R"(
          string: "new string"
        )"},
  };
  test.object = R"(
    string: "new string"
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{{"controller", VersionedSet{NS(P("string")), "v1", false}}};
  run(test, leaf_fields_parser());
}

// apply_remove_empty_set
TEST(SmdLeafTest, ApplyRemoveEmptySet) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          string: "string"
        )"},
      Apply{"default", "v1", ""},
  };
  test.object = "";
  test.api_version = "v1";
  test.managed = ManagedFields{};
  run(test, leaf_fields_parser());
}

// removing_obsolete_applied_structs
TEST(SmdKeyTest, RemovingObsoleteAppliedStructs) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          list:
          - name: a
            value: 1
        )"},
      Apply{"default", "v1", R"(
          list:
          - name: b
            value: 2
        )"},
  };
  test.object = R"(
    list:
    - name: b
      value: 2
  )";
  test.api_version = "v1";
  test.managed =
      ManagedFields{{"default", VersionedSet{NS(P("list", KBF("name", "b")), P("list", KBF("name", "b"), "name"),
                                                P("list", KBF("name", "b"), "value")),
                                             "v1", false}}};
  run(test, associative_list_parser());
}

}  // namespace
}  // namespace kapi::structured_merge::testing::update_leaf_test
