// Ported from structured-merge-diff v4.4.2's merge/nested_test.go: each case runs its operations through the Updater
// (update_fixture.h) and checks the live object and the managers at the end.
#include "tests/unit/server/structured_merge/update_test_schemas.h"

#include <gtest/gtest.h>

namespace kapi::structured_merge::testing::update_nested_test {
namespace {

// listOfLists_change_value
TEST(SmdNestedTest, ListOfListsChangeValue) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          listOfLists:
          - name: a
            value:
            - b
            - c
        )"},
      Apply{"default", "v1", R"(
          listOfLists:
          - name: a
            value:
            - a
            - c
        )"},
  };
  test.object = R"(
    listOfLists:
    - name: a
      value:
      - a
      - c
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{
      {"default", VersionedSet{NS(P("listOfLists", KBF("name", "a")), P("listOfLists", KBF("name", "a"), "name"),
                                  P("listOfLists", KBF("name", "a"), "value", V("a")),
                                  P("listOfLists", KBF("name", "a"), "value", V("c"))),
                               "v1", false}}};
  run(test, nested_type_parser());
}

// listOfLists_change_key_and_value
TEST(SmdNestedTest, ListOfListsChangeKeyAndValue) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          listOfLists:
          - name: a
            value:
            - b
            - c
        )"},
      Apply{"default", "v1", R"(
          listOfLists:
          - name: b
            value:
            - a
            - c
        )"},
  };
  test.object = R"(
    listOfLists:
    - name: b
      value:
      - a
      - c
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{
      {"default", VersionedSet{NS(P("listOfLists", KBF("name", "b")), P("listOfLists", KBF("name", "b"), "name"),
                                  P("listOfLists", KBF("name", "b"), "value", V("a")),
                                  P("listOfLists", KBF("name", "b"), "value", V("c"))),
                               "v1", false}}};
  run(test, nested_type_parser());
}

// listOfMaps_change_value
TEST(SmdNestedTest, ListOfMapsChangeValue) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          listOfMaps:
          - name: a
            value:
              b: "x"
              c: "y"
        )"},
      Apply{"default", "v1", R"(
          listOfMaps:
          - name: a
            value:
              a: "x"
              c: "z"
        )"},
  };
  test.object = R"(
    listOfMaps:
    - name: a
      value:
        a: "x"
        c: "z"
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{
      {"default", VersionedSet{NS(P("listOfMaps", KBF("name", "a")), P("listOfMaps", KBF("name", "a"), "name"),
                                  P("listOfMaps", KBF("name", "a"), "value", "a"),
                                  P("listOfMaps", KBF("name", "a"), "value", "c")),
                               "v1", true}}};
  run(test, nested_type_parser());
}

// listOfMaps_change_key_and_value
TEST(SmdNestedTest, ListOfMapsChangeKeyAndValue) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          listOfMaps:
          - name: a
            value:
              b: "x"
              c: "y"
        )"},
      Apply{"default", "v1", R"(
          listOfMaps:
          - name: b
            value:
              a: "x"
              c: "z"
        )"},
  };
  test.object = R"(
    listOfMaps:
    - name: b
      value:
        a: "x"
        c: "z"
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{
      {"default", VersionedSet{NS(P("listOfMaps", KBF("name", "b")), P("listOfMaps", KBF("name", "b"), "name"),
                                  P("listOfMaps", KBF("name", "b"), "value", "a"),
                                  P("listOfMaps", KBF("name", "b"), "value", "c")),
                               "v1", false}}};
  run(test, nested_type_parser());
}

// mapOfLists_change_value
TEST(SmdNestedTest, MapOfListsChangeValue) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          mapOfLists:
            a:
            - b
            - c
        )"},
      Apply{"default", "v1", R"(
          mapOfLists:
            a:
            - a
            - c
        )"},
  };
  test.object = R"(
    mapOfLists:
      a:
      - a
      - c
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{
      {"default",
       VersionedSet{NS(P("mapOfLists", "a"), P("mapOfLists", "a", V("a")), P("mapOfLists", "a", V("c"))), "v1", true}}};
  run(test, nested_type_parser());
}

// mapOfLists_change_key_and_value
TEST(SmdNestedTest, MapOfListsChangeKeyAndValue) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          mapOfLists:
            a:
            - b
            - c
        )"},
      Apply{"default", "v1", R"(
          mapOfLists:
            b:
            - a
            - c
        )"},
  };
  test.object = R"(
    mapOfLists:
      b:
      - a
      - c
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{
      {"default", VersionedSet{NS(P("mapOfLists", "b"), P("mapOfLists", "b", V("a")), P("mapOfLists", "b", V("c"))),
                               "v1", false}}};
  run(test, nested_type_parser());
}

// mapOfMaps_change_value
TEST(SmdNestedTest, MapOfMapsChangeValue) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          mapOfMaps:
            a:
              b: "x"
              c: "y"
        )"},
      Apply{"default", "v1", R"(
          mapOfMaps:
            a:
              a: "x"
              c: "z"
        )"},
  };
  test.object = R"(
    mapOfMaps:
      a:
        a: "x"
        c: "z"
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{
      {"default",
       VersionedSet{NS(P("mapOfMaps", "a"), P("mapOfMaps", "a", "a"), P("mapOfMaps", "a", "c")), "v1", false}}};
  run(test, nested_type_parser());
}

// mapOfMaps_change_key_and_value
TEST(SmdNestedTest, MapOfMapsChangeKeyAndValue) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          mapOfMaps:
            a:
              b: "x"
              c: "y"
        )"},
      Apply{"default", "v1", R"(
          mapOfMaps:
            b:
              a: "x"
              c: "z"
        )"},
  };
  test.object = R"(
    mapOfMaps:
      b:
        a: "x"
        c: "z"
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{
      {"default",
       VersionedSet{NS(P("mapOfMaps", "b"), P("mapOfMaps", "b", "a"), P("mapOfMaps", "b", "c")), "v1", false}}};
  run(test, nested_type_parser());
}

// mapOfMapsRecursive_change_middle_key
TEST(SmdNestedTest, MapOfMapsRecursiveChangeMiddleKey) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          mapOfMapsRecursive:
            a:
              b:
                c:
        )"},
      Apply{"default", "v1", R"(
          mapOfMapsRecursive:
            a:
              d:
                c:
        )"},
  };
  test.object = R"(
    mapOfMapsRecursive:
      a:
        d:
          c:
  )";
  test.api_version = "v1";
  test.managed =
      ManagedFields{{"default", VersionedSet{NS(P("mapOfMapsRecursive", "a"), P("mapOfMapsRecursive", "a", "d"),
                                                P("mapOfMapsRecursive", "a", "d", "c")),
                                             "v1", false}}};
  run(test, nested_type_parser());
}

// struct_apply_remove_all
TEST(SmdNestedTest, StructApplyRemoveAll) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          struct:
            name: a
            value: 1
        )"},
      Apply{"default", "v1", ""},
  };
  test.object = "";
  test.api_version = "v1";
  test.managed = ManagedFields{};
  run(test, nested_type_parser());
}

// struct_apply_remove_dangling
TEST(SmdNestedTest, StructApplyRemoveDangling) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          struct:
            name: a
        )"},
      Apply{"default", "v1", R"(
          struct:
        )"},
  };
  test.object = R"(
    struct:
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{{"default", VersionedSet{NS(P("struct")), "v1", true}}};
  run(test, nested_type_parser());
}

// struct_apply_update_remove_all
TEST(SmdNestedTest, StructApplyUpdateRemoveAll) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          struct:
            name: a
        )"},
      Update{"controller", "v1", R"(
          struct:
            name: a
            value: 1
        )"},
      Apply{"default", "v1", ""},
  };
  test.object = R"(
    struct:
      value: 1
  )";
  test.api_version = "v1";
  run(test, nested_type_parser());
}

// struct_apply_update_dict_dangling
TEST(SmdNestedTest, StructApplyUpdateDictDangling) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          struct:
            name: a
        )"},
      Update{"controller", "v1", R"(
          struct:
            name: a
            value: 1
        )"},
      Apply{"default", "v1", R"(
          struct: {}
        )"},
  };
  test.object = R"(
    struct:
      value: 1
  )";
  test.api_version = "v1";
  run(test, nested_type_parser());
}

// struct_apply_update_dict_null
TEST(SmdNestedTest, StructApplyUpdateDictNull) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          struct:
            name: a
        )"},
      Update{"controller", "v1", R"(
          struct:
            name: a
            value: 1
        )"},
      Apply{"default", "v1", R"(
          struct:
        )"},
  };
  test.object = R"(
    struct:
      value: 1
  )";
  test.api_version = "v1";
  run(test, nested_type_parser());
}

// struct_apply_update_took_over
TEST(SmdNestedTest, StructApplyUpdateTookOver) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          struct:
            name: a
        )"},
      Update{"controller", "v1", R"(
          struct:
            name: b
            value: 1
        )"},
      Apply{"default", "v1", R"(
          struct:
        )"},
  };
  test.object = R"(
    struct:
      name: b
      value: 1
  )";
  test.api_version = "v1";
  run(test, nested_type_parser());
}

}  // namespace
}  // namespace kapi::structured_merge::testing::update_nested_test
