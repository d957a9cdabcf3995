// Run-time cost end to end (compile, plan, evaluate with cost tracking): cel-go v0.22's
// interpreter/runtimecost_test.go TestRuntimeCost cases whose figures do not depend on the options kube adds
// (presence tests and constant folding of literal lists), and each inside its static estimate as cel-go checks.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "cel/compile.h"
#include "cel/cost.h"
#include "cel/program.h"

namespace kapi::cel::runtime_expression_test {
namespace {

struct Case {
  std::string name;
  std::string expr;
  std::vector<std::pair<std::string, Type>> vars;
  std::vector<std::pair<std::string, Value>> values;
  std::uint64_t want;
};

Type test_all_types() {
  auto object = std::make_shared<ObjectType>();
  object->name = "google.expr.proto3.test.TestAllTypes";
  object->fields.emplace("single_int32", Type::int_type());
  return Type::object(object);
}

// cel-go's and kube's cost tests plan their programs without the constant folding kube's servers turn on, so
// their figures are for such a plan.
const PlanOptions kTestHarnessPlan{.optimize = false, .presence_test_has_cost = false};

EvalResult evaluate(const Case& c, const EvalOptions& options, CostEstimate* estimate = nullptr) {
  auto env = std::make_shared<Env>(standard_env());
  for (const auto& [name, type] : c.vars) env->add_variable(name, type);
  CheckResult checked = compile(*env, c.expr);
  if (!checked.ast) {
    ADD_FAILURE() << c.name << ": " << checked.message;
    return {};
  }
  if (estimate != nullptr) *estimate = estimate_cost(*checked.ast, *env);
  const Program program =
      Program::plan(env, std::make_shared<const CheckedAst>(std::move(*checked.ast)), kTestHarnessPlan);
  MapActivation activation;
  for (const auto& [name, value] : c.values) activation.set(name, value);
  return program.eval(activation, options);
}

Value strings_of_length(std::size_t n) { return Value(std::string(n, 'a')); }

TEST(CelRuntimeCostExpressions, CelGoRuntimeCostTable) {
  const Type s = Type::string_type();
  const Type b = Type::bool_type();
  const Type all_list = Type::list(test_all_types());
  const Value empty_object = Value::map({{Value("single_int32"), Value(std::int64_t{0})}});

  const std::vector<Case> cases = {
      {"identity", "input", {{"input", Type::list(Type::int_type())}},
       {{"input", Value::list({Value(std::int64_t{1}), Value(std::int64_t{2})})}}, 1},
      {"select: map", "input['key']", {{"input", Type::map(s, s)}}, {{"input", Value::map({{Value("key"), Value("v")}})}},
       2},
      {"select: array index", "input[0]", {{"input", Type::list(s)}}, {{"input", Value::list({Value("v")})}}, 2},
      {"expr select: map", "input['ke' + 'y']", {{"input", Type::map(s, s)}},
       {{"input", Value::map({{Value("key"), Value("v")}})}}, 3},
      {"expr select: array index", "input[3-3]", {{"input", Type::list(s)}}, {{"input", Value::list({Value("v")})}}, 3},
      {"variable cost function", "input.matches('[0-9]')", {{"input", s}}, {{"input", strings_of_length(500)}}, 103},
      {"or", "false || false", {}, {}, 0},
      {"or accumulated branch cost", "a || b || c || d", {{"a", b}, {"b", b}, {"c", b}, {"d", b}},
       {{"a", false}, {"b", false}, {"c", false}, {"d", false}}, 4},
      {"and accumulated branch cost", "a && b && c && d", {{"a", b}, {"b", b}, {"c", b}, {"d", b}},
       {{"a", true}, {"b", true}, {"c", true}, {"d", true}}, 4},
      {"lt", "1 < 2", {}, {}, 1},
      {"ternary", "true ? 1 : 2", {}, {}, 0},
      {"string size", R"(size("123"))", {}, {}, 1},
      {"str eq str", "'12345678901234567890' == '123456789012345678901234567890'", {}, {}, 2},
      {"string to bytes conversion", "bytes(input)", {{"input", s}}, {{"input", strings_of_length(500)}}, 51},
      {"int to string conversion", "string(1)", {}, {}, 1},
      {"contains", "input.contains(arg1)", {{"input", s}, {"arg1", s}},
       {{"input", strings_of_length(500)}, {"arg1", strings_of_length(500)}}, 2502},
      {"startsWith", "input.startsWith(arg1)", {{"input", s}, {"arg1", s}},
       {{"input", Value("idc")}, {"arg1", strings_of_length(500)}}, 3},
      {"size receiver", "input.size()", {{"input", s}}, {{"input", Value("500")}}, 2},
      {"ternary eval", "(x > 2 ? input1 : input2).all(y, true)",
       {{"x", Type::int_type()}, {"input1", all_list}, {"input2", all_list}},
       {{"x", std::int64_t{1}}, {"input1", Value::list({empty_object})}, {"input2", Value::list({empty_object})}}, 6},
      {"ternary eval trivial, true", "true ? false : 1 > 3", {}, {}, 0},
      {"ternary eval trivial, false", "false ? false : 1 > 3", {}, {}, 1},
      {"comprehension over map", "input.all(k, input[k].single_int32 > 3)",
       {{"input", Type::map(s, test_all_types())}}, {{"input", Value::map({{Value("val"), empty_object}})}}, 9},
      {"str concat", R"("abcdefg".contains(str1 + str2))", {{"str1", s}, {"str2", s}},
       {{"str1", Value("val1")}, {"str2", Value("val2222222")}}, 6},
      {"ternary as operand", "(1 > 2 ? 5 : 3) > 1", {}, {}, 2},
      {"or as operand", "(1 > 2 || 2 > 1) == true", {}, {}, 3},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name + ": " + c.expr);
    CostEstimate estimate;
    const EvalResult result = evaluate(c, {}, &estimate);
    EXPECT_FALSE(result.value.is_error()) << debug_string(result.value);
    EXPECT_EQ(result.cost, c.want);
    EXPECT_LE(estimate.min, result.cost);
    EXPECT_GE(estimate.max, result.cost);
  }
}

TEST(CelRuntimeCostExpressions, LimitStopsEvaluation) {
  const Case c{"limit", R"("abcdefg".contains(str1 + str2))",
               {{"str1", Type::string_type()}, {"str2", Type::string_type()}},
               {{"str1", Value("val1")}, {"str2", Value("val2222222")}}, 6};
  EvalOptions at_limit;
  at_limit.cost_limit = 6;
  const EvalResult within = evaluate(c, at_limit);
  EXPECT_FALSE(within.value.is_error());
  EXPECT_EQ(within.cost, 6u);

  EvalOptions below;
  below.cost_limit = 5;
  const EvalResult stopped = evaluate(c, below);
  ASSERT_TRUE(stopped.value.is_error());
  EXPECT_EQ(stopped.value.get<Error>().code, ErrorCode::kCostLimitExceeded);
  EXPECT_EQ(stopped.value.get<Error>().message, "operation cancelled: actual cost limit exceeded");
}

}  // namespace
}  // namespace kapi::cel::runtime_expression_test
