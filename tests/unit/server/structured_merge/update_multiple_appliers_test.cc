// Ported from structured-merge-diff v4.4.2's merge/multiple_appliers_test.go: each case runs its operations through the
// Updater (update_fixture.h) and checks the live object and the managers at the end.
#include "tests/unit/server/structured_merge/update_test_schemas.h"

#include <gtest/gtest.h>

namespace kapi::structured_merge::testing::update_multiple_appliers_test {
namespace {

// remove_one
TEST(SmdMultipleAppliersSetTest, RemoveOne) {
  TestCase test;
  test.ops = {
      Apply{"apply-one", "v1", R"(
          list:
          - name: a
          - name: b
        )"},
      Apply{"apply-two", "v2", R"(
          list:
          - name: c
        )"},
      Apply{"apply-one", "v3", R"(
          list:
          - name: a
        )"},
  };
  test.object = R"(
    list:
    - name: a
    - name: c
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{
      {"apply-one", VersionedSet{NS(P("list", KBF("name", "a")), P("list", KBF("name", "a"), "name")), "v3", false}},
      {"apply-two", VersionedSet{NS(P("list", KBF("name", "c")), P("list", KBF("name", "c"), "name")), "v2", false}}};
  run(test, associative_list_parser());
}

// same_value_no_conflict
TEST(SmdMultipleAppliersSetTest, SameValueNoConflict) {
  TestCase test;
  test.ops = {
      Apply{"apply-one", "v1", R"(
          list:
          - name: a
            value: 0
        )"},
      Apply{"apply-two", "v2", R"(
          list:
          - name: a
            value: 0
        )"},
  };
  test.object = R"(
    list:
    - name: a
      value: 0
  )";
  test.api_version = "v1";
  test.managed =
      ManagedFields{{"apply-one", VersionedSet{NS(P("list", KBF("name", "a")), P("list", KBF("name", "a"), "name"),
                                                  P("list", KBF("name", "a"), "value")),
                                               "v1", false}},
                    {"apply-two", VersionedSet{NS(P("list", KBF("name", "a")), P("list", KBF("name", "a"), "name"),
                                                  P("list", KBF("name", "a"), "value")),
                                               "v2", false}}};
  run(test, associative_list_parser());
}

// change_value_yes_conflict
TEST(SmdMultipleAppliersSetTest, ChangeValueYesConflict) {
  TestCase test;
  test.ops = {
      Apply{"apply-one", "v1", R"(
          list:
          - name: a
            value: 0
        )"},
      Apply{"apply-two", "v2", R"(
          list:
          - name: a
            value: 1
        )",
            std::vector<Conflict>{Conflict{"apply-one", P("list", KBF("name", "a"), "value")}}},
  };
  test.object = R"(
    list:
    - name: a
      value: 0
  )";
  test.api_version = "v1";
  test.managed =
      ManagedFields{{"apply-one", VersionedSet{NS(P("list", KBF("name", "a")), P("list", KBF("name", "a"), "name"),
                                                  P("list", KBF("name", "a"), "value")),
                                               "v1", false}}};
  run(test, associative_list_parser());
}

// remove_one_keep_one
TEST(SmdMultipleAppliersSetTest, RemoveOneKeepOne) {
  TestCase test;
  test.ops = {
      Apply{"apply-one", "v1", R"(
          list:
          - name: a
          - name: b
          - name: c
        )"},
      Apply{"apply-two", "v2", R"(
          list:
          - name: c
          - name: d
        )"},
      Apply{"apply-one", "v3", R"(
          list:
          - name: a
        )"},
  };
  test.object = R"(
    list:
    - name: a
    - name: c
    - name: d
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{
      {"apply-one", VersionedSet{NS(P("list", KBF("name", "a")), P("list", KBF("name", "a"), "name")), "v3", false}},
      {"apply-two", VersionedSet{NS(P("list", KBF("name", "c")), P("list", KBF("name", "d")),
                                    P("list", KBF("name", "c"), "name"), P("list", KBF("name", "d"), "name")),
                                 "v2", false}}};
  run(test, associative_list_parser());
}

// remove_one_keep_one_with_two_sub_items
TEST(SmdMultipleAppliersNestedTest, RemoveOneKeepOneWithTwoSubItems) {
  TestCase test;
  test.ops = {
      Apply{"apply-one", "v1", R"(
          listOfLists:
          - name: a
          - name: b
            value:
            - c
        )"},
      Apply{"apply-two", "v2", R"(
          listOfLists:
          - name: b
            value:
            - d
        )"},
      Apply{"apply-one", "v3", R"(
          listOfLists:
          - name: a
        )"},
  };
  test.object = R"(
    listOfLists:
    - name: a
    - name: b
      value:
      - d
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{
      {"apply-one",
       VersionedSet{NS(P("listOfLists", KBF("name", "a")), P("listOfLists", KBF("name", "a"), "name")), "v3", false}},
      {"apply-two", VersionedSet{NS(P("listOfLists", KBF("name", "b")), P("listOfLists", KBF("name", "b"), "name"),
                                    P("listOfLists", KBF("name", "b"), "value", V("d"))),
                                 "v2", false}}};
  run(test, nested_type_parser());
}

// remove_one_keep_one_with_dangling_subitem
TEST(SmdMultipleAppliersNestedTest, RemoveOneKeepOneWithDanglingSubitem) {
  TestCase test;
  test.ops = {
      Apply{"apply-one", "v1", R"(
          listOfLists:
          - name: a
          - name: b
            value:
            - c
        )"},
      Apply{"apply-two", "v2", R"(
          listOfLists:
          - name: b
            value:
            - d
        )"},
      Update{"controller", "v2", R"(
          listOfLists:
          - name: a
          - name: b
            value:
            - c
            - d
            - e
        )"},
      Apply{"apply-one", "v3", R"(
          listOfLists:
          - name: a
        )"},
  };
  test.object = R"(
    listOfLists:
    - name: a
    - name: b
      value:
      - d
      - e
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{
      {"apply-one",
       VersionedSet{NS(P("listOfLists", KBF("name", "a")), P("listOfLists", KBF("name", "a"), "name")), "v3", false}},
      {"apply-two", VersionedSet{NS(P("listOfLists", KBF("name", "b")), P("listOfLists", KBF("name", "b"), "name"),
                                    P("listOfLists", KBF("name", "b"), "value", V("d"))),
                                 "v2", false}},
      {"controller", VersionedSet{NS(P("listOfLists", KBF("name", "b"), "value", V("e"))), "v2", false}}};
  run(test, nested_type_parser());
}

// remove_one_with_dangling_subitem_keep_one
TEST(SmdMultipleAppliersNestedTest, RemoveOneWithDanglingSubitemKeepOne) {
  TestCase test;
  test.ops = {
      Apply{"apply-one", "v1", R"(
          listOfLists:
          - name: a
          - name: b
            value:
            - c
        )"},
      Apply{"apply-two", "v2", R"(
          listOfLists:
          - name: a
            value:
            - b
        )"},
      Update{"controller", "v2", R"(
          listOfLists:
          - name: a
            value:
            - b
          - name: b
            value:
            - c
            - d
        )"},
      Apply{"apply-one", "v3", R"(
          listOfLists:
          - name: a
        )"},
  };
  test.object = R"(
    listOfLists:
    - name: a
      value:
      - b
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{
      {"apply-one",
       VersionedSet{NS(P("listOfLists", KBF("name", "a")), P("listOfLists", KBF("name", "a"), "name")), "v3", false}},
      {"apply-two", VersionedSet{NS(P("listOfLists", KBF("name", "a")), P("listOfLists", KBF("name", "a"), "name"),
                                    P("listOfLists", KBF("name", "a"), "value", V("b"))),
                                 "v2", false}}};
  run(test, nested_type_parser());
}

// remove_one_with_managed_subitem_keep_one
TEST(SmdMultipleAppliersNestedTest, RemoveOneWithManagedSubitemKeepOne) {
  TestCase test;
  test.ops = {
      Apply{"apply-one", "v1", R"(
          listOfLists:
          - name: a
          - name: b
            value:
            - c
        )"},
      Apply{"apply-two", "v2", R"(
          listOfLists:
          - name: a
            value:
            - b
        )"},
      Update{"controller", "v2", R"(
          listOfLists:
          - name: a
            value:
            - b
          - name: b
            value:
            - c
            - d
        )"},
      Apply{"apply-one", "v3", R"(
          listOfLists:
          - name: a
        )"},
  };
  test.object = R"(
    listOfLists:
    - name: a
      value:
      - b
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{
      {"apply-one",
       VersionedSet{NS(P("listOfLists", KBF("name", "a")), P("listOfLists", KBF("name", "a"), "name")), "v3", false}},
      {"apply-two", VersionedSet{NS(P("listOfLists", KBF("name", "a")), P("listOfLists", KBF("name", "a"), "name"),
                                    P("listOfLists", KBF("name", "a"), "value", V("b"))),
                                 "v2", false}}};
  run(test, nested_type_parser());
}

// remove_one_keep_one_with_sub_item
TEST(SmdMultipleAppliersNestedTest, RemoveOneKeepOneWithSubItem) {
  TestCase test;
  test.ops = {
      Apply{"apply-one", "v1", R"(
          listOfLists:
          - name: a
          - name: b
            value:
            - c
        )"},
      Apply{"apply-two", "v2", R"(
          listOfLists:
          - name: b
            value:
            - d
        )"},
      Apply{"apply-one", "v3", R"(
          listOfLists:
          - name: a
        )"},
  };
  test.object = R"(
    listOfLists:
    - name: a
    - name: b
      value:
      - d
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{
      {"apply-one",
       VersionedSet{NS(P("listOfLists", KBF("name", "a")), P("listOfLists", KBF("name", "a"), "name")), "v3", false}},
      {"apply-two", VersionedSet{NS(P("listOfLists", KBF("name", "b")), P("listOfLists", KBF("name", "b"), "name"),
                                    P("listOfLists", KBF("name", "b"), "value", V("d"))),
                                 "v2", false}}};
  run(test, nested_type_parser());
}

// multiple_appliers_recursive_map
TEST(SmdMultipleAppliersNestedTest, MultipleAppliersRecursiveMap) {
  TestCase test;
  test.ops = {
      Apply{"apply-one", "v1", R"(
          mapOfMapsRecursive:
            a:
              b:
            c:
              d:
        )"},
      Apply{"apply-two", "v2", R"(
          mapOfMapsRecursive:
            a:
            c:
              d:
        )"},
      Update{"controller-one", "v3", R"(
          mapOfMapsRecursive:
            a:
              b:
                c:
            c:
              d:
                e:
        )"},
      Update{"controller-two", "v2", R"(
          mapOfMapsRecursive:
            a:
              b:
                c:
                  d:
            c:
              d:
                e:
                  f:
        )"},
      Update{"controller-one", "v3", R"(
          mapOfMapsRecursive:
            a:
              b:
                c:
                  d:
                    e:
            c:
              d:
                e:
                  f:
                    g:
        )"},
      Apply{"apply-one", "v4", R"(
          mapOfMapsRecursive:
        )"},
  };
  test.object = R"(
    mapOfMapsRecursive:
      a:
      c:
        d:
          e:
            f:
              g:
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{
      {"apply-one", VersionedSet{NS(P("mapOfMapsRecursive")), "v4", false}},
      {"apply-two",
       VersionedSet{NS(P("mapOfMapsRecursive", "a"), P("mapOfMapsRecursive", "c"), P("mapOfMapsRecursive", "c", "d")),
                    "v2", false}},
      {"controller-one",
       VersionedSet{NS(P("mapOfMapsRecursive", "c", "d", "e"), P("mapOfMapsRecursive", "c", "d", "e", "f", "g")), "v3",
                    false}},
      {"controller-two", VersionedSet{NS(P("mapOfMapsRecursive", "c", "d", "e", "f")), "v2", false}}};
  run(test, nested_type_parser());
}

// multiple_appliers_recursive_map_deduced
TEST(SmdMultipleAppliersDeducedTest, MultipleAppliersRecursiveMapDeduced) {
  TestCase test;
  test.ops = {
      Apply{"apply-one", "v1", R"(
          a:
            b:
          c:
            d:
        )"},
      Apply{"apply-two", "v2", R"(
          a:
          c:
            d:
        )"},
      Update{"controller-one", "v3", R"(
          a:
            b:
              c:
          c:
            d:
              e:
        )"},
      Update{"controller-two", "v2", R"(
          a:
            b:
              c:
                d:
          c:
            d:
              e:
                f:
        )"},
      Update{"controller-one", "v3", R"(
          a:
            b:
              c:
                d:
                  e:
          c:
            d:
              e:
                f:
                  g:
        )"},
      Apply{"apply-one", "v4", ""},
  };
  test.object = R"(
    a:
    c:
      d:
        e:
          f:
            g:
  )";
  test.api_version = "v1";
  test.managed =
      ManagedFields{{"apply-two", VersionedSet{NS(P("a"), P("c"), P("c", "d")), "v2", false}},
                    {"controller-one", VersionedSet{NS(P("c", "d", "e"), P("c", "d", "e", "f", "g")), "v3", false}},
                    {"controller-two", VersionedSet{NS(P("c", "d", "e", "f")), "v2", false}}};
  run(test, deduced_parser());
}

// force
TEST(SmdMultipleAppliersAtomicMapTest, Force) {
  TestCase test;
  test.ops = {
      Apply{"apply-one", "v1", R"(
          atomicMap:
            field1: a
        )"},
      Apply{"apply-two", "v1", R"(
          atomicMap:
            field2: b
        )",
            std::vector<Conflict>{Conflict{"apply-one", P("atomicMap")}}},
      ForceApply{"apply-two", "v1", R"(
          atomicMap:
            field2: b
        )"},
  };
  test.object = R"(
    atomicMap:
      field2: b
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{{"apply-two", VersionedSet{NS(P("atomicMap")), "v1", false}}};
  run(test, atomic_map_parser());
}

}  // namespace
}  // namespace kapi::structured_merge::testing::update_multiple_appliers_test
