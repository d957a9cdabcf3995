// CRDValidationRatcheting of schema validation (apiextensions-apiserver pkg/apiserver/validation/ratcheting.go and
// ratcheting_test.go): an update keeps what it did not change even when that no longer validates.
#include "server/apiextensions/schema/value_validation.h"

#include "tests/unit/server/apiextensions/schema_test_util.h"

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kapi::apiextensions::schema::ratcheting_test {
namespace {

namespace json = boost::json;
using testing::schema_from;
using testing::texts;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

const Schema& schema() {
  static const Schema kSchema = schema_from(R"({"type":"object","properties":{
      "apiVersion":{"type":"string"},"kind":{"type":"string","enum":["Thing"]},
      "spec":{"type":"object","required":["name"],"properties":{
        "name":{"type":"string","maxLength":3},
        "size":{"type":"integer","maximum":5},
        "ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
                 "items":{"type":"object","properties":{"name":{"type":"string"},"port":{"type":"integer","minimum":1}}}},
        "tags":{"type":"array","items":{"type":"string","maxLength":2}}}}}})");
  return kSchema;
}

std::vector<std::string> update(std::string_view now, std::string_view before) {
  return texts(validate_value_update(schema(), json::parse(now), json::parse(before)));
}

TEST(CrdValidationRatchetingTest, UnchangedInvalidFieldsPass) {
  EXPECT_THAT(update(R"({"spec":{"name":"toolong","size":1}})", R"({"spec":{"name":"toolong","size":2}})"), IsEmpty());
  EXPECT_THAT(update(R"({"spec":{"name":"toolong2","size":1}})", R"({"spec":{"name":"toolong","size":2}})"),
              ElementsAre("spec.name: Too long: may not be more than 3 bytes"));
  EXPECT_THAT(update(R"({"spec":{"name":"a","size":9}})", R"({"spec":{"name":"a","size":1}})"),
              ElementsAre("spec.size: Invalid value: 9: spec.size in body should be less than or equal to 5"));
}

TEST(CrdValidationRatchetingTest, MapListItemsCorrelateByKeyAtomicListsDoNot) {
  EXPECT_THAT(update(R"({"spec":{"name":"a","ports":[{"name":"y","port":2},{"name":"x","port":0}]}})",
                     R"({"spec":{"name":"a","ports":[{"name":"x","port":0}]}})"),
              IsEmpty());
  EXPECT_THAT(update(R"({"spec":{"name":"a","tags":["long","b"]}})", R"({"spec":{"name":"a","tags":["long"]}})"),
              ElementsAre("spec.tags[0]: Too long: may not be more than 2 bytes"));
}

TEST(CrdValidationRatchetingTest, RootTypeMetaIsAlwaysChecked) {
  EXPECT_THAT(update(R"({"kind":"Other","spec":{"name":"b"}})", R"({"kind":"Other","spec":{"name":"a"}})"),
              ElementsAre(R"(kind: Unsupported value: "Other": supported values: "Thing")"));
}

}  // namespace
}  // namespace kapi::apiextensions::schema::ratcheting_test
