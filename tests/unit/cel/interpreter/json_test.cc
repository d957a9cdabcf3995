// JSON documents read as CEL values in place, and CEL values written back as JSON.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "cel/json.h"
#include "tests/unit/cel/interpreter/ast_builder.h"

namespace kapi::cel::json_test {
namespace {

using testing::AstBuilder;
using testing::run;
using testing::show;

std::shared_ptr<const boost::json::value> parse(std::string_view text) {
  return std::make_shared<const boost::json::value>(boost::json::parse(text));
}

TEST(CelJson, ObjectsAreMapsAndArraysAreLists) {
  Value doc = value_of(parse(R"({"spec": {"replicas": 3, "ratio": 0.5, "big": 18446744073709551615,
                                  "names": ["a", "b"], "none": null, "on": true}})"));
  MapActivation vars;
  vars.set("self", doc);
  AstBuilder b;
  EXPECT_EQ(show(run(b.select(b.select(b.ident("self"), "spec"), "replicas"), vars)), "3");
  EXPECT_EQ(show(run(b.select(b.select(b.ident("self"), "spec"), "ratio"), vars)), "0.5");
  EXPECT_EQ(show(run(b.select(b.select(b.ident("self"), "spec"), "big"), vars)), "18446744073709551615u");
  EXPECT_EQ(show(run(b.call("_[_]", b.select(b.select(b.ident("self"), "spec"), "names"), b.i(1)), vars)), "\"b\"");
  EXPECT_EQ(show(run(b.has(b.select(b.ident("self"), "spec"), "none"), vars)), "true");
  EXPECT_EQ(show(run(b.has(b.select(b.ident("self"), "spec"), "absent"), vars)), "false");
  EXPECT_EQ(show(run(b.select(b.select(b.ident("self"), "spec"), "absent"), vars)), "error: no such key: absent");
  EXPECT_EQ(show(run(b.call("size", b.select(b.ident("self"), "spec")), vars)), "6");
  EXPECT_EQ(show(run(b.exists(b.select(b.ident("self"), "spec"), "k", b.call("_==_", b.ident("k"), b.s("on"))), vars)),
            "true");
}

TEST(CelJson, ValuesOutliveTheirDocumentHandle) {
  Value names;
  {
    auto doc = parse(R"({"names": ["x", "y"]})");
    names = *value_of(doc).as_map()->find(Value("names"));
  }
  EXPECT_EQ(debug_string(names), "[\"x\", \"y\"]");
}

TEST(CelJson, ValuesConvertBack) {
  Value v = Value::map({{Value("a"), Value::list({Value(std::int64_t{1}), Value(2.5), Value(Bytes{"hi"})})},
                        {Value(std::int64_t{7}), Value(Duration{1500000000})},
                        {Value("t"), Value(Timestamp{0, 0})}});
  std::optional<boost::json::value> json = to_json(v);
  ASSERT_TRUE(json);
  EXPECT_EQ(boost::json::serialize(*json), R"({"a":[1,2.5E0,"aGk="],"7":"1.5s","t":"1970-01-01T00:00:00Z"})");
  EXPECT_FALSE(to_json(Value::error(ErrorCode::kGeneric, "x")));
  EXPECT_FALSE(to_json(Value::list({Value::optional_none()})));
}

}  // namespace
}  // namespace kapi::cel::json_test
