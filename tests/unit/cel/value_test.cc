#include "cel/value.h"

#include <gtest/gtest.h>

namespace kapi::cel::value_test {
namespace {

TEST(CelValue, NumbersAreEqualAcrossIntUintAndDouble) {
  EXPECT_TRUE(equals(Value(std::int64_t{1}), Value(std::uint64_t{1})));
  EXPECT_TRUE(equals(Value(std::int64_t{1}), Value(1.0)));
  EXPECT_FALSE(equals(Value(std::int64_t{-1}), Value(std::uint64_t{18446744073709551615u})));
  EXPECT_FALSE(equals(Value(std::int64_t{1}), Value("1")));
}

TEST(CelValue, ListsAndMapsCompareByContent) {
  Value a = Value::list({Value(std::int64_t{1}), Value("x")});
  Value b = Value::list({Value(1.0), Value("x")});
  EXPECT_TRUE(equals(a, b));
  Value m1 = Value::map({{Value("k"), Value(std::int64_t{1})}, {Value("j"), Value(true)}});
  Value m2 = Value::map({{Value("j"), Value(true)}, {Value("k"), Value(std::uint64_t{1})}});
  EXPECT_TRUE(equals(m1, m2));
  EXPECT_EQ(debug_string(a), "[1, \"x\"]");
}

TEST(CelValue, ConcatenationKeepsOrder) {
  Value a = Value::list({Value(std::int64_t{1})});
  Value b = Value::list({Value(std::int64_t{2}), Value(std::int64_t{3})});
  auto joined = a.as_list()->concat(a.get<std::shared_ptr<const List>>(), b.get<std::shared_ptr<const List>>());
  EXPECT_EQ(debug_string(Value(joined)), "[1, 2, 3]");
}

}  // namespace
}  // namespace kapi::cel::value_test
