// smd's typed/remove_test.go, its RemoveItems and ExtractItems table (with smd's later fixes to extraction: empty
// maps and lists kept, atomic items extracted once). More extraction in typed_extract_test.cc.
#include "tests/unit/server/structured_merge/typed_remove_schemas.h"
#include "tests/unit/server/structured_merge/typed_test_util.h"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace kapi::structured_merge::testing::typed_remove_test {
namespace {

// "unparseable" marks an output the operation cannot be checked against; "" is a null value.
constexpr std::string_view kUnparseable = "unparseable";

struct RemoveQuadruplet {
  std::string_view object;
  Set set;
  std::string_view remove_output;
  std::string_view extract_output;
};

struct RemoveCase {
  std::string_view name;
  std::string_view root_type_name;
  std::string_view schema;
  std::vector<RemoveQuadruplet> quadruplets;
};

std::vector<RemoveCase> remove_cases() {
  return {{
  .name = "simple pair",
  .root_type_name = "stringPair",
  .schema = kSimplePairSchema,
  .quadruplets = {{
    R"({"key":"foo"})",
    NS(P("key")),
    R"()",
    R"({"key":"foo"})",
  }, {
    R"({"key":"foo"})",
    NS(),
    R"({"key":"foo"})",
    R"()",
  }, {
    R"({"key":"foo","value":true})",
    NS(P("key")),
    R"({"value":true})",
    R"({"key":"foo"})",
  }, {
    R"({"key":"foo","value":{"a": "b"}})",
    NS(P("value")),
    R"({"key":"foo"})",
    R"({"value":{"a": "b"}})",
  }},
}, {
  .name = "struct grab bag",
  .root_type_name = "myStruct",
  .schema = kStructGrabBagSchema,
  .quadruplets = {{
    R"({"setBool":[false]})",
    NS(P("setBool", V(false))),
    R"({"setBool":null})",
    R"({"setBool":[false]})",
  }, {
    R"({"setBool":[false]})",
    NS(P("setBool", V(true))),
    R"({"setBool":[false]})",
    R"({"setBool":null})",
  }, {
    R"({"setBool":[true,false]})",
    NS(P("setBool", V(true))),
    R"({"setBool":[false]})",
    R"({"setBool":[true]})",
  }, {
    R"({"setBool":[true,false]})",
    NS(P("setBool")),
    R"()",
    R"({"setBool":null})",
  }, {
    R"({"setNumeric":[1,2,3,4.5]})",
    NS(P("setNumeric", V(1)), P("setNumeric", V(4.5))),
    R"({"setNumeric":[2,3]})",
    R"({"setNumeric":[1,4.5]})",
  }, {
    R"({"setStr":["a","b","c"]})",
    NS(P("setStr", V("a"))),
    R"({"setStr":["b","c"]})",
    R"({"setStr":["a"]})",
  }},
}, {
  .name = "associative and atomic",
  .root_type_name = "myRoot",
  .schema = kAssociativeAndAtomicSchema,
  .quadruplets = {{
    // extract a struct from an associative list
    R"({"list":[{"key":"a","id":1},{"key":"a","id":2},{"key":"b","id":1}]})",
    NS(
      P("list", KBF("key", "a", "id", 1), "key"),
      P("list", KBF("key", "a", "id", 1), "id")
    ),
    R"(unparseable)",
    R"({"list":[{"key":"a","id":1}]})",
  }, {
    // remove structs from an associative list
    R"({"list":[{"key":"a","id":1},{"key":"a","id":2},{"key":"b","id":1}]})",
    NS(
      P("list", KBF("key", "a", "id", 1))
    ),
    R"({"list":[{"key":"a","id":2},{"key":"b","id":1}]})",
    R"(unparseable)",
  }, {
    R"({"atomicList":["a", "a", "a"]})",
    NS(P("atomicList")),
    R"()",
    // atomic lists should still return everything in the list
    R"({"atomicList":["a", "a", "a"]})",
  }, {
    R"({"atomicMap":{"a": "c", "b": "d"}})",
    NS(P("atomicMap")),
    R"()",
    // atomic maps should still return everything in the map
    R"({"atomicMap":{"a": "c", "b": "d"}})",
  }},
}, {
  .name = "nested types",
  .root_type_name = "type",
  .schema = kNestedTypesSchema,
  .quadruplets = {{
    // extract everything
    R"({"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]})",
    NS(
      P("listOfLists", KBF("name", "a"), "name"),
      P("listOfLists", KBF("name", "a"), "value", V("b")),
      P("listOfLists", KBF("name", "a"), "value", V("c")),
      P("listOfLists", KBF("name", "d"), "name")
    ),
    R"(unparseable)",
    R"({"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]})",
  }, {
    // path to root type
    R"({"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]})",
    NS(
      P("listOfLists")
    ),
    R"()",
    R"({"listOfLists": null})",
  }, {
    // path to a top-level element (extract)
    R"({"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]})",
    NS(P("listOfLists", KBF("name", "d"), "name")),
    //R"({"listOfLists": [{"name": "a", "value": ["b", "c"]}, null]})",
    R"(unparseable)",
    R"({"listOfLists": [{"name": "d"}]})",
  }, {
    // path to a top-level element (remove)
    R"({"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]})",
    NS(P("listOfLists", KBF("name", "d"))),
    R"({"listOfLists": [{"name": "a", "value": ["b", "c"]}]})",
    R"(unparseable)",
  }, {
    // same as previous with the other top-level element containing nested elements. (extract)
    R"({"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]})",
    NS(
      P("listOfLists", KBF("name", "a"), "name")
    ),
    R"(unparseable)",
    R"({"listOfLists": [{"name": "a"}]})",
  }, {
    // same as previous with the other top-level element containing nested elements. (remove)
    R"({"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]})",
    NS(
      P("listOfLists", KBF("name", "a"))
    ),
    R"({"listOfLists": [{"name": "d"}]})",
    R"(unparseable)",
  }, {
    // just one path to leaf element
    R"({"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]})",
    NS(
      P("listOfLists", KBF("name", "a"), "value", V("b"))
    ),
    R"({"listOfLists": [{"name":"a", "value": ["c"]}, {"name": "d"}]})",
    R"(unparseable)", // cannot extract leaf element without path to top-level element as well
  }, {
    // paths to leaf and top level element
    R"({"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]})",
    NS(
      P("listOfLists", KBF("name", "a"), "name"),
      P("listOfLists", KBF("name", "a"), "value", V("b"))
    ),
    R"(unparseable)", // cannot remove a top-level list and a single element from the list within
    R"({"listOfLists": [{"name": "a", "value": ["b"]}]})",
  }, {
    // path to non-existant top-level element
    R"({"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]})",
    NS(
      P("listOfLists", KBF("name", "x"))
    ),
    R"({"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]})", // doesn't remove anything
    R"({"listOfLists":null})", // extract only the root type
  }, {
    // path with existant top-level but non-existant leaf element
    R"({"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]})",
    NS(
      P("listOfLists", KBF("name", "a"), "value", V("x"))
    ),
    R"({"listOfLists": [{"name":"a", "value": ["b","c"]}, {"name": "d"}]})", // nothing removed since the path doesn't exist.
    R"(unparseable)", //R"({"listOfLists":[{"value":null}]})", // unparseable because name cannot be missing
  }, {
    // paths with existant top-level but non-existant leaf element
    R"({"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]})",
    NS(
      P("listOfLists", KBF("name", "a"), "name"),
      P("listOfLists", KBF("name", "a"), "value", V("x"))
    ),
    R"(unparseable)", // unparseable because remove cannot operate on a top-level element and a leaf within
    R"(unparseable)", //R"({"listOfLists":[{"name: "a","value": null}]})", // unparseable because value (list type) cannot be null
  }, {
    // invalid path to just a leaf
    R"({"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]})",
    NS(
      P(V("b"))
    ),
    R"({"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]})",
    R"()",
  }, {
    // extract everything
    R"({"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]})",
    NS(
      P("listOfMaps", KBF("name", "a"), "name"),
      P("listOfMaps", KBF("name", "a"), "value", "b"),
      P("listOfMaps", KBF("name", "a"), "value", "c"),
      P("listOfMaps", KBF("name", "d"), "name"),
      P("listOfMaps", KBF("name", "d"), "value", "e")
    ),
    R"(unparseable)",
    R"({"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]})",
  }, {
    // path to root type
    R"({"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]})",
    NS(
      P("listOfMaps")
    ),
    R"()",
    R"({"listOfMaps"})",
  }, {
    // path to a top-level element (extract)
    R"({"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]})",
    NS(
      P("listOfMaps", KBF("name", "a"), "name")
    ),
    R"(unparseable)",
    R"({"listOfMaps": [{"name": "a"}]})",
  }, {
    // path to a top-level element (remove)
    R"({"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]})",
    NS(
      P("listOfMaps", KBF("name", "a"))
    ),
    R"({"listOfMaps": [{"name": "d", "value": {"e":"z"}}]})",
    R"(unparseable)",
  }, {
    // just one path to leaf element
    R"({"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]})",
    NS(
      P("listOfMaps", KBF("name", "a"), "value", "b")
    ),
    R"({"listOfMaps": [{"name": "a", "value": {"c":"y"}}, {"name": "d", "value": {"e":"z"}}]})",
    R"(unparseable)", // cannot extract leaf element without path to top-level element as well
  }, {
    // paths to leaf and top level element
    R"({"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]})",
    NS(
      P("listOfMaps", KBF("name", "a"), "name"),
      P("listOfMaps", KBF("name", "a"), "value", "b")
    ),
    R"(unparseable)", // cannot remove a top-lvel list and a single element from the list within
    R"({"listOfMaps": [{"name": "a", "value": {"b":"x"}}]})",
  }, {
    // path to non-existant top-level element
    R"({"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]})",
    NS(
      P("listOfMaps", KBF("name", "q"), "name")
    ),
    R"({"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]})", // doesn't remove anything
    R"({"listOfMaps":null})", // extract only the root type
  }, {
    // path with existant top-level but non-existant leaf element.
    R"({"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]})",
    NS(
      P("listOfMaps", KBF("name", "a"), "value", "q")
    ),
    R"({"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]})", // doesn't remove anything
    R"(unparseable)", //R"({"listOfMaps": [{"value": null}]})", // unparseable because name cannot be missing
  }, {
    // paths with existant top-level but non-existant leaf element
    R"({"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]})",
    NS(
      P("listOfMaps", KBF("name", "a"), "name"),
      P("listOfMaps", KBF("name", "a"), "value", "q")
    ),
    R"(unparseable)", // unparseable because remove cannot operate on a top-level element and a leaf within
    R"({"listOfMaps": [{"name":"a", "value": null}]})", // parseable because value (map type) CAN be null
  }, {
    // extract everything
    R"({"mapOfLists": {"b":["a","c"], "d":["e", "f"]}})",
    NS(
      P("mapOfLists", "b", V("a")),
      P("mapOfLists", "b", V("c")),
      P("mapOfLists", "d", V("e")),
      P("mapOfLists", "d", V("f"))
    ),
    R"(unparseable)",
    R"({"mapOfLists": {"b":["a","c"], "d":["e", "f"]}})",
  }, {
    // path to root type
    R"({"mapOfLists": {"b":["a","c"], "d":["e", "f"]}})",
    NS(
      P("mapOfLists")
    ),
    R"()",
    R"({"mapOfLists":null})",
  }, {
    // path to a top-level element
    R"({"mapOfLists": {"b":["a","c"], "d":["e", "f"]}})",
    NS(
      P("mapOfLists", "b")
    ),
    R"({"mapOfLists": {"d":["e", "f"]}})",
    R"({"mapOfLists": {"b":null}})",
  }, {
    // just one path to leaf element
    R"({"mapOfLists": {"b":["a","c"], "d":["e", "f"]}})",
    NS(
      P("mapOfLists", "b", V("a"))
    ),
    R"({"mapOfLists":{"b":["c"],"d":["e", "f"]}})",
    R"({"mapOfLists":{"b":["a"]}})",
  }, {
    // path to non-existant top-level element
    R"({"mapOfLists": {"b":["a","c"], "d":["e", "f"]}})",
    NS(
      P("mapOfLists", "q")
    ),
    R"({"mapOfLists": {"b":["a","c"], "d":["e", "f"]}})",
    R"({"mapOfLists":null})",
  }, {
    // path with existant top-level but non-existant leaf element
    R"({"mapOfLists": {"b":["a","c"], "d":["e", "f"]}})",
    NS(
      P("mapOfLists", "b", V("q"))
    ),
    R"({"mapOfLists": {"b":["a","c"], "d":["e", "f"]}})",
    R"({"mapOfLists":{"b":null}})",
  }, {
    // path with existant top-level but non-existant leaf element
    R"({"mapOfLists": {"b":null, "d":["e", "f"]}})",
    NS(
      P("mapOfLists", "b")
    ),
    R"({"mapOfLists": {"d":["e", "f"]}})",
    R"({"mapOfLists":{"b":null}})", // same output as previous case, but can be differentiated by input fieldpath.Set
  }, {
    // invalid path to just a leaf
    R"({"mapOfLists": {"b":["a","c"], "d":["e", "f"]}})",
    NS(
      P(V("a"))
    ),
    R"({"mapOfLists": {"b":["a","c"], "d":["e", "f"]}})",
    R"()",
  }, {
    // extract everything
    R"({"mapOfMaps": {"b":{"a":"x","c":"z"}, "d":{"e":"y", "f":"w"}}})",
    NS(
      P("mapOfMaps", "b", "a"),
      P("mapOfMaps", "b", "c"),
      P("mapOfMaps", "d", "e"),
      P("mapOfMaps", "d", "f")
    ),
    R"(unparseable)",
    R"({"mapOfMaps": {"b":{"a":"x","c":"z"}, "d":{"e":"y", "f":"w"}}})",
  }, {
    // path to root type
    R"({"mapOfMaps": {"b":{"a":"x","c":"z"}, "d":{"e":"y", "f":"w"}}})",
    NS(
      P("mapOfMaps")
    ),
    R"()",
    R"({"mapOfMaps":null})",
  }, {
    // path to a top-level element
    R"({"mapOfMaps": {"b":{"a":"x","c":"z"}, "d":{"e":"y", "f":"w"}}})",
    NS(
      P("mapOfMaps", "b")
    ),
    R"({"mapOfMaps": {"d":{"e":"y", "f":"w"}}})",
    R"({"mapOfMaps": {"b":null}})",
  }, {
    // just one path to leaf element
    R"({"mapOfMaps": {"b":{"a":"x","c":"z"}, "d":{"e":"y", "f":"w"}}})",
    NS(
      P("mapOfMaps", "b", "a")
    ),
    R"({"mapOfMaps": {"b":{"c":"z"},"d":{"e":"y", "f":"w"}}})",
    R"({"mapOfMaps": {"b":{"a":"x"}}})",
  }, {
    // path to non-existant top-level element
    R"({"mapOfMaps": {"b":{"a":"x","c":"z"}, "d":{"e":"y", "f":"w"}}})",
    NS(
      P("mapOfMaps", "q")
    ),
    R"({"mapOfMaps": {"b":{"a":"x","c":"z"}, "d":{"e":"y", "f":"w"}}})",
    R"({"mapOfMaps": null})",
  }, {
    // path with existant top-level but non-existant leaf element
    R"({"mapOfMaps": {"b":{"a":"x","c":"z"}, "d":{"e":"y", "f":"w"}}})",
    NS(
      P("mapOfMaps", "b", "q")
    ),
    R"({"mapOfMaps": {"b":{"a":"x","c":"z"}, "d":{"e":"y", "f":"w"}}})",
    R"({"mapOfMaps": {"b":null}})",
  }, {
    // top-level element with null leaf elements
    R"({"mapOfMaps": {"b":null, "d":{"e":"y", "f":"w"}}})",
    NS(
      P("mapOfMaps", "b")
    ),
    R"({"mapOfMaps": {"d":{"e":"y", "f":"w"}}})",
    R"({"mapOfMaps": {"b":null}})", // same output as previous case, but can be differentiated by input fieldpath.Set
  }, {
    // invalid path to just a leaf
    R"({"mapOfMaps": {"b":{"a":"x","c":"z"}, "d":{"e":"y", "f":"w"}}})",
    NS(
      P("a")
    ),
    R"({"mapOfMaps": {"b":{"a":"x","c":"z"}, "d":{"e":"y", "f":"w"}}})",
    R"()",
  }, {
    // root element
    R"({"mapOfMapsRecursive": {"a":{"b":{"c":null}}}})",
    NS(
      P("mapOfMapsRecursive")
    ),
    R"()",
    R"({"mapOfMapsRecursive":null})",
  }, {
    // top-level map
    R"({"mapOfMapsRecursive": {"a":{"b":{"c":null}}}})",
    NS(
      P("mapOfMapsRecursive", "a")
    ),
    R"({"mapOfMapsRecursive"})",
    R"({"mapOfMapsRecursive": {"a":null}})",
  }, {
    // second-level map
    R"({"mapOfMapsRecursive": {"a":{"b":{"c":null}}}})",
    NS(
      P("mapOfMapsRecursive", "a", "b")
    ),
    R"({"mapOfMapsRecursive":{"a":null}})",
    R"({"mapOfMapsRecursive": {"a":{"b":null}}})",
  }, {
    // third-level map
    R"({"mapOfMapsRecursive": {"a":{"b":{"c":null}}}})",
    NS(
      P("mapOfMapsRecursive", "a", "b", "c")
    ),
    R"({"mapOfMapsRecursive":{"a":{"b":null}}})",
    R"({"mapOfMapsRecursive": {"a":{"b":{"c":null}}}})",
  }, {
    // empty list
    R"({"listOfLists": []})",
    NS(
      P("listOfLists")
    ),
    R"()",
    R"({"listOfLists": []})",
  }, {
    // null list
    R"({"listOfLists": null})",
    NS(
      P("listOfLists")
    ),
    R"()",
    R"({"listOfLists": null})",
  }, {
    // empty map
    R"({"mapOfMaps": {}})",
    NS(
      P("mapOfMaps")
    ),
    R"()",
    R"({"mapOfMaps": {}})",
  }, {
    // nil map
    R"({"mapOfMaps": null})",
    NS(
      P("mapOfMaps")
    ),
    R"()",
    R"({"mapOfMaps": null})",
  }},
  }};
}

TEST(TypedRemoveTest, SmdCases) {
  for (const RemoveCase& test : remove_cases()) {
    const TypedParser parser(test.schema);
    for (std::size_t i = 0; i < test.quadruplets.size(); ++i) {
      SCOPED_TRACE(std::string(test.name) + "-valid-" + std::to_string(i));
      const RemoveQuadruplet& quadruplet = test.quadruplets[i];
      const TypedValue value = parser.typed(test.root_type_name, quadruplet.object);
      if (quadruplet.remove_output != kUnparseable) {
        const TypedValue want = parser.typed(test.root_type_name, quadruplet.remove_output);
        const TypedValue got = remove_items(value, quadruplet.set);
        EXPECT_EQ(got.value, want.value) << "RemoveItems expected " << boost::json::serialize(want.value)
                                         << " but got " << boost::json::serialize(got.value);
      }
      if (quadruplet.extract_output != kUnparseable) {
        const TypedValue want = parser.typed(test.root_type_name, quadruplet.extract_output);
        const TypedValue got = extract_items(value, quadruplet.set);
        EXPECT_EQ(got.value, want.value) << "ExtractItems expected " << boost::json::serialize(want.value)
                                         << " but got " << boost::json::serialize(got.value);
      }
    }
  }
}

}  // namespace
}  // namespace kapi::structured_merge::testing::typed_remove_test
