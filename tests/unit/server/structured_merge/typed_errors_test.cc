// The texts of smd's ValidationErrors, which kube puts in its apply errors ("failed to create typed patch object
// (...): .spec.replicas: expected numeric (int or float), got string"); keys defaulted from the schema; and
// Comparison.ExcludeFields (smd's typed/comparison_test.go).
#include "tests/unit/server/structured_merge/typed_test_util.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace kapi::structured_merge::testing::typed_errors_test {
namespace {

constexpr std::string_view kSchema = R"yaml(types:
- name: myRoot
  map:
    fields:
    - name: numeric
      type:
        scalar: numeric
    - name: string
      type:
        scalar: string
    - name: bool
      type:
        scalar: boolean
    - name: untyped
      type:
        scalar: untyped
    - name: setStr
      type:
        list:
          elementType:
            scalar: string
          elementRelationship: associative
    - name: list
      type:
        namedType: myList
    - name: ports
      type:
        list:
          elementType:
            namedType: port
          elementRelationship: associative
          keys:
          - port
          - protocol
- name: myList
  list:
    elementType:
      namedType: myElement
    elementRelationship: associative
    keys:
    - key
    - id
- name: myElement
  map:
    fields:
    - name: key
      type:
        scalar: string
    - name: id
      type:
        scalar: numeric
    - name: value
      type:
        map:
          elementType:
            scalar: string
- name: port
  map:
    fields:
    - name: port
      type:
        scalar: numeric
    - name: protocol
      default: TCP
      type:
        scalar: string
    - name: name
      type:
        scalar: string
)yaml";

std::string error_of(std::string_view object, bool allow_duplicates = false) {
  const TypedParser parser(kSchema);
  try {
    parser.typed("myRoot", object, allow_duplicates);
  } catch (const TypedError& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(TypedErrorsTest, ScalarMessagesPrintValuesAsSmdsUnstructuredWrapper) {
  EXPECT_EQ(error_of(R"({"numeric":"3"})"), ".numeric: expected numeric (int or float), got string");
  EXPECT_EQ(error_of(R"({"numeric":{"a":1}})"), ".numeric: expected numeric (int or float), got map[string]interface {}");
  EXPECT_EQ(error_of(R"({"numeric":[1]})"), ".numeric: expected numeric (int or float), got []interface {}");
  EXPECT_EQ(error_of(R"({"string":1})"), ".string: expected string, got &value.valueUnstructured{Value:1}");
  EXPECT_EQ(error_of(R"({"string":3.5})"), ".string: expected string, got &value.valueUnstructured{Value:3.5}");
  EXPECT_EQ(error_of(R"({"string":["a"]})"),
            ".string: expected string, got &value.valueUnstructured{Value:[]interface {}{\"a\"}}");
  EXPECT_EQ(error_of(R"({"bool":"yes please"})"), ".bool: expected boolean, got &{yes please}");
  EXPECT_EQ(error_of(R"({"untyped":{"a":"b"}})"), ".untyped: expected any scalar, got &{map[a:b]}");
}

TEST(TypedErrorsTest, ContainerMessages) {
  EXPECT_EQ(error_of("true"), "expected map, got &{true}");
  EXPECT_EQ(error_of(R"({"list":{"key":"a"}})"), ".list: expected list, got &{map[key:a]}");
  EXPECT_EQ(error_of(R"({"other":1})"), ".other: field not declared in schema");
  EXPECT_EQ(error_of(R"({"list":[{"key":"a","id":1,"value":{"a":1}}]})"),
            ".list[id=1,key=\"a\"].value.a: expected string, got &value.valueUnstructured{Value:1}");
}

TEST(TypedErrorsTest, ListItemMessages) {
  EXPECT_EQ(error_of(R"({"setStr":["a","a"]})"), ".setStr: duplicate entries for key [=\"a\"]");
  EXPECT_EQ(error_of(R"({"setStr":["a","a"]})", true), "(no error)");
  EXPECT_EQ(error_of(R"({"list":[{"key":"a","id":1},{"key":"a","id":1}]})"),
            ".list: duplicate entries for key [id=1,key=\"a\"]");
  EXPECT_EQ(error_of(R"({"setStr":[null]})"),
            ".setStr: element 0: associative list without keys has an element that's an explicit null");
  EXPECT_EQ(error_of(R"({"setStr":[{}]})"),
            ".setStr: element 0: associative list without keys has an element that's a map type");
  EXPECT_EQ(error_of(R"({"setStr":[[]]})"), ".setStr: element 0: not supported: associative list with lists as elements");
  EXPECT_EQ(error_of(R"({"list":[null]})"), ".list: element 0: associative list with keys may not have a null element");
  EXPECT_EQ(error_of(R"({"list":["a"]})"), ".list: element 0: associative list with keys may not have non-map elements");
  // smd 4.4 (kube 1.32) wants every key field that has no default.
  EXPECT_EQ(error_of(R"({"list":[{"key":"a","id":1},{"id":2}]})"),
            ".list: element 1: associative list with keys has an element that omits key field \"key\" (and doesn't "
            "have default value)");
}

// In the order of the value's members (the YAML reader sorts them, as sigs.k8s.io/yaml does; Go's map order is
// random).
TEST(TypedErrorsTest, SeveralErrorsAreListedUnderErrors) {
  EXPECT_EQ(error_of(R"({"numeric":"3","bool":1})"),
            "errors:\n"
            "  .bool: expected boolean, got &{1}\n"
            "  .numeric: expected numeric (int or float), got string");
  const TypedParser parser(kSchema);
  try {
    parser.typed("myRoot", R"({"numeric":"3","bool":1})");
    ADD_FAILURE() << "expected a TypedError";
  } catch (const TypedError& error) {
    EXPECT_EQ(error.errors(), (std::vector<std::string>{".bool: expected boolean, got &{1}",
                                                         ".numeric: expected numeric (int or float), got string"}));
  }
}

TEST(TypedErrorsTest, OmittedKeyFieldTakesItsDefault) {
  const TypedParser parser(kSchema);
  const TypedValue value = parser.typed("myRoot", R"({"ports":[{"port":80},{"port":53,"protocol":"UDP"}]})");
  EXPECT_TRUE(to_field_set(value) == NS(P("ports", KBF("port", 80, "protocol", "TCP")),
                                         P("ports", KBF("port", 80, "protocol", "TCP"), "port"),
                                         P("ports", KBF("port", 53, "protocol", "UDP")),
                                         P("ports", KBF("port", 53, "protocol", "UDP"), "port"),
                                         P("ports", KBF("port", 53, "protocol", "UDP"), "protocol")))
      << describe(to_field_set(value));
  // An explicit default and an omitted one are the same item.
  EXPECT_EQ(error_of(R"({"ports":[{"port":80},{"port":80,"protocol":"TCP"}]})"),
            ".ports: duplicate entries for key [port=80,protocol=\"TCP\"]");
  const TypedValue merged =
      merge(parser.typed("myRoot", R"({"ports":[{"port":80,"name":"http"}]})"),
            parser.typed("myRoot", R"({"ports":[{"port":80,"protocol":"TCP","name":"web"}]})"));
  EXPECT_EQ(merged.value, value_from_yaml(R"({"ports":[{"port":80,"protocol":"TCP","name":"web"}]})"));
}

TEST(TypedErrorsTest, MergeAndCompareRefuseValuesOfOtherTypes) {
  const TypedParser parser(kSchema);
  const TypedValue root = parser.typed("myRoot", "{}");
  const TypedValue list = parser.typed("myList", "[]");
  EXPECT_THROW(merge(root, list), TypedError);
  EXPECT_THROW(compare(root, list), TypedError);
  const TypedParser other(kSchema);
  EXPECT_THROW(compare(root, other.typed("myRoot", "{}")), TypedError);
}

TEST(TypedComparisonTest, ExcludeFields) {
  const Comparison comparison{NS(P("c")), NS(P("b")), NS(P("a"))};
  const Comparison with_empty = comparison.exclude(NS());
  EXPECT_TRUE(with_empty.added == NS(P("a")));
  EXPECT_TRUE(with_empty.modified == NS(P("b")));
  EXPECT_TRUE(with_empty.removed == NS(P("c")));

  const Comparison nested{NS(P("c", "ca")), NS(P("b", "ba")), NS(P("a", "aa"))};
  const Comparison excluded = nested.exclude(NS(P("a"), P("b"), P("c")));
  EXPECT_TRUE(excluded.added.empty());
  EXPECT_TRUE(excluded.modified.empty());
  EXPECT_TRUE(excluded.removed.empty());
  EXPECT_TRUE(excluded.is_same());
  EXPECT_FALSE(nested.is_same());
}

}  // namespace
}  // namespace kapi::structured_merge::testing::typed_errors_test
