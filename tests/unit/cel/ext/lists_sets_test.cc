// kube's lists library (library/cel_test.go TestLists) and cel-go's sets extension (ext/sets_test.go).
#include <cmath>

#include "tests/unit/cel/ext/ext_testing.h"

namespace kapi::cel::ext::lists_sets_test {
namespace {

using testing::call;
using testing::error_of;
using testing::ints;
using testing::strings;

Value I(std::int64_t i) { return Value(i); }

TEST(CelLists, IsSorted) {
  const Library lib = lists_library();
  EXPECT_TRUE(equals(call(lib, "list_int_is_sorted_bool", {ints({1, 2, 3})}), Value(true)));
  EXPECT_TRUE(equals(call(lib, "list_string_is_sorted_bool", {strings({"a", "b", "b", "c"})}), Value(true)));
  EXPECT_TRUE(equals(call(lib, "list_double_is_sorted_bool", {Value::list({2.0, 1.0})}), Value(false)));
  EXPECT_TRUE(equals(call(lib, "list_int_is_sorted_bool", {ints({1})}), Value(true)));
  EXPECT_TRUE(equals(call(lib, "list_int_is_sorted_bool", {ints({})}), Value(true)));
  EXPECT_TRUE(equals(call(lib, "list_bytes_is_sorted_bool", {Value::list({Bytes{"a"}, Bytes{"b"}})}), Value(true)));
}

TEST(CelLists, Sum) {
  const Library lib = lists_library();
  EXPECT_TRUE(equals(call(lib, "list_int_sum_int", {ints({1, 3})}), I(4)));
  EXPECT_TRUE(equals(call(lib, "list_double_sum_double", {Value::list({1.0, 3.0})}), Value(4.0)));
  EXPECT_TRUE(equals(call(lib, "list_uint_sum_uint", {Value::list({})}), Value(std::uint64_t{0})));
  Value durations = Value::list({Duration{60'000'000'000}, Duration{1'000'000'000}});
  EXPECT_TRUE(equals(call(lib, "list_duration_sum_duration", {durations}), Duration{61'000'000'000}));
  EXPECT_EQ(error_of(call(lib, "list_int_sum_int", {ints({INT64_MAX, 1})})), "integer overflow");
}

TEST(CelLists, MinAndMax) {
  const Library lib = lists_library();
  EXPECT_TRUE(equals(call(lib, "list_int_min_int", {ints({1, 3})}), I(1)));
  EXPECT_TRUE(equals(call(lib, "list_int_max_int", {ints({1, 3})}), I(3)));
  EXPECT_TRUE(equals(call(lib, "list_string_max_string", {strings({"b", "c", "a"})}), Value("c")));
  EXPECT_EQ(error_of(call(lib, "list_int_min_int", {ints({})})), "min called on empty list");
  // NaN cannot be ordered: kube keeps what it has rather than fail.
  const Value nan = Value(std::nan(""));
  EXPECT_TRUE(equals(call(lib, "list_double_max_double", {Value::list({1.0, nan, 2.0})}), Value(2.0)));
  EXPECT_TRUE(equals(call(lib, "list_double_is_sorted_bool", {Value::list({2.0, nan})}), Value(true)));
  EXPECT_EQ(error_of(call(lib, "list_int_max_int", {ints({})})), "max called on empty list");
}

TEST(CelLists, IndexOfUsesCelEquality) {
  const Library lib = lists_library();
  EXPECT_TRUE(equals(call(lib, "list_a_index_of_int", {ints({1, 2, 2, 3}), I(2)}), I(1)));
  EXPECT_TRUE(equals(call(lib, "list_a_last_index_of_int", {strings({"a", "b", "b", "c"}), "b"}), I(2)));
  EXPECT_TRUE(equals(call(lib, "list_a_index_of_int", {Value::list({1.0}), 1.1}), I(-1)));
  EXPECT_TRUE(equals(call(lib, "list_a_index_of_int", {strings({}), "string"}), I(-1)));
  EXPECT_TRUE(equals(call(lib, "list_a_index_of_int", {ints({1, 2}), Value(2.0)}), I(1)));
}

TEST(CelLists, KubeDoesNotHaveIncludesYet) {
  EXPECT_EQ(testing::find_overload(lists_library(), "list_includes_dyn_dyn"), nullptr);
}

TEST(CelSets, ContainsEquivalentIntersects) {
  const Library lib = sets_library();
  auto contains = [&](Value a, Value b) { return call(lib, "list_sets_contains_list", {a, b}); };
  auto equivalent = [&](Value a, Value b) { return call(lib, "list_sets_equivalent_list", {a, b}); };
  auto intersects = [&](Value a, Value b) { return call(lib, "list_sets_intersects_list", {a, b}); };
  EXPECT_TRUE(equals(contains(ints({}), ints({})), Value(true)));
  EXPECT_TRUE(equals(contains(ints({1}), ints({})), Value(true)));
  EXPECT_TRUE(equals(contains(ints({1}), ints({1, 1})), Value(true)));
  EXPECT_TRUE(equals(contains(ints({1, 2}), Value::list({2.0, std::uint64_t{1}})), Value(true)));
  EXPECT_TRUE(equals(contains(ints({1, 2}), ints({3})), Value(false)));
  EXPECT_TRUE(equals(contains(Value::list({ints({1})}), Value::list({Value::list({1.0})})), Value(true)));
  EXPECT_TRUE(equals(equivalent(ints({}), ints({})), Value(true)));
  EXPECT_TRUE(equals(equivalent(ints({1, 2, 3}), ints({3, 2, 1, 1})), Value(true)));
  EXPECT_TRUE(equals(equivalent(ints({1, 2}), ints({1, 2, 3})), Value(false)));
  EXPECT_TRUE(equals(intersects(ints({1}), ints({1, 2})), Value(true)));
  EXPECT_TRUE(equals(intersects(ints({1}), ints({})), Value(false)));
  EXPECT_TRUE(equals(intersects(Value::list({1.0}), Value::list({std::uint64_t{1}})), Value(true)));
}

TEST(CelTwoVarComprehensions, MapInsert) {
  const Library lib = two_var_comprehensions_library();
  Value m = Value::map({{"a", I(1)}});
  EXPECT_TRUE(equals(call(lib, "@mapInsert_map_key_value", {m, "b", I(2)}), Value::map({{"a", I(1)}, {"b", I(2)}})));
  EXPECT_EQ(error_of(call(lib, "@mapInsert_map_key_value", {m, "a", I(2)})), "insert failed: key \"a\" already exists");
  EXPECT_TRUE(equals(call(lib, "@mapInsert_map_map", {m, Value::map({{"c", I(3)}})}),
                     Value::map({{"a", I(1)}, {"c", I(3)}})));
  EXPECT_EQ(lib.macros.size(), 7u);
}

}  // namespace
}  // namespace kapi::cel::ext::lists_sets_test
