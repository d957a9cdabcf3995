// smd's typed/validate_test.go, and the messages of its ValidationErrors that kube's clients read.
#include "tests/unit/server/structured_merge/typed_test_util.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace kapi::structured_merge::testing::typed_validate_test {
namespace {

struct ValidationCase {
  std::string_view name;
  std::string_view root_type_name;
  std::string_view schema;
  std::vector<std::string_view> valid_objects;
  std::vector<std::string_view> invalid_objects;
  // Valid with allow_duplicates, invalid otherwise.
  std::vector<std::string_view> duplicates_objects;
};

std::vector<ValidationCase> validation_cases() {
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
  .valid_objects = {
    R"({"key":"foo","value":1})",
    R"({"key":"foo","value":{}})",
    R"({"key":"foo","value":null})",
    R"({"key":"foo"})",
    R"({"key":"foo","value":true})",
    R"({"key":null})",
  },
  .invalid_objects = {
    R"({"key":true,"value":1})",
    R"({"key":1,"value":{}})",
    R"({"key":false,"value":null})",
    R"({"key":[1, 2]})",
    R"({"key":{"foo":true}})",
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
)yaml",
  .valid_objects = {
    R"({"numeric":null})",
    R"({"numeric":1})",
    R"({"numeric":3.14159})",
    R"({"string":null})",
    R"({"string":"aoeu"})",
    R"({"bool":null})",
    R"({"bool":true})",
    R"({"bool":false})",
    R"({"setStr":["a","b","c"]})",
    R"({"setBool":[true,false]})",
    R"({"setNumeric":[1,2,3,3.14159]})",
  },
  .invalid_objects = {
    R"({"numeric":["foo"]})",
    R"({"numeric":{"a":1}})",
    R"({"numeric":"foo"})",
    R"({"numeric":true})",
    R"({"string":1})",
    R"({"string":3.5})",
    R"({"string":true})",
    R"({"string":{"a":1}})",
    R"({"string":["foo"]})",
    R"({"bool":1})",
    R"({"bool":3.5})",
    R"({"bool":"aoeu"})",
    R"({"bool":{"a":1}})",
    R"({"bool":["foo"]})",
    R"({"setStr":[1]})",
    R"({"setStr":[true]})",
    R"({"setStr":[1.5]})",
    R"({"setStr":[null]})",
    R"({"setStr":[{}]})",
    R"({"setStr":[[]]})",
    R"({"setBool":[1]})",
    R"({"setBool":[1.5]})",
    R"({"setBool":[null]})",
    R"({"setBool":[{}]})",
    R"({"setBool":[[]]})",
    R"({"setBool":["a"]})",
    R"({"setNumeric":[null]})",
    R"({"setNumeric":[true]})",
    R"({"setNumeric":["a"]})",
    R"({"setNumeric":[[]]})",
    R"({"setNumeric":[{}]})",
  }, .duplicates_objects = {
    R"({"setStr":["a","a"]})",
    R"({"setBool":[true,false,true]})",
    R"({"setNumeric":[1,2,3,3.14159,1]})",
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
  .valid_objects = {
    R"({"list":[]})",
    R"({"list":[{"key":"a","id":1,"value":{"a":"a"}}]})",
    R"({"list":[{"key":"a","id":1},{"key":"a","id":2},{"key":"b","id":1}]})",
    R"({"atomicList":["a","a","a"]})",
  },
  .invalid_objects = {
    R"({"key":true,"value":1})",
    R"({"list":{"key":true,"value":1}})",
    R"({"list":true})",
    R"(true)",
    R"({"list":[{"key":true,"value":1}]})",
    R"({"list":[{"key":[],"value":1}]})",
    R"({"list":[{"key":{},"value":1}]})",
    R"({"list":[{"key":1.5,"value":1}]})",
    R"({"list":[{"key":1,"value":1}]})",
    R"({"list":[{"key":null,"value":1}]})",
    R"({"list":[{},{}]})",
    R"({"list":[{},null]})",
    R"({"list":[[]]})",
    R"({"list":[null]})",
    R"({"list":[{}]})",
    R"({"list":[{"value":{"a":"a"},"bv":true,"nv":3.14}]})",
    R"({"list":[{"key":"a","id":1,"value":{"a":1}}]})",
    R"({"list":[{"key":"a","id":1,"value":{"a":"a"},"bv":"true","nv":3.14}]})",
    R"({"list":[{"key":"a","id":1,"value":{"a":"a"},"bv":true,"nv":false}]})",
  }, .duplicates_objects = {
    R"({"list":[{"key":"a","id":1},{"key":"a","id":1}]})",
  },
  }};
}

// The error as_typed throws for `object`; a test failure when it throws none.
std::string validation_error(const TypedParser& parser, std::string_view type, std::string_view object,
                             bool allow_duplicates = false) {
  try {
    parser.typed(type, object, allow_duplicates);
  } catch (const TypedError& error) {
    return error.what();
  }
  ADD_FAILURE() << "object should fail: " << object;
  return "";
}

TEST(TypedValidateTest, SmdCases) {
  for (const ValidationCase& test : validation_cases()) {
    const TypedParser parser(test.schema);
    for (std::size_t i = 0; i < test.valid_objects.size(); ++i) {
      SCOPED_TRACE(std::string(test.name) + "-valid-" + std::to_string(i));
      EXPECT_NO_THROW(parser.typed(test.root_type_name, test.valid_objects[i]));
    }
    for (std::size_t i = 0; i < test.invalid_objects.size(); ++i) {
      SCOPED_TRACE(std::string(test.name) + "-invalid-" + std::to_string(i));
      // The error should be useful.
      EXPECT_EQ(validation_error(parser, test.root_type_name, test.invalid_objects[i]).find("invalid atom"),
                std::string::npos);
    }
    for (std::size_t i = 0; i < test.duplicates_objects.size(); ++i) {
      SCOPED_TRACE(std::string(test.name) + "-duplicates-" + std::to_string(i));
      EXPECT_EQ(validation_error(parser, test.root_type_name, test.duplicates_objects[i]).find("invalid atom"),
                std::string::npos);
      EXPECT_NO_THROW(parser.typed(test.root_type_name, test.duplicates_objects[i], true));
    }
  }
}

}  // namespace
}  // namespace kapi::structured_merge::testing::typed_validate_test
