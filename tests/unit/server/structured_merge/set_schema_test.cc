// Field sets read against a schema: smd v4.4.2's fieldpath TestEnsureNamedFieldsAreMembers and typed
// TestReconcileFieldSetWithSchema.
#include "server/structured_merge/set_schema.h"

#include "tests/unit/server/structured_merge/smd_schema_yaml.h"
#include "tests/unit/server/structured_merge/update_fixture.h"

#include <gtest/gtest.h>

#include <optional>
#include <string_view>

namespace kapi::structured_merge::testing::set_schema_test {
namespace {

using structured_merge::detail::ensure_named_fields_are_members;
using structured_merge::detail::reconcile_field_set_with_schema;

// smd's test spells elementRelationship "elementRelationShip", which leaves the list atomic; keys still descend.
constexpr std::string_view kNestedSchema = R"(types:
- name: type
  map:
    elementType:
      namedType: type
    fields:
      - name: named
        type:
          namedType: type
      - name: list
        type:
          list:
            keys: ["name"]
            elementType:
              namedType: type
      - name: value
        type:
          scalar: numeric
)";

TEST(SmdEnsureNamedFieldsAreMembersTest, NamedFieldsOnTheWayBecomeMembers) {
  Schema schema = schema_from_yaml(kNestedSchema);
  TypeRef type = schema.find("type");
  EXPECT_EQ(ensure_named_fields_are_members(NS(P("named", "named", "value")), type),
            NS(P("named", "named", "value"), P("named", "named"), P("named")));
}

TEST(SmdEnsureNamedFieldsAreMembersTest, MapMembersDoNot) {
  Schema schema = schema_from_yaml(kNestedSchema);
  TypeRef type = schema.find("type");
  EXPECT_EQ(ensure_named_fields_are_members(
                NS(P("named", "a", "named", "value"), P("a", "named", "value"), P("a", "b", "value")), type),
            NS(P("named", "a", "named", "value"), P("named", "a", "named"), P("named"), P("a", "named", "value"),
               P("a", "named"), P("a", "b", "value")));
}

TEST(SmdEnsureNamedFieldsAreMembersTest, ListItemsByKeyAreReadWithTheItemType) {
  Schema schema = schema_from_yaml(kNestedSchema);
  TypeRef type = schema.find("type");
  EXPECT_EQ(ensure_named_fields_are_members(NS(P("named", "list", KBF("name", "a"), "named", "a", "value")), type),
            NS(P("named", "list", KBF("name", "a"), "named", "a", "value"),
               P("named", "list", KBF("name", "a"), "named"), P("named", "list"), P("named")));
}

constexpr std::string_view kGranularSchema = R"(types:
- name: v1
  map:
    fields:
      - name: struct
        type:
          namedType: struct
      - name: list
        type:
          namedType: list
      - name: objectList
        type:
          namedType: objectList
      - name: stringMap
        type:
          namedType: stringMap
      - name: unchanged
        type:
          namedType: unchanged
- name: struct
  map:
    fields:
    - name: numeric
      type:
        scalar: numeric
    - name: string
      type:
        scalar: string
- name: list
  list:
    elementType:
      scalar: string
    elementRelationship: associative
- name: objectList
  list:
    elementType:
      namedType: listItem
    elementRelationship: associative
    keys:
      - keyA
      - keyB
- name: listItem
  map:
    fields:
    - name: keyA
      type:
        scalar: string
    - name: keyB
      type:
        scalar: string
    - name: value
      type:
        scalar: string
- name: stringMap
  map:
    elementType:
      scalar: string
- name: unchanged
  map:
    fields:
    - name: numeric
      type:
        scalar: numeric
- name: empty
  map:
    elementType:
      scalar: untyped
      list:
        elementType:
          namedType: __untyped_atomic_
        elementRelationship: atomic
      map:
        elementType:
          namedType: __untyped_deduced_
        elementRelationship: separable
- name: emptyWithPreserveUnknown
  map:
    fields:
    - name: preserveField
      type:
        map:
          elementType:
            scalar: untyped
            list:
              elementType:
                namedType: __untyped_atomic_
              elementRelationship: atomic
            map:
              elementType:
                namedType: __untyped_deduced_
              elementRelationship: separable
- name: populatedWithPreserveUnknown
  map:
    fields:
    - name: preserveField
      type:
        map:
          fields:
          - name: list
            type:
              namedType: list
          elementType:
            namedType: __untyped_deduced_
- name: __untyped_atomic_
  scalar: untyped
  list:
    elementType:
      namedType: __untyped_atomic_
    elementRelationship: atomic
  map:
    elementType:
      namedType: __untyped_atomic_
    elementRelationship: atomic
- name: __untyped_deduced_
  scalar: untyped
  list:
    elementType:
      namedType: __untyped_atomic_
    elementRelationship: atomic
  map:
    elementType:
      namedType: __untyped_deduced_
    elementRelationship: separable
)";

constexpr std::string_view kAtomicSchema = R"(types:
- name: v1
  map:
    fields:
      - name: struct
        type:
          namedType: struct
      - name: list
        type:
          namedType: list
      - name: objectList
        type:
          namedType: objectList
      - name: stringMap
        type:
          namedType: stringMap
      - name: unchanged
        type:
          namedType: unchanged
- name: struct
  map:
    fields:
    - name: numeric
      type:
        scalar: numeric
    - name: string
      type:
        scalar: string
    elementRelationship: atomic
- name: list
  list:
    elementType:
      scalar: string
    elementRelationship: atomic
- name: objectList
  list:
    elementType:
      namedType: listItem
    elementRelationship: atomic
- name: listItem
  map:
    fields:
    - name: keyA
      type:
        scalar: string
    - name: keyB
      type:
        scalar: string
    - name: value
      type:
        scalar: string
- name: stringMap
  map:
    elementType:
      scalar: string
    elementRelationship: atomic
- name: unchanged
  map:
    fields:
    - name: numeric
      type:
        scalar: numeric
- name: empty
  map:
    elementType:
      scalar: untyped
      list:
        elementType:
          namedType: __untyped_atomic_
        elementRelationship: atomic
      map:
        elementType:
          namedType: __untyped_deduced_
        elementRelationship: separable
- name: emptyWithPreserveUnknown
  map:
    fields:
    - name: preserveField
      type:
        map:
          elementType:
            scalar: untyped
            list:
              elementType:
                namedType: __untyped_atomic_
              elementRelationship: atomic
            map:
              elementType:
                namedType: __untyped_deduced_
              elementRelationship: separable
- name: populatedWithPreserveUnknown
  map:
    fields:
    - name: preserveField
      type:
        map:
          fields:
          - name: list
            type:
              namedType: list
          elementType:
            namedType: __untyped_deduced_
- name: __untyped_atomic_
  scalar: untyped
  list:
    elementType:
      namedType: __untyped_atomic_
    elementRelationship: atomic
  map:
    elementType:
      namedType: __untyped_atomic_
    elementRelationship: atomic
- name: __untyped_deduced_
  scalar: untyped
  list:
    elementType:
      namedType: __untyped_atomic_
    elementRelationship: atomic
  map:
    elementType:
      namedType: __untyped_deduced_
    elementRelationship: separable
)";

// The reconciled set, std::nullopt when `schema_yaml` changes nothing for `owned`.
std::optional<Set> reconcile(std::string_view schema_yaml, std::string_view root, const Set& owned) {
  Schema schema = schema_from_yaml(schema_yaml);
  TypeRef type = schema.find(root);
  if (type == nullptr) throw std::invalid_argument("no type " + std::string(root));
  return reconcile_field_set_with_schema(owned, type);
}

TEST(SmdReconcileFieldSetWithSchemaTest, GranularToAtomic) {
  std::optional<Set> fixed =
      reconcile(kAtomicSchema, "v1",
                NS(P("struct", "numeric"), P("list", V("one")), P("stringMap", "key1"),
                   P("objectList", KBF("keyA", "a1", "keyB", "b1"), "value"), P("unchanged", "numeric")));
  ASSERT_TRUE(fixed);
  EXPECT_EQ(*fixed, NS(P("struct"), P("list"), P("objectList"), P("stringMap"), P("unchanged", "numeric")))
      << fixed->to_fields_v1();
}

TEST(SmdReconcileFieldSetWithSchemaTest, NoChangeGranular) {
  EXPECT_FALSE(reconcile(
      kGranularSchema, "v1",
      NS(P("struct", "numeric"), P("list", V("one")), P("objectList", KBF("keyA", "a1", "keyB", "b1"), "value"),
         P("stringMap", "key1"), P("unchanged", "numeric"))));
}

TEST(SmdReconcileFieldSetWithSchemaTest, NoChangeAtomic) {
  EXPECT_FALSE(reconcile(kAtomicSchema, "v1", NS(P("struct"), P("list"), P("objectList"), P("unchanged", "numeric"))));
}

TEST(SmdReconcileFieldSetWithSchemaTest, NoChangeEmptyGranular) {
  EXPECT_FALSE(reconcile(kGranularSchema, "v1",
                         NS(P("struct"), P("list"), P("objectList"), P("objectList", KBF("keyA", "a1", "keyB", "b1")),
                            P("objectList", KBF("keyA", "a1", "keyB", "b1"), "value"), P("unchanged"))));
}

TEST(SmdReconcileFieldSetWithSchemaTest, DeducedTypesAreNotReconciled) {
  EXPECT_FALSE(
      reconcile(kGranularSchema, "empty", NS(P("struct"), P("list"), P("objectList"), P("unchanged", "numeric"))));
}

TEST(SmdReconcileFieldSetWithSchemaTest, EmptyPreserveUnknown) {
  EXPECT_FALSE(
      reconcile(kGranularSchema, "emptyWithPreserveUnknown", NS(P("preserveField"), P("preserveField", "arbitrary"))));
}

TEST(SmdReconcileFieldSetWithSchemaTest, PopulatedPreserveUnknown) {
  std::optional<Set> fixed = reconcile(kAtomicSchema, "populatedWithPreserveUnknown",
                                       NS(P("preserveField"), P("preserveField", "arbitrary"),
                                          P("preserveField", "list"), P("preserveField", "list", V("one"))));
  ASSERT_TRUE(fixed);
  EXPECT_EQ(*fixed, NS(P("preserveField"), P("preserveField", "arbitrary"), P("preserveField", "list")))
      << fixed->to_fields_v1();
}

}  // namespace
}  // namespace kapi::structured_merge::testing::set_schema_test
