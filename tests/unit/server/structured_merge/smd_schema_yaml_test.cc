#include "tests/unit/server/structured_merge/smd_schema_yaml.h"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <stdexcept>

namespace kapi::structured_merge::testing::smd_schema_yaml_test {
namespace {

TEST(SmdSchemaYamlTest, NamedInlinedAndOverriddenTypes) {
  const Schema schema = schema_from_yaml(R"(types:
- name: myRoot
  map:
    fields:
    - name: list
      type:
        namedType: myList
    - name: atomicList
      type:
        namedType: myList
        elementRelationship: atomic
    - name: a
      type:
        scalar: numeric
    elementType:
      namedType: __untyped_deduced_
- name: myList
  list:
    elementType:
      namedType: item
    elementRelationship: associative
    keys:
    - name
    - protocol
- name: item
  map:
    fields:
    - name: name
      type:
        scalar: string
    - name: protocol
      default: TCP
      type:
        scalar: string
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
)");
  TypeRef root = schema.find("myRoot");
  ASSERT_NE(root, nullptr);
  ASSERT_TRUE(root->map);
  EXPECT_FALSE(root->list || root->scalar);
  ASSERT_EQ(root->fields.size(), 3u);
  EXPECT_EQ(root->fields[0].name, "a");  // sorted
  EXPECT_EQ(root->map_element, schema.deduced());

  TypeRef list = root->member_type("list");
  EXPECT_EQ(list, schema.find("myList"));
  EXPECT_EQ(list->list_relationship, ElementRelationship::kAssociative);
  EXPECT_EQ(list->keys, (std::vector<std::string>{"name", "protocol"}));

  TypeRef atomic_list = root->member_type("atomicList");
  EXPECT_NE(atomic_list, list);
  EXPECT_TRUE(atomic_list->list);
  EXPECT_EQ(atomic_list->list_relationship, ElementRelationship::kAtomic);
  EXPECT_EQ(atomic_list->list_element, schema.find("item"));

  TypeRef number = root->member_type("a");
  EXPECT_TRUE(number->scalar);
  EXPECT_EQ(number->scalar_kind, ScalarKind::kNumeric);

  TypeRef item = schema.find("item");
  EXPECT_EQ(item->map_relationship, ElementRelationship::kAtomic);
  EXPECT_EQ(item->map_element, nullptr);
  EXPECT_EQ(item->fields[1].name, "protocol");
  EXPECT_EQ(item->fields[1].default_value, boost::json::value("TCP"));
  EXPECT_TRUE(item->fields[0].default_value.is_null());

  TypeRef untyped_atomic = schema.find("__untyped_atomic_");
  EXPECT_TRUE(untyped_atomic->scalar && untyped_atomic->list && untyped_atomic->map);
  EXPECT_EQ(untyped_atomic->map_relationship, ElementRelationship::kAtomic);
  EXPECT_EQ(untyped_atomic->map_element, untyped_atomic);
}

TEST(SmdSchemaYamlTest, UnknownNamedTypeIsNoType) {
  const Schema schema = schema_from_yaml("types:\n- name: a\n  map:\n    elementType:\n      namedType: b\n");
  ASSERT_NE(schema.find("a"), nullptr);
  EXPECT_EQ(schema.find("a")->map_element, nullptr);
}

TEST(SmdSchemaYamlTest, ValuesAreTypedAsGoYamlTypesThem) {
  EXPECT_EQ(value_from_yaml("a: 1\nb: [x, true, 1.5, null]\n"),
            boost::json::parse(R"({"a":1,"b":["x",true,1.5,null]})"));
  EXPECT_TRUE(value_from_yaml("").is_null());
}

}  // namespace
}  // namespace kapi::structured_merge::testing::smd_schema_yaml_test
