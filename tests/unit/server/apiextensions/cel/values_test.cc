// A custom resource's JSON as CEL values through its schema (apiserver/pkg/cel/common/values_test.go).
#include "server/apiextensions/cel/values.h"

#include "tests/unit/server/apiextensions/schema_test_util.h"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace kapi::apiextensions::cel::values_test {
namespace {

namespace json = boost::json;
using kapi::cel::Value;
using schema::testing::schema_from;

Value field(const Value& object, std::string_view name) {
  const kapi::cel::Map* map = object.as_map();
  if (!map) return Value::error(kapi::cel::ErrorCode::kGeneric, "not a map");
  return map->find(Value(std::string(name))).value_or(Value::error(kapi::cel::ErrorCode::kNoSuchKey, "absent"));
}

std::string error_of(const Value& v) { return v.is_error() ? v.get<kapi::cel::Error>().message : "no error"; }

TEST(CelValuesTest, ScalarsFollowTheSchema) {
  json::value n = 3, d = 1.5, s = "x", b = true;
  EXPECT_EQ(to_value(n, schema_from(R"({"type":"integer"})")).get<std::int64_t>(), 3);
  EXPECT_EQ(to_value(n, schema_from(R"({"type":"number"})")).get<double>(), 3.0);
  EXPECT_EQ(error_of(to_value(d, schema_from(R"({"type":"integer"})"))), "invalid data, expected int, got float64");
  EXPECT_EQ(to_value(s, schema_from(R"({"x-kubernetes-int-or-string":true})")).get<std::string>(), "x");
  EXPECT_EQ(to_value(n, schema_from(R"({"x-kubernetes-int-or-string":true})")).get<std::int64_t>(), 3);
  EXPECT_TRUE(to_value(b, schema_from(R"({"type":"boolean"})")).get<bool>());
  EXPECT_EQ(error_of(to_value(json::value(nullptr), schema_from(R"({"type":"string"})"))),
            "invalid data, got null for schema with nullable=false");
  EXPECT_TRUE(to_value(json::value(nullptr), schema_from(R"({"type":"string","nullable":true})")).is_null());
}

TEST(CelValuesTest, FormattedStrings) {
  json::value duration = "1h30m", date = "2024-02-03", time = "2024-02-03T04:05:06.5Z", bytes = "aGk=",
              days = "2d";
  EXPECT_EQ(to_value(duration, schema_from(R"({"type":"string","format":"duration"})")).get<kapi::cel::Duration>().nanos,
            5'400'000'000'000);
  EXPECT_EQ(to_value(days, schema_from(R"({"type":"string","format":"duration"})")).get<kapi::cel::Duration>().nanos,
            172'800'000'000'000);
  auto day = to_value(date, schema_from(R"({"type":"string","format":"date"})")).get<kapi::cel::Timestamp>();
  EXPECT_EQ(day.seconds, 1706918400);
  auto instant = to_value(time, schema_from(R"({"type":"string","format":"date-time"})")).get<kapi::cel::Timestamp>();
  EXPECT_EQ(instant.seconds, 1706933106);
  EXPECT_EQ(instant.nanos, 500'000'000);
  EXPECT_EQ(to_value(bytes, schema_from(R"({"type":"string","format":"byte"})")).get<kapi::cel::Bytes>().data, "hi");
}

TEST(CelValuesTest, ObjectsByEscapedPropertyNames) {
  auto schema = schema_from(R"({"type":"object","properties":{"namespace":{"type":"string"},
      "a-b":{"type":"integer"},"n":{"type":"string","nullable":true}}})");
  json::value data = json::parse(R"({"namespace":"ns","a-b":2,"n":null,"unknown":1})");
  Value object = to_value(data, schema);
  EXPECT_EQ(field(object, "__namespace__").get<std::string>(), "ns");
  EXPECT_EQ(field(object, "a__dash__b").get<std::int64_t>(), 2);
  EXPECT_TRUE(field(object, "n").is_error());  // null fields of objects are absent
  EXPECT_TRUE(field(object, "unknown").is_error());
  const kapi::cel::Map* map = object.as_map();
  ASSERT_EQ(map->size(), 2u);
  EXPECT_EQ(map->key_at(0).get<std::string>(), "__namespace__");
  EXPECT_EQ(map->key_at(1).get<std::string>(), "a__dash__b");
}

TEST(CelValuesTest, ResourceRootsSeeOnlyNameAndGenerateNameOfMetadata) {
  auto schema = schema_from(R"({"type":"object","properties":{"spec":{"type":"object"}}})");
  json::value data = json::parse(R"({"apiVersion":"v1","kind":"K","metadata":{"name":"x","labels":{"a":"b"}}})");
  Value root = to_value(data, schema, true);
  EXPECT_EQ(field(root, "kind").get<std::string>(), "K");
  EXPECT_EQ(field(field(root, "metadata"), "name").get<std::string>(), "x");
  EXPECT_TRUE(field(field(root, "metadata"), "labels").is_error());
}

TEST(CelValuesTest, SetListsCompareWithoutOrderAndConcatenateAsUnions) {
  auto schema = schema_from(R"({"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}})");
  json::value a = json::parse(R"(["a","b","c"])"), b = json::parse(R"(["c","a","b"])"), c = json::parse(R"(["c","d"])");
  Value x = to_value(a, schema), y = to_value(b, schema), z = to_value(c, schema);
  EXPECT_TRUE(kapi::cel::equals(x, y));
  EXPECT_FALSE(kapi::cel::equals(x, z));
  auto joined = x.as_list()->concat(x.get<std::shared_ptr<const kapi::cel::List>>(),
                                    z.get<std::shared_ptr<const kapi::cel::List>>());
  EXPECT_EQ(kapi::cel::debug_string(Value(joined)), R"(["a", "b", "c", "d"])");
}

TEST(CelValuesTest, MapListsCompareByKeyAndMergeByKey) {
  auto schema = schema_from(R"({"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k"],
      "items":{"type":"object","properties":{"k":{"type":"string"},"v":{"type":"integer"}}}})");
  json::value a = json::parse(R"([{"k":"a","v":1},{"k":"b","v":2}])"), b = json::parse(R"([{"k":"b","v":2},{"k":"a","v":1}])"),
              c = json::parse(R"([{"k":"b","v":3},{"k":"c","v":4}])");
  Value x = to_value(a, schema), y = to_value(b, schema), z = to_value(c, schema);
  EXPECT_TRUE(kapi::cel::equals(x, y));
  EXPECT_FALSE(kapi::cel::equals(x, z));
  auto merged = x.as_list()->concat(x.get<std::shared_ptr<const kapi::cel::List>>(),
                                    z.get<std::shared_ptr<const kapi::cel::List>>());
  ASSERT_EQ(merged->size(), 3u);
  EXPECT_EQ(field(merged->at(1), "v").get<std::int64_t>(), 3);
  EXPECT_EQ(field(merged->at(2), "k").get<std::string>(), "c");
}

TEST(CelValuesTest, AtomicListsKeepTheirOrder) {
  auto schema = schema_from(R"({"type":"array","items":{"type":"integer"}})");
  json::value a = json::parse("[1,2]"), b = json::parse("[2,1]");
  EXPECT_FALSE(kapi::cel::equals(to_value(a, schema), to_value(b, schema)));
  EXPECT_TRUE(kapi::cel::equals(to_value(a, schema), Value::list({Value(std::int64_t{1}), Value(std::int64_t{2})})));
}

}  // namespace
}  // namespace kapi::apiextensions::cel::values_test
