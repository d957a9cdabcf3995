// smd's typed/remove_test.go, its extraction tables: extracting an applied object's fields gives it back, and key
// fields are appended on request (WithAppendKeyFields).
#include "tests/unit/server/structured_merge/typed_remove_schemas.h"
#include "tests/unit/server/structured_merge/typed_test_util.h"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace kapi::structured_merge::testing::typed_extract_test {
namespace {

struct ReversibleExtractPair {
  std::string_view object;
  std::string_view pso;  // a partially specified object
};

struct ReversibleExtractCase {
  std::string_view name;
  std::string_view root_type_name;
  std::string_view schema;
  std::vector<ReversibleExtractPair> pairs;
};

std::vector<ReversibleExtractCase> reversible_extract_cases() {
  return {{
  .name = "nested types",
  .root_type_name = "type",
  .schema = kNestedTypesSchema,
  .pairs = {{
    // add to top level element
    R"({"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]})",
    R"({"listOfLists": [{"name": "f", "value": ["j", "k"]},]})",
  }, {
    // add to leaf element
    R"({"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]})",
    R"({"listOfLists": [{"name": "a", "value": ["j", "k"]},]})",
  }, {
    // apply empty structure
    R"({"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]})",
    R"({"listOfLists": [{"name": "a", "value": null},]})",
  }, {
    // add to top level element
    R"({"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]})",
    R"({"listOfMaps": [{"name": "f", "value": {"q":"p"}}]})",
  }, {
    // add to leaf element
    R"({"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]})",
    R"({"listOfMaps": [{"name": "a", "value": {"f":"p"}}]})",
  }, {
    // replace leaf element
    R"({"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]})",
    R"({"listOfMaps": [{"name": "a", "value": {"b":"p"}}]})",
  }, {
    // apply empty structure
    R"({"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]})",
    R"({"listOfMaps": [{"name": "a", "value": null}]})",
  }, {
    // add to top level element
    R"({"mapOfLists": {"b":["a","c"], "d":["e", "f"]}})",
    R"({"mapOfLists": {"x":["y","z"]}})",
  }, {
    // add to leaf element
    R"({"mapOfLists": {"b":["a","c"], "d":["e", "f"]}})",
    R"({"mapOfLists": {"b":["y","z"]}})",
  }, {
    // apply empty structure
    R"({"mapOfLists": {"b":["a","c"], "d":["e", "f"]}})",
    R"({"mapOfLists": {"b":null}})",
  }, {
    // add to top level element
    R"({"mapOfMaps": {"b":{"a":"x","c":"z"}, "d":{"e":"y", "f":"w"}}})",
    R"({"mapOfMaps": {"i":{"j":"k"}}})",
  }, {
    // add to leaf element
    R"({"mapOfMaps": {"b":{"a":"x","c":"z"}, "d":{"e":"y", "f":"w"}}})",
    R"({"mapOfMaps": {"b":{"j":"k"}}})",
  }, {
    // replace leaf element
    R"({"mapOfMaps": {"b":{"a":"x","c":"z"}, "d":{"e":"y", "f":"w"}}})",
    R"({"mapOfMaps": {"b":{"a":"k"}}})",
  }, {
    // apply empty structure
    R"({"mapOfMaps": {"b":{"a":"x","c":"z"}, "d":{"e":"y", "f":"w"}}})",
    R"({"mapOfMaps": {"b": null}})",
  }, {
    // misc: add another root type
    R"({"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]})",
    R"({"mapOfLists": {"b":["y","z"]}})",
  }, {
    // misc: recursive deeply nested leaves
    R"({"mapOfMapsRecursive": {"a":{"b":{"c":null}, "d":{"e":{"f":null}, "g":null}}}})",
    R"({"mapOfMapsRecursive": {"a":{"d":{"e":{"f":{"q":null}, "p":null}}}}})",
  }, {
    // misc: recursive deeply nested empty structure
    R"({"mapOfMapsRecursive": {"a":{"b":{"c":{"d":{"e":{"f":null}}, "g":{"h":null}, "i":null}}}}})",
    R"({"mapOfMapsRecursive": {"a":{"b":{"c":null}}}})",
  }},
  }};
}

// Applying a partially specified object and extracting its fields from the result gives it back.
TEST(TypedRemoveTest, ReversibleExtract) {
  for (const ReversibleExtractCase& test : reversible_extract_cases()) {
    const TypedParser parser(test.schema);
    for (std::size_t i = 0; i < test.pairs.size(); ++i) {
      SCOPED_TRACE(std::string(test.name) + "-valid-" + std::to_string(i));
      const TypedValue initial = parser.typed(test.root_type_name, test.pairs[i].object);
      const TypedValue pso = parser.typed(test.root_type_name, test.pairs[i].pso);
      const TypedValue merged = merge(initial, pso);
      // Extracting a non-leaf path takes everything under it: only the leaves are extracted.
      const TypedValue extracted = extract_items(merged, to_field_set(pso).leaves());
      EXPECT_EQ(extracted.value, pso.value) << "ExtractItems not reversible: expected "
                                            << boost::json::serialize(pso.value) << " but got "
                                            << boost::json::serialize(extracted.value);
    }
  }
}

struct ExtractTriplet {
  std::string_view object;
  Set set;
  std::string_view want_output;
};

struct ExtractWithKeysCase {
  std::string_view name;
  std::string_view root_type_name;
  std::string_view schema;
  std::vector<ExtractTriplet> triplets;
};

std::vector<ExtractWithKeysCase> extract_with_keys_cases() {
  return {{
  .name = "associativeAndAtomicSchema",
  .root_type_name = "myRoot",
  .schema = kAssociativeAndAtomicSchema,
  .triplets = {
    {
      // extract with all key fields included
      .object = R"({"list":[{"key":"nginx","id":1,"nv":2}]})",
      .set = NS(
        P("list", KBF("key", "nginx", "id", 1), "key"),
        P("list", KBF("key", "nginx", "id", 1), "id")
      ),
      .want_output = R"({"list":[{"key":"nginx","id":1}]})",
    },
    {
      // extract no key field included
      .object = R"({"list":[{"key":"nginx","id":1,"nv":2}]})",
      .set = NS(
        P("list", KBF("key", "nginx", "id", 1), "nv")
      ),
      .want_output = R"({"list":[{"key":"nginx","id":1, "nv":2}]})",
    },
    {
      // extract with partial keys included
      .object = R"({"list":[{"key":"nginx","id":1,"nv":2}]})",
      .set = NS(
        P("list", KBF("key", "nginx", "id", 1), "nv"),
        P("list", KBF("key", "nginx", "id", 1), "id")
      ),
      .want_output = R"({"list":[{"key":"nginx","id":1, "nv":2}]})",
    },
    {
      // extract with null field value
      .object = R"({"list":[{"key":"nginx","id":1,"nv":2}]})",
      .set = NS(
        P("list", KBF("key", "nginx", "id", 1), "value")
      ),
      .want_output = R"({"list":[null]})",  // map[string]interface{}{"list": []interface{}{nil}}
    },
    {
      // extract atomic element from associative list
      .object = R"({"atomicElementList":[{"id":"test-123","data":"value","extra":"field"}]})",
      .set = NS(
        P("atomicElementList", KBF("id", "test-123"))
      ),
      .want_output = R"({"atomicElementList":[{"id":"test-123","data":"value","extra":"field"}]})",
    },
  },
  }};
}

TEST(TypedRemoveTest, ExtractWithKeys) {
  for (const ExtractWithKeysCase& test : extract_with_keys_cases()) {
    const TypedParser parser(test.schema);
    for (std::size_t i = 0; i < test.triplets.size(); ++i) {
      SCOPED_TRACE(std::string(test.name) + "-valid-" + std::to_string(i));
      const ExtractTriplet& triplet = test.triplets[i];
      const TypedValue value = parser.typed(test.root_type_name, triplet.object);
      const TypedValue got = extract_items(value, triplet.set, true);
      const boost::json::value want = value_from_yaml(triplet.want_output);
      EXPECT_EQ(got.value, want) << "ExtractItems expected " << boost::json::serialize(want) << " but got "
                                 << boost::json::serialize(got.value);
    }
  }
}

}  // namespace
}  // namespace kapi::structured_merge::testing::typed_extract_test
