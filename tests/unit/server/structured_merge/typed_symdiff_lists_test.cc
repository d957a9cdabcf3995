// smd's typed/symdiff_test.go, its sets and associative lists (duplicates included): what Compare finds removed,
// modified and added, checked both ways.
#include "tests/unit/server/structured_merge/typed_test_util.h"

#include <gtest/gtest.h>

#include <vector>

namespace kapi::structured_merge::testing::typed_symdiff_lists_test {
namespace {

std::vector<SymdiffCase> symdiff_list_cases() {
  return {{
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
)yaml",
  .quints = {{
    .lhs = R"({"numeric":1})",
    .rhs = R"({"numeric":3.14159})",
    .removed = NS(),
    .modified = NS(P("numeric")),
    .added = NS(),
  }, {
    .lhs = R"({"numeric":3.14159})",
    .rhs = R"({"numeric":1})",
    .removed = NS(),
    .modified = NS(P("numeric")),
    .added = NS(),
  }, {
    .lhs = R"({"string":"aoeu"})",
    .rhs = R"({"bool":true})",
    .removed = NS(P("string")),
    .modified = NS(),
    .added = NS(P("bool")),
  }, {
    .lhs = R"({"setStr":["a","b"]})",
    .rhs = R"({"setStr":["a","b","c"]})",
    .removed = NS(),
    .modified = NS(),
    .added = NS(P("setStr", V("c"))),
  }, {
    .lhs = R"({"setStr":["a"]})",
    .rhs = R"({"setStr":["a","b","b"]})",
    .removed = NS(),
    .modified = NS(),
    .added = NS(P("setStr", V("b"))),
  }, {
    .lhs = R"({"setStr":["a","b"]})",
    .rhs = R"({"setStr":["a","b","b"]})",
    .removed = NS(P("setStr", V("b"))),
    .modified = NS(),
    .added = NS(P("setStr", V("b"))),
  }, {
    .lhs = R"({"setStr":["b","b"]})",
    .rhs = R"({"setStr":["a","b","b"]})",
    .removed = NS(),
    .modified = NS(),
    .added = NS(P("setStr", V("a"))),
  }, {
    .lhs = R"({"setStr":["a","b","c"]})",
    .rhs = R"({"setStr":[]})",
    .removed = NS(
      P("setStr", V("a")),
      P("setStr", V("b")),
      P("setStr", V("c"))
    ),
    .modified = NS(),
    .added = NS(),
  }, {
    .lhs = R"({"setBool":[true]})",
    .rhs = R"({"setBool":[false]})",
    .removed = NS(P("setBool", V(true))),
    .modified = NS(),
    .added = NS(P("setBool", V(false))),
  }, {
    .lhs = R"({"setNumeric":[1,2,3.14159]})",
    .rhs = R"({"setNumeric":[1,2,3]})",
    .removed = NS(P("setNumeric", V(3.14159))),
    .modified = NS(),
    .added = NS(P("setNumeric", V(3))),
  }, {
    .lhs = R"({"setStr":["a","b","b","c","a"]})",
    .rhs = R"({"setStr":[]})",
    .removed = NS(
      P("setStr", V("a")),
      P("setStr", V("b")),
      P("setStr", V("c"))
    ),
    .modified = NS(),
    .added = NS(),
  }, {
    .lhs = R"({"setBool":[true,true]})",
    .rhs = R"({"setBool":[false]})",
    .removed = NS(P("setBool", V(true))),
    .modified = NS(),
    .added = NS(P("setBool", V(false))),
  }, {
    .lhs = R"({"setNumeric":[1,2,2,3.14159,1]})",
    .rhs = R"({"setNumeric":[1,2,3]})",
    .removed = NS(P("setNumeric", V(1)), P("setNumeric", V(2)), P("setNumeric", V(3.14159))),
    .modified = NS(),
    .added = NS(P("setNumeric", V(1)), P("setNumeric", V(2)), P("setNumeric", V(3))),
  }},
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
  .quints = {{
    .lhs = R"({})",
    .rhs = R"({"list":[{"key":"a","id":1,"value":{"a":"a"}}]})",
    .removed = NS(),
    .modified = NS(),
    .added = NS(
      P("list"),
      P("list", KBF("key", "a", "id", 1)),
      P("list", KBF("key", "a", "id", 1), "key"),
      P("list", KBF("key", "a", "id", 1), "id"),
      P("list", KBF("key", "a", "id", 1), "value"),
      P("list", KBF("key", "a", "id", 1), "value", "a")
    ),
  }, {
    .lhs = R"({"list":[{"key":"a","id":1,"value":{"a":"a"}}]})",
    .rhs = R"({"list":[{"key":"a","id":1,"value":{"a":"a"}}]})",
    .removed = NS(),
    .modified = NS(),
    .added = NS(),
  }, {
    .lhs = R"({"list":[{"key":"a","id":1,"value":{"a":"a"}}]})",
    .rhs = R"({"list":[{"key":"a","id":1,"value":{"a":"b"}}]})",
    .removed = NS(),
    .modified = NS(P("list", KBF("key", "a", "id", 1), "value", "a")),
    .added = NS(),
  }, {
    .lhs = R"({"list":[{"key":"a","id":1,"value":{"a":"a"}}]})",
    .rhs = R"({"list":[{"key":"a","id":2,"value":{"a":"a"}}]})",
    .removed = NS(
      P("list", KBF("key", "a", "id", 1)),
      P("list", KBF("key", "a", "id", 1), "key"),
      P("list", KBF("key", "a", "id", 1), "id"),
      P("list", KBF("key", "a", "id", 1), "value"),
      P("list", KBF("key", "a", "id", 1), "value", "a")
    ),
    .modified = NS(),
    .added = NS(
      P("list", KBF("key", "a", "id", 2)),
      P("list", KBF("key", "a", "id", 2), "key"),
      P("list", KBF("key", "a", "id", 2), "id"),
      P("list", KBF("key", "a", "id", 2), "value"),
      P("list", KBF("key", "a", "id", 2), "value", "a")
    ),
  }, {
    .lhs = R"({"list":[{"key":"a","id":1},{"key":"b","id":1}]})",
    .rhs = R"({"list":[{"key":"a","id":1},{"key":"a","id":2}]})",
    .removed = NS(
      P("list", KBF("key", "b", "id", 1)),
      P("list", KBF("key", "b", "id", 1), "key"),
      P("list", KBF("key", "b", "id", 1), "id")
    ),
    .modified = NS(),
    .added = NS(
      P("list", KBF("key", "a", "id", 2)),
      P("list", KBF("key", "a", "id", 2), "key"),
      P("list", KBF("key", "a", "id", 2), "id")
    ),
  }, {
    .lhs = R"({"atomicList":["a","a","a"]})",
    .rhs = R"({"atomicList":null})",
    .removed = NS(),
    .modified = NS(P("atomicList")),
    .added = NS(),
  }, {
    .lhs = R"({"atomicList":["a","b","c"]})",
    .rhs = R"({"atomicList":[]})",
    .removed = NS(),
    .modified = NS(P("atomicList")),
    .added = NS(),
  }, {
    .lhs = R"({"atomicList":["a","a","a"]})",
    .rhs = R"({"atomicList":["a","a"]})",
    .removed = NS(),
    .modified = NS(P("atomicList")),
    .added = NS(),
  }, {
    .lhs = R"({"list":[{"key":"a","id":1,"nv":2},{"key":"b","id":1},{"key":"a","id":1,"bv":true}]})",
    .rhs = R"({"list":[{"key":"a","id":1},{"key":"a","id":2}]})",
    .removed = NS(
      P("list", KBF("key", "b", "id", 1)),
      P("list", KBF("key", "b", "id", 1), "key"),
      P("list", KBF("key", "b", "id", 1), "id"),
      P("list", KBF("key", "a", "id", 1))
    ),
    .modified = NS(),
    .added = NS(
      P("list", KBF("key", "a", "id", 1)),
      P("list", KBF("key", "a", "id", 1), "key"),
      P("list", KBF("key", "a", "id", 1), "id"),
      P("list", KBF("key", "a", "id", 2)),
      P("list", KBF("key", "a", "id", 2), "key"),
      P("list", KBF("key", "a", "id", 2), "id")
    ),
  }, {
    .lhs = R"({"list":[{"key":"a","id":1},{"key":"b","id":1},{"key":"a","id":1,"bv":true}]})",
    .rhs = R"({"list":[{"key":"a","id":1},{"key":"b","id":1},{"key":"a","id":1,"bv":true,"nv":1}]})",
    .removed = NS(),
    .modified = NS(P("list", KBF("key", "a", "id", 1))),
    .added = NS(),
  }, {
    .lhs = R"({"list":[{"key":"a","id":1},{"key":"b","id":1},{"key":"a","id":1,"bv":true}]})",
    .rhs = R"({"list":[{"key":"a","id":1},{"key":"b","id":1},{"key":"a","id":1,"bv":true}]})",
    .removed = NS(),
    .modified = NS(),
    .added = NS(),
  }, {
    .lhs = R"({"list":[{"key":"a","id":1},{"key":"b","id":1},{"key":"a","id":1,"bv":true}]})",
    .rhs = R"({"list":[{"key":"a","id":1},{"key":"b","id":1,"bv":true},{"key":"a","id":1,"bv":true}]})",
    .removed = NS(),
    .modified = NS(),
    .added = NS(P("list", KBF("key", "b", "id", 1), "bv")),
  }, {
    .lhs = R"({"list":[{"key":"a","id":1},{"key":"b","id":1},{"key":"a","id":1,"bv":true}]})",
    .rhs = R"({"list":[{"key":"a","id":1},{"key":"b","id":1},{"key":"a","id":1,"bv":true}],"atomicList":["unrelated"]})",
    .removed = NS(),
    .modified = NS(),
    .added = NS(P("atomicList")),
  }},
  }};
}

TEST(TypedSymdiffTest, SmdListCases) { expect_symdiff_cases(symdiff_list_cases()); }

}  // namespace
}  // namespace kapi::structured_merge::testing::typed_symdiff_lists_test
