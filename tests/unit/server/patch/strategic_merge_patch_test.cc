// Cases ported from k8s.io/apimachinery/pkg/util/strategicpatch/patch_test.go, over its MergeItem test type.
#include "server/patch/strategic_merge_patch.h"

#include "tests/unit/server/patch/patch_test_util.h"

#include <gtest/gtest.h>

#include <string>

namespace kapi::patch::strategic_merge_patch_test {
namespace {

using testing::json;
using testing::patch_error;

// MergeItem is recursive; a few levels cover every case here.
MapPatchSchema merge_item(int depth) {
  if (depth == 0) return MapPatchSchema::object("MergeItem", {"name", "value", "other"});
  MapPatchSchema item = merge_item(depth - 1);
  MapPatchSchema retain_keys_item = MapPatchSchema::object(
      "RetainKeysMergeItem", {"name", "value", "other", {"simpleMap", MapPatchSchema::map()},
                              {"mergingIntList", MapPatchSchema::list(), {"merge", ""}},
                              {"mergingList", MapPatchSchema::list(item), {"merge", "name"}},
                              {"nonMergingList", MapPatchSchema::list(item)}});
  return MapPatchSchema::object(
      "MergeItem", {"name", "value", "other",
                    {"mergingList", MapPatchSchema::list(item), {"merge", "name"}},
                    {"nonMergingList", MapPatchSchema::list(item)},
                    {"mergingIntList", MapPatchSchema::list(), {"merge", ""}},
                    {"nonMergingIntList", MapPatchSchema::list()},
                    {"simpleMap", MapPatchSchema::map()},
                    {"replacingItem", {"replace", ""}},
                    {"retainKeysMap", retain_keys_item, {"retainKeys", ""}},
                    {"retainKeysMergingList", MapPatchSchema::list(item), {"merge,retainKeys", "name"}}});
}

const MapPatchSchema& schema() {
  static const MapPatchSchema kMergeItem = merge_item(4);
  return kMergeItem;
}

struct Case {
  const char* name;
  const char* original;
  const char* patch;
  const char* result;
};

class StrategicMergePatchKubeCases : public ::testing::TestWithParam<Case> {};

TEST_P(StrategicMergePatchKubeCases, ApplyingThePatchGivesTheResult) {
  const Case& c = GetParam();
  EXPECT_EQ(apply_strategic_merge_patch(json(c.original), c.patch, schema()), json(c.result))
      << boost::json::serialize(apply_strategic_merge_patch(json(c.original), c.patch, schema()));
}

const Case kCases[] = {
    // customStrategicMergePatchTestCaseData
    {"UniqueScalarsWhenMergingLists", R"({"mergingIntList":[1,2]})", R"({"mergingIntList":[2,3]})",
     R"({"mergingIntList":[1,2,3]})"},
    {"DeleteMapFromNestedMap", R"({"simpleMap":{"key1":1,"key2":1}})", R"({"simpleMap":{"$patch":"delete"}})",
     R"({"simpleMap":{}})"},
    {"DeleteAllItemsFromMergingList", R"({"mergingList":[{"name":"1"},{"name":"2"}]})",
     R"({"mergingList":[{"$patch":"replace"}]})", R"({"mergingList":[]})"},
    {"MergeEmptyMergingLists", R"({"mergingList":[]})", R"({"mergingList":[]})", R"({"mergingList":[]})"},
    {"DeleteAllKeysFromMap", R"({"name":1,"value":1})", R"({"$patch":"replace"})", R"({})"},
    {"AddKeyAndDeleteAllKeysFromMap", R"({"name":1,"value":1})", R"({"other":"a","$patch":"replace"})",
     R"({"other":"a"})"},
    {"DeleteAllDuplicateEntriesInAMergingList",
     R"({"mergingList":[{"name":1},{"name":1},{"name":2,"value":"a"},{"name":3},{"name":3}]})",
     R"({"mergingList":[{"name":1,"$patch":"delete"},{"name":3,"$patch":"delete"}]})",
     R"({"mergingList":[{"name":2,"value":"a"}]})"},
    {"RetainKeysMapCanAddAFieldWithoutDirective", R"({"retainKeysMap":{"name":"foo"}})",
     R"({"retainKeysMap":{"value":"bar"}})", R"({"retainKeysMap":{"name":"foo","value":"bar"}})"},
    {"RetainKeysMapCanDeleteAFieldWithoutDirective", R"({"retainKeysMap":{"name":"foo","value":"a"}})",
     R"({"retainKeysMap":{"value":null}})", R"({"retainKeysMap":{"name":"foo"}})"},
    {"RetainKeysMapMergesAnEmptyMap", R"({"retainKeysMap":{"name":"foo","value":"a"}})", R"({"retainKeysMap":{}})",
     R"({"retainKeysMap":{"name":"foo","value":"a"}})"},
    {"RetainKeysListCanChangeAFieldWithoutDirective",
     R"({"retainKeysMergingList":[{"name":"bar"},{"name":"foo","value":"a"}]})",
     R"({"retainKeysMergingList":[{"name":"foo","value":"b"}]})",
     R"({"retainKeysMergingList":[{"name":"bar"},{"name":"foo","value":"b"}]})"},
    {"PreserveTheOrderFromThePatchInAMergingList",
     R"({"mergingList":[{"name":1},{"name":2,"value":"b"},{"name":3}]})",
     R"({"mergingList":[{"name":3,"value":"c"},{"name":1,"value":"a"},{"name":2,"other":"x"}]})",
     R"({"mergingList":[{"name":3,"value":"c"},{"name":1,"value":"a"},{"name":2,"value":"b","other":"x"}]})"},
    {"PreserveTheOrderFromThePatchInAMergingList2",
     R"({"mergingList":[{"name":1},{"name":2,"value":"b"},{"name":3}]})",
     R"({"mergingList":[{"name":3,"value":"c"},{"name":1,"value":"a"}]})",
     R"({"mergingList":[{"name":2,"value":"b"},{"name":3,"value":"c"},{"name":1,"value":"a"}]})"},
    {"PreserveTheOrderFromThePatchInAMergingIntList", R"({"mergingIntList":[1,2,3]})",
     R"({"mergingIntList":[3,1,2]})", R"({"mergingIntList":[3,1,2]})"},
    {"PreserveTheOrderFromThePatchInAMergingIntList2", R"({"mergingIntList":[1,2,3]})",
     R"({"mergingIntList":[3,1]})", R"({"mergingIntList":[2,3,1]})"},
    // customStrategicMergePatchRawTestCases
    {"SetElementOrderNamesAnItemTheListLacks", R"({"mergingList":[{"name":1},{"name":3}]})",
     R"({"$setElementOrder/mergingList":[{"name":3},{"name":2},{"name":1}],
         "mergingList":[{"name":3,"value":3},{"name":1,"value":1}]})",
     R"({"mergingList":[{"name":3,"value":3},{"name":1,"value":1}]})"},
    {"SetElementOrderNamesAnIntTheListLacks", R"({"mergingIntList":[1,3]})",
     R"({"$setElementOrder/mergingIntList":[3,2,1]})", R"({"mergingIntList":[3,1]})"},
    {"DeleteFromPrimitiveListOfAMissingItem", R"({"mergingIntList":[1,2]})",
     R"({"$deleteFromPrimitiveList/mergingIntList":[3]})", R"({"mergingIntList":[1,2]})"},
    {"DeleteFromPrimitiveListOfANullList", R"({"mergingIntList":null})",
     R"({"$deleteFromPrimitiveList/mergingIntList":[3]})", R"({"mergingIntList":null})"},
    {"DeleteFromPrimitiveListOfAMissingList", R"({"foo":["bar"]})",
     R"({"$deleteFromPrimitiveList/mergingIntList":[3]})", R"({"foo":["bar"]})"},
    {"DeleteFromPrimitiveListWithMergeStrategy", R"({"mergingIntList":[1,2,3]})",
     R"({"$deleteFromPrimitiveList/mergingIntList":[2]})", R"({"mergingIntList":[1,3]})"},
    {"DeleteFromPrimitiveListWithoutMergeStrategy", R"({"nonMergingIntList":[1,2,3]})",
     R"({"$deleteFromPrimitiveList/nonMergingIntList":[2]})", R"({"nonMergingIntList":[1,3]})"},
    // createStrategicMergePatchTestCaseData, applied as twoWay to original or threeWay to current
    {"AddFieldAndDeleteFieldFromMap", R"({"name":1,"other":"a"})", R"({"name":null,"value":1})",
     R"({"value":1,"other":"a"})"},
    {"DeleteFieldFromNestedMap", R"({"simpleMap":{"key1":1,"key2":1,"other":"a"}})", R"({"simpleMap":{"key2":null}})",
     R"({"simpleMap":{"key1":1,"other":"a"}})"},
    {"ReplaceListOfScalars", R"({"nonMergingIntList":[1,2]})", R"({"nonMergingIntList":[2,3]})",
     R"({"nonMergingIntList":[2,3]})"},
    {"DeleteAllMapsFromMergingList", R"({"mergingList":[{"name":1,"other":"a"},{"name":2,"other":"b"}]})",
     R"({"mergingList":[{"name":1,"$patch":"delete"},{"name":2,"$patch":"delete"}]})", R"({"mergingList":[]})"},
    {"DefinedNullsOverwriteCurrentFields", R"({"name":"a","other":"a"})", R"({"name":1,"value":1,"other":null})",
     R"({"name":1,"value":1})"},
    {"NestedPatchMergeWithEmptyListTwoWay", R"({"name":"hi"})",
     R"({"mergingList":[{"name":"hello"},{"$patch":"delete","name":"doesntexist"}]})",
     R"({"name":"hi","mergingList":[{"name":"hello"}]})"},
    {"NestedPatchMergeWithEmptyListThreeWay", R"({"name":"hi","mergingList":[{"name":"hello2"}]})",
     R"({"$setElementOrder/mergingList":[{"name":"hello"},{"name":"doesntexist"}],
         "mergingList":[{"name":"hello"},{"$patch":"delete","name":"doesntexist"}]})",
     R"({"name":"hi","mergingList":[{"name":"hello"},{"name":"hello2"}]})"},
    {"DeleteItemsInListsOfScalars", R"({"mergingIntList":[1,2,3,4]})",
     R"({"$setElementOrder/mergingIntList":[1,2],"$deleteFromPrimitiveList/mergingIntList":[3]})",
     R"({"mergingIntList":[1,2,4]})"},
    {"DeleteAllDuplicateItemsInListsOfScalars", R"({"mergingIntList":[1,2,3,3,4]})",
     R"({"$setElementOrder/mergingIntList":[1,2],"$deleteFromPrimitiveList/mergingIntList":[3]})",
     R"({"mergingIntList":[1,2,4]})"},
    {"AddAndDeleteItemsInListsOfScalars", R"({"mergingIntList":[1,2,3]})",
     R"({"$setElementOrder/mergingIntList":[1,2,4],"$deleteFromPrimitiveList/mergingIntList":[3],
         "mergingIntList":[4]})",
     R"({"mergingIntList":[1,2,4]})"},
    {"MergeListsOfMaps", R"({"mergingList":[{"name":1,"other":"a"},{"name":2,"value":2,"other":"b"}]})",
     R"({"$setElementOrder/mergingList":[{"name":4},{"name":1},{"name":2},{"name":3}],
         "mergingList":[{"name":4,"value":4},{"name":3,"value":3}]})",
     R"({"mergingList":[{"name":4,"value":4},{"name":1,"other":"a"},{"name":2,"value":2,"other":"b"},
                        {"name":3,"value":3}]})"},
    {"MergeListsOfMapsWithConflict", R"({"mergingList":[{"name":1,"other":"a"},{"name":2,"value":3,"other":"b"}]})",
     R"({"$setElementOrder/mergingList":[{"name":1},{"name":2},{"name":3}],
         "mergingList":[{"name":2,"value":2},{"name":3,"value":3}]})",
     R"({"mergingList":[{"name":1,"other":"a"},{"name":2,"value":2,"other":"b"},{"name":3,"value":3}]})"},
    {"AddFieldToMapInMergingListWithConflict",
     R"({"mergingList":[{"name":1,"other":"a"},{"name":3,"value":2,"other":"b"}]})",
     R"({"$setElementOrder/mergingList":[{"name":1},{"name":2}],
         "mergingList":[{"name":1,"value":1},{"name":2,"value":2}]})",
     R"({"mergingList":[{"name":1,"value":1,"other":"a"},{"name":2,"value":2},{"name":3,"value":2,"other":"b"}]})"},
    {"DeleteMapFromMergingList", R"({"mergingList":[{"name":1},{"name":2,"other":"b"}]})",
     R"({"$setElementOrder/mergingList":[{"name":2}],"mergingList":[{"name":1,"$patch":"delete"}]})",
     R"({"mergingList":[{"name":2,"other":"b"}]})"},
    {"DeleteMissingMapFromMergingListWithConflict", R"({"mergingList":[{"name":3,"other":"a"}]})",
     R"({"$setElementOrder/mergingList":[{"name":2}],"mergingList":[{"name":2},{"name":1,"$patch":"delete"}]})",
     R"({"mergingList":[{"name":2},{"name":3,"other":"a"}]})"},
    // The next two depend on strategicpatch ordering by the original list as Go's slice aliasing leaves it.
    {"AddMapAndDeleteMapFromMergingList",
     R"({"mergingList":[{"name":1},{"name":2,"other":"b"},{"name":4,"other":"c"}]})",
     R"({"$setElementOrder/mergingList":[{"name":2},{"name":3}],
         "mergingList":[{"name":3},{"name":1,"$patch":"delete"}]})",
     R"({"mergingList":[{"name":2,"other":"b"},{"name":4,"other":"c"},{"name":3}]})"},
    {"AddMapAndDeleteMapFromMergingListWithConflict",
     R"({"mergingList":[{"name":1,"other":"a"},{"name":4,"other":"c"}]})",
     R"({"$setElementOrder/mergingList":[{"name":2},{"name":3}],
         "mergingList":[{"name":2},{"name":3},{"name":1,"$patch":"delete"}]})",
     R"({"mergingList":[{"name":4,"other":"c"},{"name":2},{"name":3}]})"},
    {"DeleteFieldFromMapInMergingList",
     R"({"mergingList":[{"name":1,"value":1,"other":"a"},{"name":2,"value":2,"other":"b"}]})",
     R"({"$setElementOrder/mergingList":[{"name":1},{"name":2}],"mergingList":[{"name":1,"value":null}]})",
     R"({"mergingList":[{"name":1,"other":"a"},{"name":2,"value":2,"other":"b"}]})"},
    {"ReplaceNonMergingListNestedInMergingList",
     R"({"mergingList":[{"name":1,"other":"a","nonMergingList":[{"name":1},{"name":2,"value":2}]},
                        {"name":2,"other":"b"}]})",
     R"({"$setElementOrder/mergingList":[{"name":1},{"name":2}],
         "mergingList":[{"name":1,"nonMergingList":[{"name":1,"value":1}]}]})",
     R"({"mergingList":[{"name":1,"other":"a","nonMergingList":[{"name":1,"value":1}]},{"name":2,"other":"b"}]})"},
    {"MergeListNestedInMergingList",
     R"({"mergingList":[{"name":1,"mergingList":[{"name":"a","value":1}]}]})",
     R"({"mergingList":[{"name":1,"mergingList":[{"name":"a","other":2},{"name":"b"}]}]})",
     R"({"mergingList":[{"name":1,"mergingList":[{"name":"a","value":1,"other":2},{"name":"b"}]}]})"},
    {"ReplaceStrategyReplacesAMapWhole", R"({"replacingItem":{"a":1,"b":{"c":2}}})",
     R"({"replacingItem":{"b":{"d":3}}})", R"({"replacingItem":{"b":{"d":3}}})"},
    {"RetainKeysDirectiveClearsUnlistedFields", R"({"retainKeysMap":{"name":"foo","value":"a","other":"b"}})",
     R"({"retainKeysMap":{"$retainKeys":["name","other"],"other":"c"}})",
     R"({"retainKeysMap":{"name":"foo","other":"c"}})"},
    {"RetainKeysInAMergingListElement",
     R"({"retainKeysMergingList":[{"name":"foo","value":"a","other":"b"},{"name":"bar","value":"x"}]})",
     R"({"$setElementOrder/retainKeysMergingList":[{"name":"foo"},{"name":"bar"}],
         "retainKeysMergingList":[{"$retainKeys":["name","value"],"name":"foo","value":"z"}]})",
     R"({"retainKeysMergingList":[{"name":"foo","value":"z"},{"name":"bar","value":"x"}]})"},
    {"NewValuesLoseTheirNullsAndDirectives", R"({})",
     R"({"simpleMap":{"a":null,"b":"1"},"mergingList":[{"name":1,"value":null},{"name":2,"$patch":"delete"}]})",
     R"({"simpleMap":{"b":"1"},"mergingList":[{"name":1}]})"},
    {"APatchValueOfAnotherTypeReplaces", R"({"value":{"a":1},"mergingList":"x"})",
     R"({"value":"s","mergingList":[{"name":1}]})", R"({"value":"s","mergingList":[{"name":1}]})"},
    {"NullPatchChangesNothing", R"({"name":1})", "null", R"({"name":1})"},
};

INSTANTIATE_TEST_SUITE_P(Kube, StrategicMergePatchKubeCases, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.name); });

struct ErrorCase {
  const char* name;
  const char* original;
  const char* patch;
  int code;
  const char* message;
};

class StrategicMergePatchKubeErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(StrategicMergePatchKubeErrors, FailsWithKubesStatus) {
  const ErrorCase& c = GetParam();
  auto error = patch_error([&] { apply_strategic_merge_patch(json(c.original), c.patch, schema()); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->status().code, c.code);
  EXPECT_EQ(error->status().message, c.message);
}

const ErrorCase kErrors[] = {
    {"OrderOfSetElementOrderAndPatchListMustMatch", R"({"mergingList":[{"name":1},{"name":3},{"name":2}]})",
     R"({"$setElementOrder/mergingList":[{"name":1},{"name":2},{"name":3}],
         "mergingList":[{"name":3,"value":3},{"name":1,"value":1}]})",
     500,
     "the order in patch list:\n[map[name:3 value:3] map[name:1 value:1]]\n doesn't match $setElementOrder list:\n"
     "[map[name:1] map[name:2] map[name:3]]"},
    {"OrderOfSetElementOrderAndPatchIntListMustMatch", R"({"mergingIntList":[1,3,2]})",
     R"({"$setElementOrder/mergingIntList":[1,2,3],"mergingIntList":[3,1]})", 500,
     "the order in patch list:\n[3 1]\n doesn't match $setElementOrder list:\n[1 2 3]"},
    {"MissingMergeKey", R"({"mergingList":[{"name":1,"value":"a"}]})", R"({"mergingList":[{"value":"b"}]})", 500,
     "map: map[value:b] does not contain declared merge key: name"},
    {"DeleteDirectiveWithoutMergeKey", R"({"mergingList":[{"name":1}]})",
     R"({"mergingList":[{"$patch":"delete","value":"b"}]})", 500,
     "map: map[$patch:delete value:b] does not contain declared merge key: name"},
    {"MergeDirectiveInAList", R"({"mergingList":[{"name":1}]})", R"({"mergingList":[{"$patch":"merge"}]})", 500,
     "merging lists cannot yet be specified in the patch"},
    {"MergeDirectiveInAMap", R"({"simpleMap":{"a":"1"}})", R"({"simpleMap":{"$patch":"merge","b":"2"}})", 500,
     "unknown patch type: merge in map: map[$patch:merge b:2]"},
    {"UnknownDirectiveInAListElement", R"({"mergingList":[{"name":1}]})",
     R"({"mergingList":[{"$patch":7,"name":1}]})", 500, "unknown patch type: %!s(int64=7) in map: map[$patch:7 name:1]"},
    {"ListsOfLists", R"({"mergingIntList":[]})", R"({"mergingIntList":[[1]]})", 422,
     "the server rejected our request due to an error in our request"},
    {"MixedElementTypes", R"({"mergingIntList":[1]})", R"({"mergingIntList":["a"]})", 500,
     "list element types are not identical: [[1] [a]]"},
    {"IntAndFloatAreDifferentTypesToGo", R"({"mergingIntList":[1]})", R"({"mergingIntList":[1.5]})", 500,
     "list element types are not identical: [[1] [1.5]]"},
    {"RetainKeysMustBeAList", R"({"retainKeysMap":{"name":"a"}})", R"({"retainKeysMap":{"$retainKeys":"name"}})", 400,
     "invalid patch format of retainKeys"},
    {"RetainKeysMustNameEveryPatchedField", R"({"retainKeysMap":{"name":"a"}})",
     R"({"retainKeysMap":{"$retainKeys":["name"],"value":"b"}})", 400, "invalid patch format of retainKeys"},
    {"SetElementOrderNeedsASlash", R"({"mergingList":[]})", R"({"$setElementOrdermergingList":[]})", 400,
     "invalid patch format of setElementOrder list"},
    {"SetElementOrderMustBeAList", R"({"mergingList":[]})", R"({"$setElementOrder/mergingList":{}})", 500,
     "expected a []interface {}, but received a map[string]interface {}"},
    {"DeleteFromPrimitiveListNeedsASlash", R"({"mergingIntList":[1]})",
     R"({"$deleteFromPrimitiveListmergingIntList":[1]})", 400, "invalid patch format of primitive list"},
    {"MergeListWithoutMergeKeyInTheSchema", R"({"nonMergingList":[{"name":1}]})",
     R"({"$deleteFromPrimitiveList/nonMergingList":[{"name":1}]})", 500,
     "cannot merge lists without merge key for MergeItem"},
    {"PatchIsNotAnObject", R"({})", "[1]", 400,
     "json: cannot unmarshal array into Go value of type map[string]interface {}"},
    {"PatchIsNotJson", R"({})", R"({"name":})", 400, "invalid character '}' looking for beginning of value"},
    {"PatchIsTruncated", R"({})", R"({"name":"x)", 400, "unexpected end of JSON input"},
    {"PatchHasAControlCharacterInAString", R"({})", "{\"name\":\"a\tb\"}", 400,
     "invalid character '\\t' in string literal"},
    {"DocumentIsNotAnObject", R"([])", R"({})", 400, "invalid JSON document"},
};

INSTANTIATE_TEST_SUITE_P(Kube, StrategicMergePatchKubeErrors, ::testing::ValuesIn(kErrors),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(StrategicMergePatch, ErrorsKubeDoesNotConvertHaveNoReason) {
  auto error = patch_error([] {
    apply_strategic_merge_patch(json(R"({"mergingList":[{"name":1}]})"), R"({"mergingList":[{"value":2}]})", schema());
  });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->status().reason, "");
  EXPECT_FALSE(error->status().details.has_value());
}

TEST(StrategicMergePatch, ListsOfListsAreInvalidWithTheBare422) {
  auto error = patch_error([] {
    apply_strategic_merge_patch(json(R"({"mergingIntList":[]})"), R"({"mergingIntList":[[1]]})", schema());
  });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->status().reason, "Invalid");
  EXPECT_EQ(error->detail(), "lists of lists are not supported");
}

}  // namespace
}  // namespace kapi::patch::strategic_merge_patch_test
