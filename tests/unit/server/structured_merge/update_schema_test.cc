// Ported from structured-merge-diff v4.4.2's merge/preserve_unknown_test.go, merge/field_level_overrides_test.go,
// merge/schema_change_test.go and merge/ignore_test.go: each case runs its operations through the Updater
// (update_fixture.h) and checks the live object and the managers at the end.
#include "tests/unit/server/structured_merge/update_test_schemas.h"

#include <gtest/gtest.h>

namespace kapi::structured_merge::testing::update_schema_test {
namespace {

// preserve_unknown_fields
TEST(SmdPreserveUnknownTest, PreserveUnknownFields) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          num: 5
          unknown: value
        )"},
      Apply{"default", "v1", R"(
          num: 6
          unknown: new
        )"},
  };
  test.object = R"(
    num: 6
    unknown: new
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{{"default", VersionedSet{NS(P("num"), P("unknown")), "v1", false}}};
  run(test, preserve_unknown_parser());
}

// test_override_atomic_map_with_separable
TEST(SmdFieldLevelOverridesTest, TestOverrideAtomicMapWithSeparable) {
  TestCase test;
  test.ops = {
      Apply{"apply_one", "v1", R"(
                                  separableMapReference:
                                    name: a
        )"},
      Apply{"apply_two", "v1", R"(
                                  separableMapReference:
                                    value: 2
        )"},
  };
  test.object = R"(
                    separableMapReference:
                      name: a
                      value: 2
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{{"apply_one", VersionedSet{NS(P("separableMapReference", "name")), "v1", false}},
                               {"apply_two", VersionedSet{NS(P("separableMapReference", "value")), "v1", false}}};
  run(test, override_struct_type_parser());
}

// test_override_unspecified_map_with_atomic
TEST(SmdFieldLevelOverridesTest, TestOverrideUnspecifiedMapWithAtomic) {
  TestCase test;
  test.ops = {
      Apply{"apply_one", "v1", R"(
                                  atomicMapReference:
                                    name: a
        )"},
      Apply{"apply_two", "v1", R"(
                                  atomicMapReference:
                                    value: 2
        )",
            std::vector<Conflict>{Conflict{"apply_one", P("atomicMapReference")}}},
      Apply{"apply_one", "v1", R"(
                                  atomicMapReference:
                                    name: b
                                    value: 2
        )"},
  };
  test.object = R"(
                    atomicMapReference:
                      name: b
                      value: 2
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{{"apply_one", VersionedSet{NS(P("atomicMapReference")), "v1", false}}};
  run(test, override_struct_type_parser());
}

// test_override_associative_list_with_atomic
TEST(SmdFieldLevelOverridesTest, TestOverrideAssociativeListWithAtomic) {
  TestCase test;
  test.ops = {
      Apply{"apply_one", "v1", R"(
                                  associativeListReference:
                                    - name: a
                                      value: 1
        )"},
      Apply{"apply_two", "v1", R"(
                                  associativeListReference:
                                  - name: b
                                    value: 2
        )",
            std::vector<Conflict>{Conflict{"apply_one", P("associativeListReference")}}},
  };
  test.object = R"(
                    associativeListReference:
                      - name: a
                        value: 1
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{{"apply_one", VersionedSet{NS(P("associativeListReference")), "v1", false}}};
  run(test, override_struct_type_parser());
}

// test_override_inline_atomic_list_with_associative
TEST(SmdFieldLevelOverridesTest, TestOverrideInlineAtomicListWithAssociative) {
  TestCase test;
  test.ops = {
      Apply{"apply_one", "v1", R"(
                                  separableInlineList:
                                  - 1
        )"},
      Apply{"apply_two", "v1", R"(
                                  separableInlineList:
                                  - 2
        )"},
  };
  test.object = R"(
                    separableInlineList:
                    - 1
                    - 2
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{{"apply_one", VersionedSet{NS(P("separableInlineList", V(1))), "v1", true}},
                               {"apply_two", VersionedSet{NS(P("separableInlineList", V(2))), "v1", true}}};
  run(test, override_struct_type_parser());
}

// to-atomic
TEST(SmdGranularToAtomicTest, ToAtomic) {
  TestCase test;
  test.ops = {
      Apply{"one", "v1", R"(
          struct:
            numeric: 1
        )"},
      ChangeParser{&struct_with_atomic_parser()},
      Apply{"two", "v1", R"(
          struct:
            string: "string"
        )",
            std::vector<Conflict>{Conflict{"one", P("struct")}}},
      ForceApply{"two", "v1", R"(
          struct:
            string: "string"
        )"},
  };
  test.object = R"(
    struct:
      string: "string"
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{{"two", VersionedSet{NS(P("struct")), "v1", true}}};
  run(test, struct_parser());
}

// to-atomic-owner-with-no-child-fields
TEST(SmdGranularToAtomicTest, ToAtomicOwnerWithNoChildFields) {
  TestCase test;
  test.ops = {
      Apply{"one", "v1", R"(
          struct:
            numeric: 1
        )"},
      ForceApply{"two", "v1", R"(
          struct:
            numeric: 2
        )"},
      ChangeParser{&struct_with_atomic_parser()},
      Apply{"three", "v1", R"(
          struct:
            string: "string"
        )",
            std::vector<Conflict>{Conflict{"two", P("struct")}}},
      ForceApply{"two", "v1", R"(
          struct:
            string: "string"
        )"},
  };
  test.object = R"(
    struct:
      string: "string"
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{{"two", VersionedSet{NS(P("struct")), "v1", true}}};
  run(test, struct_parser());
}

// to-granular
TEST(SmdAtomicToGranularTest, ToGranular) {
  TestCase test;
  test.ops = {
      Apply{"one", "v1", R"(
          struct:
            numeric: 1
            string: "a"
        )"},
      Apply{"two", "v1", R"(
          struct:
            string: "b"
        )",
            std::vector<Conflict>{Conflict{"one", P("struct")}}},
      ChangeParser{&struct_parser()},
      Apply{"two", "v1", R"(
          struct:
            string: "b"
        )"},
  };
  test.object = R"(
    struct:
      numeric: 1
      string: "b"
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{{"one", VersionedSet{NS(P("struct")), "v1", true}},
                               {"two", VersionedSet{NS(P("struct", "string")), "v1", true}}};
  run(test, struct_with_atomic_parser());
}

// update_does_not_own_ignored
TEST(SmdIgnoredFieldsTest, UpdateDoesNotOwnIgnored) {
  TestCase test;
  test.ops = {
      Update{"default", "v1", R"(
          numeric: 1
          string: "some string"
        )"},
  };
  test.object = R"(
    numeric: 1
    string: "some string"
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{{"default", VersionedSet{NS(P("numeric")), "v1", false}}};
  test.ignored_fields = {{"v1", NS(P("string"))}};
  run(test, deduced_parser());
}

// update_does_not_own_deep_ignored
TEST(SmdIgnoredFieldsTest, UpdateDoesNotOwnDeepIgnored) {
  TestCase test;
  test.ops = {
      Update{"default", "v1", R"(
          {"numeric": 1, "obj": {"string": "foo", "numeric": 2}}
        )"},
  };
  test.object = R"(
    {"numeric": 1, "obj": {"string": "foo", "numeric": 2}}
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{{"default", VersionedSet{NS(P("numeric")), "v1", false}}};
  test.ignored_fields = {{"v1", NS(P("obj"))}};
  run(test, deduced_parser());
}

// apply_does_not_own_ignored
TEST(SmdIgnoredFieldsTest, ApplyDoesNotOwnIgnored) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          numeric: 1
          string: "some string"
        )"},
  };
  test.object = R"(
    numeric: 1
    string: "some string"
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{{"default", VersionedSet{NS(P("numeric")), "v1", true}}};
  test.ignored_fields = {{"v1", NS(P("string"))}};
  run(test, deduced_parser());
}

// apply_does_not_own_deep_ignored
TEST(SmdIgnoredFieldsTest, ApplyDoesNotOwnDeepIgnored) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          {"numeric": 1, "obj": {"string": "foo", "numeric": 2}}
        )"},
  };
  test.object = R"(
    {"numeric": 1, "obj": {"string": "foo", "numeric": 2}}
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{{"default", VersionedSet{NS(P("numeric")), "v1", true}}};
  test.ignored_fields = {{"v1", NS(P("obj"))}};
  run(test, deduced_parser());
}

// does_use_ignored_fields_versions
TEST(SmdFilteredFieldsUsesVersionsTest, DoesUseIgnoredFieldsVersions) {
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
            aa:
            cc:
              dd:
        )"},
      Apply{"apply-one", "v4", R"(
          mapOfMapsRecursive:
        )"},
  };
  test.object = R"(
    mapOfMapsRecursive:
      aaaa:
      cccc:
        dddd:
  )";
  test.api_version = "v4";
  test.managed = ManagedFields{{"apply-one", VersionedSet{NS(P("mapOfMapsRecursive")), "v4", false}},
                               {"apply-two", VersionedSet{NS(P("mapOfMapsRecursive", "aa")), "v2", false}}};
  test.ignored_fields = {{"v1", NS(P("mapOfMapsRecursive", "c"))},
                         {"v2", NS(P("mapOfMapsRecursive", "cc"))},
                         {"v3", NS(P("mapOfMapsRecursive", "ccc"))},
                         {"v4", NS(P("mapOfMapsRecursive", "cccc"))}};
  run(test, nested_type_parser(), RepeatingConverter(nested_type_parser()));
}

// update_does_not_steal_ignored
TEST(SmdFilteredFieldsUsesVersionsTest, UpdateDoesNotStealIgnored) {
  TestCase test;
  test.ops = {
      Update{"update-one", "v1", R"(
          mapOfMapsRecursive:
            a:
              b:
            c:
              d:
        )"},
      Update{"update-two", "v2", R"(
          mapOfMapsRecursive:
            a:
              b:
            c:
              e:
        )"},
  };
  test.object = R"(
    mapOfMapsRecursive:
      a:
        b:
      c:
        e:
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{
      {"update-one", VersionedSet{NS(P("mapOfMapsRecursive"), P("mapOfMapsRecursive", "a"),
                                     P("mapOfMapsRecursive", "a", "b"), P("mapOfMapsRecursive", "c")),
                                  "v1", false}},
      {"update-two", VersionedSet{NS(P("mapOfMapsRecursive", "a"), P("mapOfMapsRecursive", "a", "b")), "v2", false}}};
  test.ignored_fields = {{"v2", NS(P("mapOfMapsRecursive", "c"))}};
  run(test, nested_type_parser(), RepeatingConverter(nested_type_parser()));
}

// apply_does_not_steal_ignored
TEST(SmdFilteredFieldsUsesVersionsTest, ApplyDoesNotStealIgnored) {
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
              b:
            c:
              e:
        )"},
  };
  test.object = R"(
    mapOfMapsRecursive:
      a:
        b:
      c:
        d:
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{
      {"apply-one", VersionedSet{NS(P("mapOfMapsRecursive", "a"), P("mapOfMapsRecursive", "a", "b"),
                                    P("mapOfMapsRecursive", "c"), P("mapOfMapsRecursive", "c", "d")),
                                 "v1", false}},
      {"apply-two", VersionedSet{NS(P("mapOfMapsRecursive", "a"), P("mapOfMapsRecursive", "a", "b")), "v2", false}}};
  test.ignored_fields = {{"v2", NS(P("mapOfMapsRecursive", "c"))}};
  run(test, nested_type_parser(), RepeatingConverter(nested_type_parser()));
}

}  // namespace
}  // namespace kapi::structured_merge::testing::update_schema_test
