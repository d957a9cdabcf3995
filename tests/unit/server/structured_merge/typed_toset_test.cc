// smd's typed/toset_test.go: the fields a value sets.
#include "tests/unit/server/structured_merge/typed_test_util.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace kapi::structured_merge::testing::typed_toset_test {
namespace {

struct FieldSetCase {
  std::string_view name;
  std::string_view root_type_name;
  std::string_view schema;
  std::vector<ObjectSetPair> pairs;
};

std::vector<FieldSetCase> field_set_cases() {
  return {{
  .name = "simple pair",
  .root_type_name = "stringPair",
  .schema = R"yaml(types:
- name: stringPair
  map:
    fields:
    - name: key
      type:
        scalar: string
    - name: value
      type:
        namedType: __untyped_atomic_
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
)yaml",
  .pairs = {
    {R"({"key":"foo","value":1})", NS(P("key"), P("value"))},
    {R"({"key":"foo","value":{"a": "b"}})", NS(P("key"), P("value"))},
    {R"({"key":"foo","value":null})", NS(P("key"), P("value"))},
    {R"({"key":"foo"})", NS(P("key"))},
    {R"({"key":"foo","value":true})", NS(P("key"), P("value"))},
  },
}, {
  .name = "struct grab bag",
  .root_type_name = "myStruct",
  .schema = R"yaml(types:
- name: myStruct
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
    - name: setStr
      type:
        list:
          elementType:
            scalar: string
          elementRelationship: associative
    - name: setBool
      type:
        list:
          elementType:
            scalar: boolean
          elementRelationship: associative
    - name: setNumeric
      type:
        list:
          elementType:
            scalar: numeric
          elementRelationship: associative
    - name: color
      type:
        map:
          fields:
          - name: R
            type:
              scalar: numeric
          - name: G
            type:
              scalar: numeric
          - name: B
            type:
              scalar: numeric
          elementRelationship: atomic
    - name: arbitraryWavelengthColor
      type:
        map:
          elementType:
            scalar: numeric
          elementRelationship: atomic
    - name: args
      type:
        list:
          elementType:
            map:
              fields:
              - name: key
                type:
                  scalar: string
              - name: value
                type:
                  scalar: string
          elementRelationship: atomic
)yaml",
  .pairs = {
    {R"({"numeric":1})", NS(P("numeric"))},
    {R"({"numeric":3.14159})", NS(P("numeric"))},
    {R"({"string":"aoeu"})", NS(P("string"))},
    {R"({"bool":true})", NS(P("bool"))},
    {R"({"bool":false})", NS(P("bool"))},
    {R"({"setStr":["a","b","c"]})", NS(
      P("setStr", V("a")),
      P("setStr", V("b")),
      P("setStr", V("c"))
    )},
    {R"({"setStr":["a","b","c","a","b","c","c"]})", NS(
      P("setStr", V("a")),
      P("setStr", V("b")),
      P("setStr", V("c"))
    )},
    {R"({"setBool":[true,false,true]})", NS(
      P("setBool", V(true)),
      P("setBool", V(false))
    )},
    {R"({"setNumeric":[1,2,3,3.14159]})", NS(
      P("setNumeric", V(1)),
      P("setNumeric", V(2)),
      P("setNumeric", V(3)),
      P("setNumeric", V(3.14159))
    )},
    {R"({"color":{}})", NS(P("color"))},
    {R"({"color":null})", NS(P("color"))},
    {R"({"color":{"R":255,"G":0,"B":0}})", NS(P("color"))},
    {R"({"arbitraryWavelengthColor":{}})", NS(P("arbitraryWavelengthColor"))},
    {R"({"arbitraryWavelengthColor":null})", NS(P("arbitraryWavelengthColor"))},
    {R"({"arbitraryWavelengthColor":{"IR":255}})", NS(P("arbitraryWavelengthColor"))},
    {R"({"args":[]})", NS(P("args"))},
    {R"({"args":null})", NS(P("args"))},
    {R"({"args":[null]})", NS(P("args"))},
    {R"({"args":[{"key":"a","value":"b"},{"key":"c","value":"d"}]})", NS(P("args"))},
  },
}, {
  .name = "associative list",
  .root_type_name = "myRoot",
  .schema = R"yaml(types:
- name: myRoot
  map:
    fields:
    - name: list
      type:
        namedType: myList
    - name: atomicList
      type:
        namedType: mySequence
- name: myList
  list:
    elementType:
      namedType: myElement
    elementRelationship: associative
    keys:
    - key
    - id
- name: mySequence
  list:
    elementType:
      scalar: string
    elementRelationship: atomic
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
        namedType: myValue
    - name: bv
      type:
        scalar: boolean
    - name: nv
      type:
        scalar: numeric
- name: myValue
  map:
    elementType:
      scalar: string
)yaml",
  .pairs = {
    {R"({"list":[]})", NS()},
    {R"({"list":[{"key":"a","id":1,"value":{"a":"a"}}]})", NS(
      P("list", KBF("key", "a", "id", 1)),
      P("list", KBF("key", "a", "id", 1), "key"),
      P("list", KBF("key", "a", "id", 1), "id"),
      P("list", KBF("key", "a", "id", 1), "value", "a")
    )},
    {R"({"list":[{"key":"a","id":1},{"key":"a","id":2},{"key":"b","id":1}]})", NS(
      P("list", KBF("key", "a", "id", 1)),
      P("list", KBF("key", "a", "id", 2)),
      P("list", KBF("key", "b", "id", 1)),
      P("list", KBF("key", "a", "id", 1), "key"),
      P("list", KBF("key", "a", "id", 1), "id"),
      P("list", KBF("key", "a", "id", 2), "key"),
      P("list", KBF("key", "a", "id", 2), "id"),
      P("list", KBF("key", "b", "id", 1), "key"),
      P("list", KBF("key", "b", "id", 1), "id")
    )},
    {R"({"list":[{"key":"a","id":1,"nv":2},{"key":"a","id":2,"nv":3},{"key":"b","id":1},{"key":"a","id":2,"bv":true}]})", NS(
      P("list", KBF("key", "a", "id", 1)),
      P("list", KBF("key", "a", "id", 1), "key"),
      P("list", KBF("key", "a", "id", 1), "id"),
      P("list", KBF("key", "a", "id", 1), "nv"),
      P("list", KBF("key", "a", "id", 2)),
      P("list", KBF("key", "b", "id", 1)),
      P("list", KBF("key", "b", "id", 1), "key"),
      P("list", KBF("key", "b", "id", 1), "id")
    )},
    {R"({"atomicList":["a","a","a"]})", NS(P("atomicList"))},
  },
  }};
}

TEST(TypedToFieldSetTest, SmdCases) {
  for (const FieldSetCase& test : field_set_cases()) {
    const TypedParser parser(test.schema);
    for (std::size_t i = 0; i < test.pairs.size(); ++i) {
      SCOPED_TRACE(std::string(test.name) + "-" + std::to_string(i));
      const ObjectSetPair& pair = test.pairs[i];
      const TypedValue value = parser.typed(test.root_type_name, pair.object, true);
      const Set set = to_field_set(value);
      EXPECT_TRUE(set == pair.set) << "wanted\n" << describe(pair.set) << "got\n" << describe(set);
    }
  }
}

}  // namespace
}  // namespace kapi::structured_merge::testing::typed_toset_test
