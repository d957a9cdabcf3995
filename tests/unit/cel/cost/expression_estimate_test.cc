// The static estimator end to end (parse, check against the standard environment, estimate): cel-go v0.22's
// checker/cost_test.go TestCost table, with its size hints by field path. Left out: "estimated function call"
// (a test-only estimator for getFullYear) and "create struct" (kapi declares no message types).
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cel/compile.h"
#include "cel/cost.h"
#include "tests/unit/cel/cost/path_hints.h"

namespace kapi::cel::expression_estimate_test {
namespace {

using cost_testing::path_hints;

struct Case {
  std::string name;
  std::string expr;
  std::vector<std::pair<std::string, Type>> vars;
  std::map<std::string, std::uint64_t> hints;
  CostEstimate wanted;
  bool presence_test_has_cost = true;
};

Type test_all_types() {
  auto object = std::make_shared<ObjectType>();
  object->name = "google.expr.proto3.test.TestAllTypes";
  object->fields.emplace("single_int32", Type::int_type());
  object->fields.emplace("single_string", Type::string_type());
  return Type::object(object);
}

void expect_estimate(const Case& c) {
  SCOPED_TRACE(c.name + ": " + c.expr);
  Env env = standard_env();
  for (const auto& [name, type] : c.vars) env.add_variable(name, type);
  CheckResult checked = compile(env, c.expr);
  ASSERT_TRUE(checked.ast.has_value()) << checked.message;
  EXPECT_EQ(estimate_cost(*checked.ast, env, path_hints(c.hints, c.presence_test_has_cost)), c.wanted);
}

TEST(CelCostExpressions, CelGoCostTable) {
  const Type all_types = test_all_types();
  const Type all_list = Type::list(all_types);
  const Type int_list = Type::list(Type::int_type());
  const Type nested_list = Type::list(all_list);
  const Type all_map = Type::map(Type::string_type(), all_types);
  const Type nested_map = Type::map(Type::string_type(), all_map);
  const Type b = Type::bool_type();
  const Type s = Type::string_type();
  const std::uint64_t unbounded = ~std::uint64_t{0};

  const std::vector<Case> cases = {
      {"const", R"("Hello World!")", {}, {}, {0, 0}},
      {"identity", "input", {{"input", int_list}}, {}, {1, 1}},
      {"select: map", "input['key']", {{"input", Type::map(s, s)}}, {}, {2, 2}},
      {"select: field", "input.single_int32", {{"input", all_types}}, {}, {2, 2}},
      {"select: field test only no has() cost", "has(input.single_int32)", {{"input", all_types}}, {}, {1, 1}, false},
      {"select: field test only", "has(input.single_int32)", {{"input", all_types}}, {}, {2, 2}},
      {"select: non-proto field test has() cost", "has(input.testAttr.nestedAttr)", {{"input", nested_map}}, {}, {3, 3}},
      {"select: non-proto field test no has() cost", "has(input.testAttr.nestedAttr)", {{"input", nested_map}}, {},
       {2, 2}, false},
      {"create list", "[1, 2, 3]", {}, {}, {10, 10}},
      {"create map", R"({"a": 1, "b": 2, "c": 3})", {}, {}, {30, 30}},
      {"all comprehension", "input.all(x, true)", {{"input", all_list}}, {{"input", 100}}, {2, 302}},
      {"nested all comprehension", "input.all(x, x.all(y, true))", {{"input", nested_list}},
       {{"input", 50}, {"input.@items", 10}}, {2, 1752}},
      {"all comprehension on literal", "[1, 2, 3].all(x, true)", {}, {}, {20, 20}},
      {"variable cost function", "input.matches('[0-9]')", {{"input", s}}, {{"input", 500}}, {3, 103}},
      {"variable cost function with constant", "'123'.matches('[0-9]')", {}, {}, {2, 2}},
      {"or", "true || false", {}, {}, {0, 0}},
      {"or accumulated branch cost", "a || b || c || d", {{"a", b}, {"b", b}, {"c", b}, {"d", b}}, {}, {1, 4}},
      {"and", "true && false", {}, {}, {0, 0}},
      {"and accumulated branch cost", "a && b && c && d", {{"a", b}, {"b", b}, {"c", b}, {"d", b}}, {}, {1, 4}},
      {"lt", "1 < 2", {}, {}, {1, 1}},
      {"lte", "1 <= 2", {}, {}, {1, 1}},
      {"eq", "1 == 2", {}, {}, {1, 1}},
      {"gt", "2 > 1", {}, {}, {1, 1}},
      {"gte", "2 >= 1", {}, {}, {1, 1}},
      {"in", "2 in [1, 2, 3]", {}, {}, {13, 13}},
      {"plus", "1 + 1", {}, {}, {1, 1}},
      {"minus", "1 - 1", {}, {}, {1, 1}},
      {"/", "1 / 1", {}, {}, {1, 1}},
      {"*", "1 * 1", {}, {}, {1, 1}},
      {"%", "1 % 1", {}, {}, {1, 1}},
      {"ternary", "true ? 1 : 2", {}, {}, {0, 0}},
      {"string size", R"(size("123"))", {}, {}, {1, 1}},
      {"bytes to string conversion", "string(input)", {{"input", Type::bytes_type()}}, {{"input", 500}}, {1, 51}},
      {"bytes to string conversion equality", "string(input) == string(input)", {{"input", Type::bytes_type()}},
       {{"input", 500}}, {3, 152}},
      {"string to bytes conversion", "bytes(input)", {{"input", s}}, {{"input", 500}}, {1, 51}},
      {"string to bytes conversion equality", "bytes(input) == bytes(input)", {{"input", s}}, {{"input", 500}},
       {3, 302}},
      {"int to string conversion", "string(1)", {}, {}, {1, 1}},
      {"contains", "input.contains(arg1)", {{"input", s}, {"arg1", s}}, {{"input", 500}, {"arg1", 500}}, {2, 2502}},
      {"matches", R"(input.matches('\\d+a\\d+b'))", {{"input", s}}, {{"input", 500}}, {3, 103}},
      {"startsWith", "input.startsWith(arg1)", {{"input", s}, {"arg1", s}}, {{"arg1", 500}}, {2, 52}},
      {"endsWith", "input.endsWith(arg1)", {{"input", s}, {"arg1", s}}, {{"arg1", 500}}, {2, 52}},
      {"size receiver", "input.size()", {{"input", s}}, {}, {2, 2}},
      {"size", "size(input)", {{"input", s}}, {}, {2, 2}},
      {"ternary eval", "(x > 2 ? input1 : input2).all(y, true)",
       {{"x", Type::int_type()}, {"input1", all_list}, {"input2", all_list}}, {{"input1", 1}, {"input2", 1}}, {4, 7}},
      {"comprehension over map", "input.all(k, input[k].single_int32 > 3)", {{"input", all_map}}, {{"input", 10}},
       {2, 82}},
      {"comprehension over nested map of maps", "input.all(k, input[k].all(x, true))", {{"input", nested_map}},
       {{"input", 5}, {"input.@values", 10}}, {2, 187}},
      {"string size of map keys", "input.all(k, k.contains(k))", {{"input", nested_map}},
       {{"input", 5}, {"input.@keys", 10}}, {2, 32}},
      {"comprehension variable shadowing", "input.all(k, input[k].all(k, true) && k.contains(k))",
       {{"input", nested_map}}, {{"input", 2}, {"input.@values", 2}, {"input.@keys", 5}}, {2, 34}},
      {"list concat", "(list1 + list2).all(x, true)", {{"list1", int_list}, {"list2", int_list}},
       {{"list1", 10}, {"list2", 10}}, {4, 64}},
      {"str concat", R"("abcdefg".contains(str1 + str2))", {{"str1", s}, {"str2", s}}, {{"str1", 10}, {"str2", 10}},
       {2, 6}},
      {"list size comparison", "list1.size() == list2.size()", {{"list1", int_list}, {"list2", int_list}}, {}, {5, 5}},
      {"list size from ternary", "x > y ? list1.size() : list2.size()",
       {{"x", Type::int_type()}, {"y", Type::int_type()}, {"list1", int_list}, {"list2", int_list}}, {}, {5, 5}},
      {"str endsWith equality",
       R"(str1.endsWith("abcdefghijklmnopqrstuvwxyz") == str2.endsWith("abcdefghijklmnopqrstuvwxyz"))",
       {{"str1", s}, {"str2", s}}, {}, {9, 9}},
      {"nested subexpression operators", "((5 != 6) == (1 == 2)) == ((3 <= 4) == (9 != 9))", {}, {}, {7, 7}},
      {"str size estimate", "string(timestamp1) == string(timestamp2)",
       {{"timestamp1", Type::timestamp()}, {"timestamp2", Type::timestamp()}}, {}, {5, 1844674407370955268u}},
      {"timestamp equality check", "timestamp1 == timestamp2",
       {{"timestamp1", Type::timestamp()}, {"timestamp2", Type::timestamp()}}, {}, {3, 3}},
      {"duration inequality check", "duration1 != duration2",
       {{"duration1", Type::duration()}, {"duration2", Type::duration()}}, {}, {3, 3}},
      {".filter list literal", "[1,2,3,4,5].filter(x, x % 2 == 0)", {}, {}, {41, 101}},
      {".map list literal", "[1,2,3,4,5].map(x, x)", {}, {}, {86, 86}},
      {".map.filter list literal", "[1,2,3,4,5].map(x, x).filter(x, x % 2 == 0)", {}, {}, {117, 177}},
      {".map.exists list literal", "[1,2,3,4,5].map(x, x).exists(x, x == 5) == true", {}, {}, {108, 118}},
      {".map.map list literal", "[1,2,3,4,5].map(x, x).map(x, x)", {}, {}, {162, 162}},
      {".map list literal selection", "[1,2,3,4,5].map(x, x)[4]", {}, {}, {87, 87}},
      {"nested array selection", "[[1,2],[1,2],[1,2],[1,2],[1,2]][4]", {}, {}, {61, 61}},
      {"nested map selection", "{'a': [1,2], 'b': [1,2], 'c': [1,2], 'd': [1,2], 'e': [1,2]}.b", {}, {}, {81, 81}},
      {"comprehension on nested list", "[1,2,3,4,5].map(x, [x, x]).all(y, y.all(y, y == 1))", {}, {},
       {157, unbounded}},
      {"comprehension size", "[1,2,3,4,5].map(x, x).map(x, x) + [1]", {}, {}, {173, 173}},
      {"nested comprehension", "[1,2,3].all(i, i in [1,2,3].map(j, j + j))", {}, {}, {20, 230}},
  };
  for (const Case& c : cases) expect_estimate(c);
}

}  // namespace
}  // namespace kapi::cel::expression_estimate_test
