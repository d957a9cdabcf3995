// Ported from structured-merge-diff v4.4.2's merge/deduced_test.go: each case runs its operations through the Updater
// (update_fixture.h) and checks the live object and the managers at the end.
#include "tests/unit/server/structured_merge/update_test_schemas.h"

#include <gtest/gtest.h>

namespace kapi::structured_merge::testing::update_deduced_test {
namespace {

// leaf_apply_twice
TEST(SmdDeducedTest, LeafApplyTwice) {
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
  run(test, deduced_parser());
}

// leaf_apply_update_apply_no_conflict
TEST(SmdDeducedTest, LeafApplyUpdateApplyNoConflict) {
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
  run(test, deduced_parser());
}

// leaf_apply_update_apply_with_conflict
TEST(SmdDeducedTest, LeafApplyUpdateApplyWithConflict) {
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
  run(test, deduced_parser());
}

// leaf_apply_twice_remove
TEST(SmdDeducedTest, LeafApplyTwiceRemove) {
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
  run(test, deduced_parser());
}

// leaf_update_remove_empty_set
TEST(SmdDeducedTest, LeafUpdateRemoveEmptySet) {
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
  run(test, deduced_parser());
}

// apply_twice_list_is_atomic
TEST(SmdDeducedTest, ApplyTwiceListIsAtomic) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          list:
          - a
          - c
        )"},
      Apply{"default", "v1", R"(
          list:
          - a
          - d
          - c
          - b
        )"},
  };
  test.object = R"(
    list:
    - a
    - d
    - c
    - b
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{{"default", VersionedSet{NS(P("list")), "v1", false}}};
  run(test, deduced_parser());
}

// apply_update_apply_list
TEST(SmdDeducedTest, ApplyUpdateApplyList) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          list:
          - a
          - c
        )"},
      Update{"controller", "v1", R"(
          list:
          - a
          - b
          - c
          - d
        )"},
      ForceApply{"default", "v1", R"(
          list:
          - a
          - b
          - c
        )"},
  };
  test.object = R"(
    list:
    - a
    - b
    - c
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{{"default", VersionedSet{NS(P("list")), "v1", false}}};
  run(test, deduced_parser());
}

// leaf_apply_remove_empty_set
TEST(SmdDeducedTest, LeafApplyRemoveEmptySet) {
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
  run(test, deduced_parser());
}

// apply_update_apply_nested
TEST(SmdDeducedTest, ApplyUpdateApplyNested) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          a: 1
          b:
            c:
              d: 2
              e:
              - 1
              - 2
              - 3
              f:
              - name: n
                value: 1
        )"},
      Update{"controller", "v1", R"(
          a: 1
          b:
            c:
              d: 3
              e:
              - 1
              - 2
              - 3
              - 4
              f:
              - name: n
                value: 2
          g: 5
        )"},
      Apply{"default", "v1", R"(
          a: 2
          b:
            c:
              d: 2
              e:
              - 3
              - 2
              - 1
              f:
              - name: n
                value: 1
        )",
            std::vector<Conflict>{Conflict{"controller", P("b", "c", "d")}, Conflict{"controller", P("b", "c", "e")},
                                  Conflict{"controller", P("b", "c", "f")}}},
      ForceApply{"default", "v1", R"(
          a: 2
          b:
            c:
              d: 2
              e:
              - 3
              - 2
              - 1
              f:
              - name: n
                value: 1
        )"},
  };
  test.object = R"(
    a: 2
    b:
      c:
        d: 2
        e:
        - 3
        - 2
        - 1
        f:
        - name: n
          value: 1
    g: 5
  )";
  test.api_version = "v1";
  run(test, deduced_parser());
}

// apply_update_apply_nested_different_version
TEST(SmdDeducedTest, ApplyUpdateApplyNestedDifferentVersion) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          a: 1
          b:
            c:
              d: 2
              e:
              - 1
              - 2
              - 3
              f:
              - name: n
                value: 1
        )"},
      Update{"controller", "v2", R"(
          a: 1
          b:
            c:
              d: 3
              e:
              - 1
              - 2
              - 3
              - 4
              f:
              - name: n
                value: 2
          g: 5
        )"},
      Apply{"default", "v3", R"(
          a: 2
          b:
            c:
              d: 2
              e:
              - 3
              - 2
              - 1
              f:
              - name: n
                value: 1
        )",
            std::vector<Conflict>{Conflict{"controller", P("b", "c", "d")}, Conflict{"controller", P("b", "c", "e")},
                                  Conflict{"controller", P("b", "c", "f")}}},
      ForceApply{"default", "v3", R"(
          a: 2
          b:
            c:
              d: 2
              e:
              - 3
              - 2
              - 1
              f:
              - name: n
                value: 1
        )"},
  };
  test.object = R"(
    a: 2
    b:
      c:
        d: 2
        e:
        - 3
        - 2
        - 1
        f:
        - name: n
          value: 1
    g: 5
  )";
  test.api_version = "v1";
  run(test, deduced_parser());
}

}  // namespace
}  // namespace kapi::structured_merge::testing::update_deduced_test
