// Ported from structured-merge-diff v4.4.2's merge/set_test.go: each case runs its operations through the Updater
// (update_fixture.h) and checks the live object and the managers at the end.
#include "tests/unit/server/structured_merge/update_test_schemas.h"

#include <gtest/gtest.h>

namespace kapi::structured_merge::testing::update_set_test {
namespace {

// apply_twice
TEST(SmdSetTest, ApplyTwice) {
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
          - b
          - c
          - d
        )"},
  };
  test.object = R"(
    list:
    - a
    - b
    - c
    - d
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{
      {"default",
       VersionedSet{NS(P("list", V("a")), P("list", V("b")), P("list", V("c")), P("list", V("d"))), "v1", false}}};
  run(test, set_fields_parser());
}

// apply_update_apply_no_overlap
TEST(SmdSetTest, ApplyUpdateApplyNoOverlap) {
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
      Apply{"default", "v1", R"(
          list:
          - a
          - aprime
          - c
          - cprime
        )"},
  };
  test.object = R"(
    list:
    - a
    - b
    - aprime
    - c
    - d
    - cprime
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{
      {"default", VersionedSet{NS(P("list", V("a")), P("list", V("aprime")), P("list", V("c")), P("list", V("cprime"))),
                               "v1", false}},
      {"controller", VersionedSet{NS(P("list", V("b")), P("list", V("d"))), "v1", false}}};
  run(test, set_fields_parser());
}

// apply_update_apply_no_overlap_and_different_version
TEST(SmdSetTest, ApplyUpdateApplyNoOverlapAndDifferentVersion) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          list:
          - a
          - c
        )"},
      Update{"controller", "v2", R"(
          list:
          - a
          - b
          - c
          - d
        )"},
      Apply{"default", "v1", R"(
          list:
          - a
          - aprime
          - c
          - cprime
        )"},
  };
  test.object = R"(
    list:
    - a
    - b
    - aprime
    - c
    - d
    - cprime
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{
      {"default", VersionedSet{NS(P("list", V("a")), P("list", V("aprime")), P("list", V("c")), P("list", V("cprime"))),
                               "v1", false}},
      {"controller", VersionedSet{NS(P("list", V("b")), P("list", V("d"))), "v2", false}}};
  run(test, set_fields_parser());
}

// apply_update_apply_with_overlap
TEST(SmdSetTest, ApplyUpdateApplyWithOverlap) {
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
      Apply{"default", "v1", R"(
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
    - d
  )";
  test.api_version = "v1";
  test.managed =
      ManagedFields{{"default", VersionedSet{NS(P("list", V("a")), P("list", V("b")), P("list", V("c"))), "v1", false}},
                    {"controller", VersionedSet{NS(P("list", V("b")), P("list", V("d"))), "v1", false}}};
  run(test, set_fields_parser());
}

// apply_update_apply_with_overlap_and_different_version
TEST(SmdSetTest, ApplyUpdateApplyWithOverlapAndDifferentVersion) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          list:
          - a
          - c
        )"},
      Update{"controller", "v2", R"(
          list:
          - a
          - b
          - c
          - d
        )"},
      Apply{"default", "v1", R"(
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
    - d
  )";
  test.api_version = "v1";
  test.managed =
      ManagedFields{{"default", VersionedSet{NS(P("list", V("a")), P("list", V("b")), P("list", V("c"))), "v1", false}},
                    {"controller", VersionedSet{NS(P("list", V("b")), P("list", V("d"))), "v2", false}}};
  run(test, set_fields_parser());
}

// apply_twice_reorder
TEST(SmdSetTest, ApplyTwiceReorder) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          list:
          - a
          - b
          - c
          - d
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
  test.managed = ManagedFields{
      {"default",
       VersionedSet{NS(P("list", V("a")), P("list", V("b")), P("list", V("c")), P("list", V("d"))), "v1", false}}};
  run(test, set_fields_parser());
}

// apply_update_apply_reorder
TEST(SmdSetTest, ApplyUpdateApplyReorder) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          list:
          - a
          - b
          - c
          - d
        )"},
      Update{"controller", "v1", R"(
          list:
          - a
          - d
          - c
          - b
        )"},
      Apply{"default", "v1", R"(
          list:
          - a
          - b
          - c
          - d
        )"},
  };
  test.object = R"(
    list:
    - a
    - b
    - c
    - d
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{
      {"default",
       VersionedSet{NS(P("list", V("a")), P("list", V("b")), P("list", V("c")), P("list", V("d"))), "v1", false}}};
  run(test, set_fields_parser());
}

// apply_update_apply_reorder_across_versions
TEST(SmdSetTest, ApplyUpdateApplyReorderAcrossVersions) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          list:
          - a
          - b
          - c
          - d
        )"},
      Update{"controller", "v1", R"(
          list:
          - a
          - d
          - c
          - b
        )"},
      Apply{"default", "v2", R"(
          list:
          - a
          - b
          - c
          - d
        )"},
  };
  test.object = R"(
    list:
    - a
    - b
    - c
    - d
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{
      {"default",
       VersionedSet{NS(P("list", V("a")), P("list", V("b")), P("list", V("c")), P("list", V("d"))), "v2", false}}};
  run(test, set_fields_parser());
}

// apply_twice_remove
TEST(SmdSetTest, ApplyTwiceRemove) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          list:
          - a
          - b
          - c
          - d
        )"},
      Apply{"default", "v1", R"(
          list:
          - a
          - c
        )"},
  };
  test.object = R"(
    list:
    - a
    - c
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{{"default", VersionedSet{NS(P("list", V("a")), P("list", V("c"))), "v1", false}}};
  run(test, set_fields_parser());
}

// apply_twice_remove_across_versions
TEST(SmdSetTest, ApplyTwiceRemoveAcrossVersions) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          list:
          - a
          - b
          - c
          - d
        )"},
      Apply{"default", "v2", R"(
          list:
          - a
          - c
          - e
        )"},
  };
  test.object = R"(
    list:
    - a
    - c
    - e
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{
      {"default", VersionedSet{NS(P("list", V("a")), P("list", V("c")), P("list", V("e"))), "v2", false}}};
  run(test, set_fields_parser());
}

}  // namespace
}  // namespace kapi::structured_merge::testing::update_set_test
