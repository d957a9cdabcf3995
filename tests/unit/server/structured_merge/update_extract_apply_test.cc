// Ported from structured-merge-diff v4.4.2's merge/extract_apply_test.go: each case runs its operations through the
// Updater (update_fixture.h) and checks the live object and the managers at the end.
#include "tests/unit/server/structured_merge/update_test_schemas.h"

#include <gtest/gtest.h>

namespace kapi::structured_merge::testing::update_extract_apply_test {
namespace {

// apply_one_extract_apply_one_own_both
TEST(SmdExtractApplyTest, ApplyOneExtractApplyOneOwnBoth) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          list:
          - a
        )"},
      ExtractApply{"default", "v1", R"(
          list:
          - b
        )"},
  };
  test.object = R"(
    list:
    - a
    - b
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{{"default", VersionedSet{NS(P("list", V("a")), P("list", V("b"))), "v1", false}}};
  run(test, extract_parser());
}

// extract_apply_from_beginning
TEST(SmdExtractApplyTest, ExtractApplyFromBeginning) {
  TestCase test;
  test.ops = {
      ExtractApply{"default", "v1", R"(
          list:
          - a
        )"},
      ExtractApply{"default", "v1", R"(
          list:
          - b
        )"},
  };
  test.object = R"(
    list:
    - a
    - b
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{{"default", VersionedSet{NS(P("list", V("a")), P("list", V("b"))), "v1", false}}};
  run(test, extract_parser());
}

// apply_after_extract_remove_fields
TEST(SmdExtractApplyTest, ApplyAfterExtractRemoveFields) {
  TestCase test;
  test.ops = {
      ExtractApply{"default", "v1", R"(
          list:
          - a
        )"},
      Apply{"default", "v1", R"(
          list:
          - b
        )"},
  };
  test.object = R"(
    list:
    - b
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{{"default", VersionedSet{NS(P("list", V("b"))), "v1", false}}};
  run(test, extract_parser());
}

// apply_one_controller_remove_extract_apply_one
TEST(SmdExtractApplyTest, ApplyOneControllerRemoveExtractApplyOne) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          list:
          - a
        )"},
      Update{"controller", "v1", R"(
          list:
           - b
        )"},
      ExtractApply{"default", "v1", R"(
          list:
          - c
        )"},
  };
  test.object = R"(
    list:
    - b
    - c
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{{"default", VersionedSet{NS(P("list", V("c"))), "v1", false}},
                               {"controller", VersionedSet{NS(P("list", V("b"))), "v1", false}}};
  run(test, extract_parser());
}

// extract_apply_retain_ownership_after_controller_update
TEST(SmdExtractApplyTest, ExtractApplyRetainOwnershipAfterControllerUpdate) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          list:
          - a
        )"},
      Update{"controller", "v1", R"(
          list:
           - a
           - b
        )"},
      ExtractApply{"default", "v1", R"(
          list:
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
  test.managed = ManagedFields{{"default", VersionedSet{NS(P("list", V("a")), P("list", V("c"))), "v1", false}},
                               {"controller", VersionedSet{NS(P("list", V("b"))), "v1", false}}};
  run(test, extract_parser());
}

// extract_apply_share_ownership_after_another_apply
TEST(SmdExtractApplyTest, ExtractApplyShareOwnershipAfterAnotherApply) {
  TestCase test;
  test.ops = {
      Apply{"apply-one", "v1", R"(
          list:
          - a
        )"},
      Apply{"apply-two", "v1", R"(
          list:
           - a
           - b
        )"},
      ExtractApply{"apply-one", "v1", R"(
          list:
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
  test.managed = ManagedFields{{"apply-one", VersionedSet{NS(P("list", V("a")), P("list", V("c"))), "v1", false}},
                               {"apply-two", VersionedSet{NS(P("list", V("a")), P("list", V("b"))), "v1", false}}};
  run(test, extract_parser());
}

// apply_two_cant_delete_object_also_owned_by_extract_apply
TEST(SmdExtractApplyTest, ApplyTwoCantDeleteObjectAlsoOwnedByExtractApply) {
  TestCase test;
  test.ops = {
      Apply{"apply-one", "v1", R"(
          list:
          - a
        )"},
      Apply{"apply-two", "v1", R"(
          list:
           - a
           - b
        )"},
      ExtractApply{"apply-one", "v1", R"(
          list:
          - c
        )"},
      Apply{"apply-two", "v1", R"(
          list:
           - b
        )"},
  };
  test.object = R"(
    list:
    - a
    - b
    - c
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{{"apply-one", VersionedSet{NS(P("list", V("a")), P("list", V("c"))), "v1", false}},
                               {"apply-two", VersionedSet{NS(P("list", V("b"))), "v1", false}}};
  run(test, extract_parser());
}

// extract_apply_empty_structure_list
TEST(SmdExtractApplyTest, ExtractApplyEmptyStructureList) {
  TestCase test;
  test.ops = {
      ExtractApply{"apply-one", "v1", R"(
          list:
        )"},
      Apply{"apply-two", "v1", R"(
          list:
           - a
           - b
        )"},
  };
  test.object = R"(
    list:
    - a
    - b
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{{"apply-one", VersionedSet{NS(P("list")), "v1", false}},
                               {"apply-two", VersionedSet{NS(P("list", V("a")), P("list", V("b"))), "v1", false}}};
  run(test, extract_parser());
}

// extract_apply_empty_structure_remove_list
TEST(SmdExtractApplyTest, ExtractApplyEmptyStructureRemoveList) {
  TestCase test;
  test.ops = {
      ExtractApply{"apply-one", "v1", R"(
          list:
        )"},
      Apply{"apply-two", "v1", R"(
          list:
           - a
           - b
        )"},
      Apply{"apply-two", "v1", R"(
          list:
           - b
        )"},
  };
  test.object = R"(
    list:
    - b
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{{"apply-one", VersionedSet{NS(P("list")), "v1", false}},
                               {"apply-two", VersionedSet{NS(P("list", V("b"))), "v1", false}}};
  run(test, extract_parser());
}

// extract_apply_empty_structure_add_later_list
TEST(SmdExtractApplyTest, ExtractApplyEmptyStructureAddLaterList) {
  TestCase test;
  test.ops = {
      ExtractApply{"apply-one", "v1", R"(
          list:
        )"},
      Apply{"apply-two", "v1", R"(
          list:
           - a
           - b
        )"},
      ExtractApply{"apply-one", "v1", R"(
          list:
          - c
        )"},
      Apply{"apply-two", "v1", R"(
          list:
           - b
        )"},
  };
  test.object = R"(
    list:
    - b
    - c
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{{"apply-one", VersionedSet{NS(P("list", V("c"))), "v1", false}},
                               {"apply-two", VersionedSet{NS(P("list", V("b"))), "v1", false}}};
  run(test, extract_parser());
}

// extract_apply_empty_structure_map
TEST(SmdExtractApplyTest, ExtractApplyEmptyStructureMap) {
  TestCase test;
  test.ops = {
      ExtractApply{"apply-one", "v1", R"(
          map:
        )"},
      Apply{"apply-two", "v1", R"(
          map:
           a: c
           b: d
        )"},
  };
  test.object = R"(
    map:
      a: c
      b: d
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{{"apply-one", VersionedSet{NS(P("map")), "v1", false}},
                               {"apply-two", VersionedSet{NS(P("map", "a"), P("map", "b")), "v1", false}}};
  run(test, extract_parser());
}

// extract_apply_empty_structure_remove_map
TEST(SmdExtractApplyTest, ExtractApplyEmptyStructureRemoveMap) {
  TestCase test;
  test.ops = {
      ExtractApply{"apply-one", "v1", R"(
          map:
        )"},
      Apply{"apply-two", "v1", R"(
          map:
           a: c
           b: d
        )"},
      Apply{"apply-two", "v1", R"(
          map:
           b: d
        )"},
  };
  test.object = R"(
    map:
      b: d
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{{"apply-one", VersionedSet{NS(P("map")), "v1", false}},
                               {"apply-two", VersionedSet{NS(P("map", "b")), "v1", false}}};
  run(test, extract_parser());
}

// extract_apply_empty_structure_add_later_map
TEST(SmdExtractApplyTest, ExtractApplyEmptyStructureAddLaterMap) {
  TestCase test;
  test.ops = {
      ExtractApply{"apply-one", "v1", R"(
          map:
        )"},
      Apply{"apply-two", "v1", R"(
          map:
           a: c
           b: d
        )"},
      ExtractApply{"apply-one", "v1", R"(
          map:
            e: f
        )"},
      Apply{"apply-two", "v1", R"(
          map:
           b: d
        )"},
  };
  test.object = R"(
    map:
      b: d
      e: f
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{{"apply-one", VersionedSet{NS(P("map", "e")), "v1", false}},
                               {"apply-two", VersionedSet{NS(P("map", "b")), "v1", false}}};
  run(test, extract_parser());
}

// extract_apply_atomic_list
TEST(SmdExtractApplyTest, ExtractApplyAtomicList) {
  TestCase test;
  test.ops = {
      ExtractApply{"apply-one", "v1", R"(
          atomicList:
          - a
          - b
          - c
        )"},
  };
  test.object = R"(
    atomicList:
    - a
    - b
    - c
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{{"apply-one", VersionedSet{NS(P("atomicList")), "v1", false}}};
  run(test, extract_parser());
}

// extract_apply_atomic_map
TEST(SmdExtractApplyTest, ExtractApplyAtomicMap) {
  TestCase test;
  test.ops = {
      ExtractApply{"apply-one", "v1", R"(
          atomicMap:
           a: c
           b: d
        )"},
  };
  test.object = R"(
    atomicMap:
     a: c
     b: d
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{{"apply-one", VersionedSet{NS(P("atomicMap")), "v1", false}}};
  run(test, extract_parser());
}

}  // namespace
}  // namespace kapi::structured_merge::testing::update_extract_apply_test
