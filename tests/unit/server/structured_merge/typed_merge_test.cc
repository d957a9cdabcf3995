// smd's typed/merge_test.go: a partially specified object merged into another.
#include "tests/unit/server/structured_merge/typed_test_util.h"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace kapi::structured_merge::testing::typed_merge_test {
namespace {

struct MergeCase {
  std::string_view name;
  std::string_view root_type_name;
  std::string_view schema;
  std::vector<MergeTriplet> triplets;
};

std::vector<MergeCase> merge_cases() {
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
  .triplets = {{
    R"({"key":"foo","value":{}})",
    R"({"key":"foo","value":1})",
    R"({"key":"foo","value":1})",
  }, {
    R"({"key":"foo","value":{}})",
    R"({"key":"foo","value":1})",
    R"({"key":"foo","value":1})",
  }, {
    R"({"key":"foo","value":1})",
    R"({"key":"foo","value":{}})",
    R"({"key":"foo","value":{}})",
  }, {
    R"({"key":"foo","value":null})",
    R"({"key":"foo","value":{}})",
    R"({"key":"foo","value":{}})",
  }, {
    R"({"key":"foo"})",
    R"({"value":true})",
    R"({"key":"foo","value":true})",
  }},
}, {
  .name = "null/empty map",
  .root_type_name = "nestedMap",
  .schema = R"yaml(types:
- name: nestedMap
  map:
    fields:
    - name: inner
      type:
        map:
          elementType:
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
  .triplets = {{
    R"({})",
    R"({"inner":{}})",
    R"({"inner":{}})",
  }, {
    R"({})",
    R"({"inner":null})",
    R"({"inner":null})",
  }, {
    R"({"inner":null})",
    R"({"inner":{}})",
    R"({"inner":{}})",
  }, {
    R"({"inner":{}})",
    R"({"inner":null})",
    R"({"inner":null})",
  }, {
    R"({"inner":{}})",
    R"({"inner":{}})",
    R"({"inner":{}})",
  }},
}, {
  .name = "null/empty struct",
  .root_type_name = "nestedStruct",
  .schema = R"yaml(types:
- name: nestedStruct
  map:
    fields:
    - name: inner
      type:
        map:
          fields:
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
  .triplets = {{
    R"({})",
    R"({"inner":{}})",
    R"({"inner":{}})",
  }, {
    R"({})",
    R"({"inner":null})",
    R"({"inner":null})",
  }, {
    R"({"inner":null})",
    R"({"inner":{}})",
    R"({"inner":{}})",
  }, {
    R"({"inner":{}})",
    R"({"inner":null})",
    R"({"inner":null})",
  }, {
    R"({"inner":{}})",
    R"({"inner":{}})",
    R"({"inner":{}})",
  }},
}, {
  .name = "null/empty list",
  .root_type_name = "nestedList",
  .schema = R"yaml(types:
- name: nestedList
  map:
    fields:
    - name: inner
      type:
        list:
          elementType:
            namedType: __untyped_atomic_
          elementRelationship: atomic
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
  .triplets = {{
    R"({})",
    R"({"inner":[]})",
    R"({"inner":[]})",
  }, {
    R"({})",
    R"({"inner":null})",
    R"({"inner":null})",
  }, {
    R"({"inner":null})",
    R"({"inner":[]})",
    R"({"inner":[]})",
  }, {
    R"({"inner":[]})",
    R"({"inner":null})",
    R"({"inner":null})",
  }, {
    R"({"inner":[]})",
    R"({"inner":[]})",
    R"({"inner":[]})",
  }},
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
)yaml",
  .triplets = {{
    R"({"numeric":1})",
    R"({"numeric":3.14159})",
    R"({"numeric":3.14159})",
  }, {
    R"({"numeric":3.14159})",
    R"({"numeric":1})",
    R"({"numeric":1})",
  }, {
    R"({"string":"aoeu"})",
    R"({"bool":true})",
    R"({"string":"aoeu","bool":true})",
  }, {
    R"({"setStr":["a","b","c"]})",
    R"({"setStr":["a","b"]})",
    R"({"setStr":["a","b","c"]})",
  }, {
    R"({"setStr":["a","b"]})",
    R"({"setStr":["a","b","c"]})",
    R"({"setStr":["a","b","c"]})",
  }, {
    R"({"setStr":["a","b","c"]})",
    R"({"setStr":[]})",
    R"({"setStr":["a","b","c"]})",
  }, {
    R"({"setStr":[]})",
    R"({"setStr":["a","b","c"]})",
    R"({"setStr":["a","b","c"]})",
  }, {
    R"({"setStr":["a","b"]})",
    R"({"setStr":["b","a"]})",
    R"({"setStr":["b","a"]})",
  }, {
    R"({"setStr":["a","b","c"]})",
    R"({"setStr":["d","e","f"]})",
    R"({"setStr":["a","b","c","d","e","f"]})",
  }, {
    R"({"setStr":["a","b","c"]})",
    R"({"setStr":["c","d","e","f"]})",
    R"({"setStr":["a","b","c","d","e","f"]})",
  }, {
    R"({"setStr":["a","b","c","g","f"]})",
    R"({"setStr":["c","d","e","f"]})",
    R"({"setStr":["a","b","c","g","d","e","f"]})",
  }, {
    R"({"setStr":["a","b","c"]})",
    R"({"setStr":["d","e","f","x","y","z"]})",
    R"({"setStr":["a","b","c","d","e","f","x","y","z"]})",
  }, {
    R"({"setStr":["c","d","e","f"]})",
    R"({"setStr":["a","c","e"]})",
    R"({"setStr":["a","c","d","e","f"]})",
  }, {
    R"({"setStr":["a","b","c","x","y","z"]})",
    R"({"setStr":["d","e","f"]})",
    R"({"setStr":["a","b","c","x","y","z","d","e","f"]})",
  }, {
    R"({"setStr":["a","b","c","x","y","z"]})",
    R"({"setStr":["d","e","f","x","y","z"]})",
    R"({"setStr":["a","b","c","d","e","f","x","y","z"]})",
  }, {
    R"({"setStr":["c","a","g","f"]})",
    R"({"setStr":["c","f","a","g"]})",
    R"({"setStr":["c","f","a","g"]})",
  }, {
    R"({"setStr":["a","b","c","d"]})",
    R"({"setStr":["d","e","f","a"]})",
    R"({"setStr":["b","c","d","e","f","a"]})",
  }, {
    R"({"setStr":["c","d","e","f","g","h","i","j"]})",
    R"({"setStr":["2","h","3","e","4","k","l"]})",
    R"({"setStr":["c","d","f","g","2","h","i","j","3","e","4","k","l"]})",
  }, {
    R"({"setStr":["a","b","c","d","e","f","g","h","i","j"]})",
    R"({"setStr":["1","b","2","h","3","e","4","k","l"]})",
    R"({"setStr":["a","1","b","c","d","f","g","2","h","i","j","3","e","4","k","l"]})",
  }, { // We have a duplicate in LHS
    R"({"setStr":["a","b","b"]})",
    R"({"setStr":["c"]})",
    R"({"setStr":["a","b","b","c"]})",
  }, { // We have a duplicate in LHS.
    R"({"setStr":["a","b","b"]})",
    R"({"setStr":["b"]})",
    R"({"setStr":["a","b"]})",
  }, { // We have a duplicate in LHS.
    R"({"setStr":["a","b","b"]})",
    R"({"setStr":["a"]})",
    R"({"setStr":["a","b","b"]})",
  }, { // We have a duplicate in LHS.
    R"({"setStr":["a","b","c","d","e","c"]})",
    R"({"setStr":["1","b","2","e","d"]})",
    R"({"setStr":["a","1","b","c","2","e","c","d"]})",
  }, { // We have a duplicate in LHS, also present in RHS, keep only one.
    R"({"setStr":["a","b","c","d","e","c"]})",
    R"({"setStr":["1","b","2","c","e","d"]})",
    R"({"setStr":["a","1","b","2","c","e","d"]})",
  }, { // We have 2 duplicates in LHS, one is replaced.
    R"({"setStr":["a","a","b","b"]})",
    R"({"setStr":["b","c","d"]})",
    R"({"setStr":["a","a","b","c","d"]})",
  }, { // We have 2 duplicates in LHS, and nothing on the right
    R"({"setStr":["a","a","b","b"]})",
    R"({"setStr":[]})",
    R"({"setStr":["a","a","b","b"]})",
  }, {
    R"({"setBool":[true]})",
    R"({"setBool":[false]})",
    R"({"setBool":[true, false]})",
  }, {
    R"({"setNumeric":[1,2,3.14159]})",
    R"({"setNumeric":[1,2,3]})",
    R"({"setNumeric":[1,2,3.14159,3]})",
  }, {
    R"({"setStr":["c","a","g","f","c","a"]})",
    R"({"setStr":["c","f","a","g"]})",
    R"({"setStr":["c","f","a","g"]})",
  }, {
    R"({"setNumeric":[1,2,3.14159,1,2]})",
    R"({"setNumeric":[1,2,3]})",
    R"({"setNumeric":[1,2,3.14159,3]})",
  }, {
    R"({"setBool":[true,false,true]})",
    R"({"setBool":[false]})",
    R"({"setBool":[true,false,true]})",
  }, {
    R"({"setBool":[true,false,true]})",
    R"({"setBool":[true]})",
    R"({"setBool":[true, false]})",
  },
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
  .triplets = {{
    R"({"list":[{"key":"a","id":1,"value":{"a":"a"}}]})",
    R"({"list":[{"key":"a","id":1,"value":{"a":"a"}}]})",
    R"({"list":[{"key":"a","id":1,"value":{"a":"a"}}]})",
  }, {
    R"({"list":[{"key":"a","id":1,"value":{"a":"a"}}]})",
    R"({"list":[{"key":"a","id":2,"value":{"a":"a"}}]})",
    R"({"list":[{"key":"a","id":1,"value":{"a":"a"}},{"key":"a","id":2,"value":{"a":"a"}}]})",
  }, {
    R"({"list":[{"key":"a","id":1},{"key":"b","id":1}]})",
    R"({"list":[{"key":"a","id":1},{"key":"a","id":2}]})",
    R"({"list":[{"key":"a","id":1},{"key":"b","id":1},{"key":"a","id":2}]})",
  }, {
    R"({"list":[{"key":"b","id":2}]})",
    R"({"list":[{"key":"a","id":1},{"key":"b","id":2},{"key":"c","id":3}]})",
    R"({"list":[{"key":"a","id":1},{"key":"b","id":2},{"key":"c","id":3}]})",
  }, {
    R"({"list":[{"key":"a","id":1},{"key":"b","id":2},{"key":"c","id":3}]})",
    R"({"list":[{"key":"c","id":3},{"key":"b","id":2}]})",
    R"({"list":[{"key":"a","id":1},{"key":"c","id":3},{"key":"b","id":2}]})",
  }, {
    R"({"list":[{"key":"a","id":1},{"key":"b","id":2},{"key":"c","id":3}]})",
    R"({"list":[{"key":"c","id":3},{"key":"a","id":1}]})",
    R"({"list":[{"key":"b","id":2},{"key":"c","id":3},{"key":"a","id":1}]})",
  }, {
    R"({"atomicList":["a","a","a"]})",
    R"({"atomicList":null})",
    R"({"atomicList":null})",
  }, {
    R"({"atomicList":["a","b","c"]})",
    R"({"atomicList":[]})",
    R"({"atomicList":[]})",
  }, {
    R"({"atomicList":["a","a","a"]})",
    R"({"atomicList":["a","a"]})",
    R"({"atomicList":["a","a"]})",
  }, {
    R"({"list":[{"key":"a","id":1,"bv":true},{"key":"b","id":2},{"key":"a","id":1,"bv":false,"nv":2}]})",
    R"({"list":[{"key":"a","id":1,"nv":3},{"key":"c","id":3},{"key":"b","id":2}]})",
    R"({"list":[{"key":"a","id":1,"nv":3},{"key":"c","id":3},{"key":"b","id":2}]})",
  }, {
    R"({"list":[{"key":"a","id":1,"nv":1},{"key":"a","id":1,"nv":2}]})",
    R"({"list":[]})",
    R"({"list":[{"key":"a","id":1,"nv":1},{"key":"a","id":1,"nv":2}]})",
  }, {
    R"({"list":[{"key":"a","id":1,"nv":1},{"key":"a","id":1,"nv":2}]})",
    R"({})",
    R"({"list":[{"key":"a","id":1,"nv":1},{"key":"a","id":1,"nv":2}]})",
  }},
  }};
}

TEST(TypedMergeTest, SmdCases) {
  for (const MergeCase& test : merge_cases()) {
    const TypedParser parser(test.schema);
    for (std::size_t i = 0; i < test.triplets.size(); ++i) {
      SCOPED_TRACE(std::string(test.name) + "-valid-" + std::to_string(i));
      const MergeTriplet& triplet = test.triplets[i];
      // The former object may have duplicates in sets.
      const TypedValue lhs = parser.typed(test.root_type_name, triplet.lhs, true);
      const TypedValue rhs = parser.typed(test.root_type_name, triplet.rhs);
      const TypedValue out = parser.typed(test.root_type_name, triplet.out, true);
      const TypedValue got = merge(lhs, rhs);
      EXPECT_EQ(got.value, out.value) << "expected " << boost::json::serialize(out.value) << " but got "
                                      << boost::json::serialize(got.value);
    }
  }
}

}  // namespace
}  // namespace kapi::structured_merge::testing::typed_merge_test
