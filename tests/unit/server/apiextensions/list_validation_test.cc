#include "server/apiextensions/schema/list_validation.h"

#include "tests/unit/server/apiextensions/schema_test_util.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kapi::apiextensions::schema::list_validation_test {
namespace {

namespace json = boost::json;
using testing::schema_from;
using testing::texts;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::vector<std::string> errors_for(std::string_view schema, std::string_view object) {
  return texts(validate_lists(json::parse(object), schema_from(schema)));
}

constexpr std::string_view kSetSchema = R"({"type":"object","properties":{
  "array":{"type":"array","x-kubernetes-list-type":"set"}}})";

TEST(ListValidation, NothingToCheck) {
  EXPECT_THAT(errors_for(R"({})", R"({"array":["a","b","a"]})"), IsEmpty());
  EXPECT_THAT(errors_for(R"({"type":"object","properties":{"array":{"type":"array"}}})", R"({"array":["a","b","a"]})"),
              IsEmpty());
  EXPECT_THAT(errors_for(R"({"type":"object","properties":{"array":{"type":"array","x-kubernetes-list-type":"atomic",)"
                         R"("items":{"type":"string"}}}})",
                         R"({"array":["a","b","a"]})"),
              IsEmpty());
  EXPECT_THAT(errors_for(kSetSchema, R"({"array":["a"]})"), IsEmpty());
  EXPECT_THAT(errors_for(kSetSchema, R"({"array":["a","b"]})"), IsEmpty());
  EXPECT_THAT(errors_for(kSetSchema, R"(["a","a"])"), IsEmpty());  // not an object
  EXPECT_THAT(errors_for(kSetSchema, R"({"other":["a","a"]})"), IsEmpty());  // no schema for the field
}

TEST(ListValidation, SetReportsEachDuplicatedValueOnceAtItsSecondAppearance) {
  auto errors = validate_lists(json::parse(R"({"array":["a","a","b","c","d","c","a"]})"), schema_from(kSetSchema));
  EXPECT_THAT(texts(errors), ElementsAre(R"(array[1]: Duplicate value: "a")", R"(array[5]: Duplicate value: "c")"));
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors[0].reason(), "FieldValueDuplicate");
}

TEST(ListValidation, SetElementsCompareAsGoDoes) {
  constexpr std::string_view schema = R"({"type":"object","properties":{
    "strings":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}},
    "integers":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"integer"}},
    "booleans":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"boolean"}},
    "floats":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"number"}},
    "mixed":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"number"}},
    "nils":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string","nullable":true}},
    "emptyMaps":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"object","additionalProperties":{"type":"string"}}},
    "maps":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"object","additionalProperties":{"type":"string"}}},
    "nilValues":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"object","additionalProperties":{"type":"string","nullable":true}}},
    "arrays":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"array","items":{"type":"string"}}},
    "nilArrays":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"array","items":{"type":"string","nullable":true}}},
    "numbersInMaps":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"object","additionalProperties":{"type":"number"}}}
  }})";
  EXPECT_THAT(errors_for(schema, R"({
    "strings":["a","b","a"],
    "integers":[1,2,1],
    "booleans":[false,true,true],
    "floats":[1.0,2.5,2.5,0.0,-0.0],
    "mixed":[1,1.0],
    "nils":["a",null,null],
    "emptyMaps":[{"a":"b"},{},{}],
    "maps":[{"a":"b","c":"d"},{"a":"c"},{"c":"d","a":"b"}],
    "nilValues":[{"a":null},{"b":"c","a":null}],
    "arrays":[[],["a"],["b"],["a"]],
    "nilArrays":[[],[null],[null,null],[null],["a"]],
    "numbersInMaps":[{"n":1},{"n":1.0}]
  })"),
              ElementsAre(R"(strings[2]: Duplicate value: "a")", R"(integers[2]: Duplicate value: 1)",
                          R"(booleans[2]: Duplicate value: true)", R"(floats[2]: Duplicate value: 2.5)",
                          R"(floats[4]: Duplicate value: -0)", R"(nils[2]: Duplicate value: "null")",
                          R"(emptyMaps[2]: Duplicate value: map[string]interface {}{})",
                          R"(maps[2]: Duplicate value: map[string]interface {}{"a":"b", "c":"d"})",
                          R"(arrays[3]: Duplicate value: []interface {}{"a"})",
                          R"(nilArrays[3]: Duplicate value: []interface {}{interface {}(nil)})",
                          R"(numbersInMaps[1]: Duplicate value: map[string]interface {}{"n":1})"));
}

TEST(ListValidation, WalksPropertiesAdditionalPropertiesAndItems) {
  EXPECT_THAT(errors_for(R"({"type":"object","additionalProperties":{"type":"array","x-kubernetes-list-type":"set",)"
                         R"("items":{"type":"string"}}})",
                         R"({"array":["a","b","a"]})"),
              ElementsAre(R"([array][2]: Duplicate value: "a")"));
  EXPECT_THAT(errors_for(R"({"type":"object","properties":{"array":{"type":"array","items":{"type":"array",)"
                         R"("x-kubernetes-list-type":"set","items":{"type":"string"}}}}})",
                         R"({"array":[["a","b","a"],["b","b","a"]]})"),
              ElementsAre(R"(array[0][2]: Duplicate value: "a")", R"(array[1][1]: Duplicate value: "b")"));
  // The outer set is checked before its items, which are sets too.
  EXPECT_THAT(errors_for(R"({"type":"object","properties":{"array":{"type":"array","x-kubernetes-list-type":"set",)"
                         R"("items":{"type":"array","x-kubernetes-list-type":"set"}}}})",
                         R"({"array":["a","b","a",["b","b","a"]]})"),
              ElementsAre(R"(array[2]: Duplicate value: "a")", R"(array[3][1]: Duplicate value: "b")"));
  EXPECT_THAT(errors_for(R"({"type":"object","properties":{"spec":{"type":"object","properties":{"labels":{)"
                         R"("type":"object","additionalProperties":{"type":"array","x-kubernetes-list-type":"set"}}}}}})",
                         R"({"spec":{"labels":{"x":[1,2],"y.z":[3,3]}}})"),
              ElementsAre(R"(spec.labels[y.z][1]: Duplicate value: 3)"));
  // Document order, properties in the object's order.
  EXPECT_THAT(errors_for(R"({"type":"object","properties":{"a":{"type":"array","x-kubernetes-list-type":"set"},)"
                         R"("b":{"type":"array","x-kubernetes-list-type":"set"}}})",
                         R"({"b":[1,1],"a":[2,2]})"),
              ElementsAre(R"(b[1]: Duplicate value: 1)", R"(a[1]: Duplicate value: 2)"));
}

constexpr std::string_view kMapListSchema = R"({"type":"object","properties":{
  "ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
    "items":{"type":"object","properties":{"name":{"type":"string","nullable":true},"port":{"type":"integer"},
      "tags":{"type":"array","x-kubernetes-list-type":"set"}}}},
  "pairs":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["a","b"],
    "items":{"type":"object","additionalProperties":{"type":"string","nullable":true}}}
}})";

TEST(ListValidation, MapListWithOneKey) {
  EXPECT_THAT(errors_for(kMapListSchema, R"({"ports":[{"name":"http","port":80},{"name":"https","port":443}]})"),
              IsEmpty());
  EXPECT_THAT(errors_for(kMapListSchema,
                         R"({"ports":[{"name":"http","port":80},{"name":"http","port":81},{"name":"http"},{"port":1},)"
                         R"({"port":2},null,{"name":null},{"name":null}]})"),
              ElementsAre(R"(ports[1]: Duplicate value: map[string]interface {}{"name":"http"})",
                          R"(ports[4]: Duplicate value: map[string]interface {}{})",
                          R"(ports[7]: Duplicate value: map[string]interface {}{"name":interface {}(nil)})"));
  // A number key: int64 and float64 differ as scalars.
  EXPECT_THAT(errors_for(kMapListSchema, R"({"ports":[{"name":1},{"name":1.0},{"name":1.5},{"name":1.5}]})"),
              ElementsAre(R"(ports[3]: Duplicate value: map[string]interface {}{"name":1.5})"));
  // A compound key compares by its JSON.
  EXPECT_THAT(errors_for(kMapListSchema, R"({"ports":[{"name":[]},{"name":null},{"name":["a"]},{"name":["a"]}]})"),
              ElementsAre(R"(ports[3]: Duplicate value: map[string]interface {}{"name":[]interface {}{"a"}})"));
  // Items are walked after the keys are checked.
  EXPECT_THAT(errors_for(kMapListSchema, R"({"ports":[{"name":"a","tags":["x","x"]},{"name":"a"}]})"),
              ElementsAre(R"(ports[1]: Duplicate value: map[string]interface {}{"name":"a"})",
                          R"(ports[0].tags[1]: Duplicate value: "x")"));
}

TEST(ListValidation, MapListWithSeveralKeys) {
  EXPECT_THAT(errors_for(kMapListSchema, R"({"pairs":[{"a":"1","b":"1","c":"1"},{"a":"1","b":"2","c":"2"},)"
                                         R"({"a":"1","b":"2","c":"3"},{}]})"),
              ElementsAre(R"(pairs[2]: Duplicate value: map[string]interface {}{"a":"1", "b":"2"})"));
  // Missing key fields are left out of the tuple; a null item has none.
  EXPECT_THAT(errors_for(kMapListSchema, R"({"pairs":[{"a":"1","b":"1"},{"a":"1","c":"2"},{"a":"1","c":"3"},{}]})"),
              ElementsAre(R"(pairs[2]: Duplicate value: map[string]interface {}{"a":"1"})"));
  EXPECT_THAT(errors_for(kMapListSchema, R"({"pairs":[null,{"b":"0","c":"1"},{"a":null},{"c":"1"}]})"),
              ElementsAre(R"(pairs[3]: Duplicate value: map[string]interface {}{})"));
}

TEST(ListValidation, MapListItemsMustBeObjects) {
  constexpr std::string_view schema = R"({"type":"object","properties":{
    "strings":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["a"]},
    "mixed":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["a"],
      "items":{"type":"array","x-kubernetes-list-type":"set"}}}})";
  EXPECT_THAT(errors_for(schema, R"({"strings":["a"]})"),
              ElementsAre(R"(strings[0]: Invalid value: "a": must be an object for an array of list-type map)"));
  // Only the first non-object is reported, the keys are not compared, and the items are still walked.
  EXPECT_THAT(errors_for(schema, R"({"mixed":[{"a":1},{"a":1},[1,1],2,true]})"),
              ElementsAre(R"(mixed[2]: Invalid value: []interface {}{1, 1}: must be an object for an array of list-type map)",
                          R"(mixed[2][1]: Duplicate value: 1)"));
  EXPECT_THAT(errors_for(schema, R"({"strings":[null,2.5]})"),
              ElementsAre(R"(strings[1]: Invalid value: 2.5: must be an object for an array of list-type map)"));
  EXPECT_THAT(errors_for(schema, R"({"strings":[null,null]})"),
              ElementsAre(R"(strings[1]: Duplicate value: map[string]interface {}{})"));
}

}  // namespace
}  // namespace kapi::apiextensions::schema::list_validation_test
