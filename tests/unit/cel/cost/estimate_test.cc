// The static estimator over hand-built checked ASTs; expected figures from cel-go v0.22's checker/cost_test.go
// (TestCost), whose test estimator answers size hints by field path.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "cel/cost.h"
#include "tests/unit/cel/cost/checked_builder.h"
#include "tests/unit/cel/cost/path_hints.h"

namespace kapi::cel::estimate_test {
namespace {

using cost_testing::CheckedBuilder;
using cost_testing::path_hints;

CostEstimate estimate(CheckedAst ast, const CostOptions& options) { return estimate_cost(ast, Env{}, options); }

Type test_all_types() {
  auto object = std::make_shared<ObjectType>();
  object->name = "google.expr.proto3.test.TestAllTypes";
  object->fields.emplace("single_int32", Type::int_type());
  return Type::object(object);
}

TEST(CelCostEstimate, ConstantsAndIdentifiers) {
  CheckedBuilder b;
  EXPECT_EQ(estimate(b.build(b.str("Hello World!")), path_hints({})), (CostEstimate{0, 0}));
  CheckedBuilder c;
  EXPECT_EQ(estimate(c.build(c.ident("input", Type::list(Type::int_type()))), path_hints({})), (CostEstimate{1, 1}));
}

TEST(CelCostEstimate, SelectsAndIndexes) {
  const Type string_map = Type::map(Type::string_type(), Type::string_type());
  CheckedBuilder b;
  Expr index = b.call("_[_]", {"index_map"}, Type::string_type(), b.vec(b.ident("input", string_map), b.str("key")));
  EXPECT_EQ(estimate(b.build(std::move(index)), path_hints({})), (CostEstimate{2, 2}));

  CheckedBuilder c;
  Expr field = c.select(c.ident("input", test_all_types()), "single_int32", Type::int_type());
  EXPECT_EQ(estimate(c.build(std::move(field)), path_hints({})), (CostEstimate{2, 2}));
}

TEST(CelCostEstimate, PresenceTestCostIsOptional) {
  const Type nested = Type::map(Type::string_type(), Type::map(Type::string_type(), test_all_types()));
  auto has = [&](bool presence_cost) {
    CheckedBuilder b;
    Expr inner = b.select(b.ident("input", nested), "testAttr", nested.value());
    Expr test = b.select(std::move(inner), "nestedAttr", Type::bool_type(), /*test_only=*/true);
    return estimate(b.build(std::move(test)), path_hints({}, presence_cost));
  };
  EXPECT_EQ(has(true), (CostEstimate{3, 3}));
  EXPECT_EQ(has(false), (CostEstimate{2, 2}));
}

TEST(CelCostEstimate, ComprehensionsMultiplyByRangeSize) {
  const Type all_list = Type::list(test_all_types());
  CheckedBuilder b;
  Expr all = b.all(b.ident("input", all_list), "x", b.boolean(true));
  EXPECT_EQ(estimate(b.build(std::move(all)), path_hints({{"input", 100}})), (CostEstimate{2, 302}));

  const Type nested = Type::list(all_list);
  CheckedBuilder c;
  Expr inner = c.all(c.var("x", all_list), "y", c.boolean(true));
  Expr outer = c.all(c.ident("input", nested), "x", std::move(inner));
  EXPECT_EQ(estimate(c.build(std::move(outer)), path_hints({{"input", 50}, {"input.@items", 10}})),
            (CostEstimate{2, 1752}));

  CheckedBuilder d;
  Expr literal = d.list(d.vec(d.integer(1), d.integer(2), d.integer(3)), Type::int_type());
  Expr on_literal = d.all(std::move(literal), "x", d.boolean(true));
  EXPECT_EQ(estimate(d.build(std::move(on_literal)), path_hints({})), (CostEstimate{20, 20}));
}

TEST(CelCostEstimate, MapMacroOnLiteral) {
  CheckedBuilder b;
  Expr literal = b.list(b.vec(b.integer(1), b.integer(2), b.integer(3), b.integer(4), b.integer(5)), Type::int_type());
  Expr mapped = b.map_macro(std::move(literal), "x", b.var("x", Type::int_type()), Type::int_type());
  EXPECT_EQ(estimate(b.build(std::move(mapped)), path_hints({})), (CostEstimate{86, 86}));
}

TEST(CelCostEstimate, StringFunctionsScaleWithSizes) {
  CheckedBuilder b;
  Expr matches = b.member(b.ident("input", Type::string_type()), "matches", {"matches_string"}, Type::bool_type(),
                          b.vec(b.str("[0-9]")));
  EXPECT_EQ(estimate(b.build(std::move(matches)), path_hints({{"input", 500}})), (CostEstimate{3, 103}));

  CheckedBuilder c;
  Expr contains = c.member(c.ident("input", Type::string_type()), "contains", {"contains_string"}, Type::bool_type(),
                           c.vec(c.ident("arg1", Type::string_type())));
  EXPECT_EQ(estimate(c.build(std::move(contains)), path_hints({{"input", 500}, {"arg1", 500}})),
            (CostEstimate{2, 2502}));

  CheckedBuilder d;
  Expr concat = d.call("_+_", {"add_string"}, Type::string_type(),
                       d.vec(d.ident("str1", Type::string_type()), d.ident("str2", Type::string_type())));
  Expr outer = d.member(d.str("abcdefg"), "contains", {"contains_string"}, Type::bool_type(), d.vec(std::move(concat)));
  EXPECT_EQ(estimate(d.build(std::move(outer)), path_hints({{"str1", 10}, {"str2", 10}})), (CostEstimate{2, 6}));
}

TEST(CelCostEstimate, ConversionResultSizesFeedEquality) {
  CheckedBuilder b;
  auto to_string = [&] {
    return b.call("string", {"bytes_to_string"}, Type::string_type(), b.vec(b.ident("input", Type::bytes_type())));
  };
  Expr lhs = to_string();
  Expr rhs = to_string();
  Expr equal = b.call("_==_", {"equals"}, Type::bool_type(), b.vec(std::move(lhs), std::move(rhs)));
  EXPECT_EQ(estimate(b.build(std::move(equal)), path_hints({{"input", 500}})), (CostEstimate{3, 152}));
}

TEST(CelCostEstimate, UnboundedStringsSaturateAsGoRoundsThem) {
  CheckedBuilder b;
  auto to_string = [&](const char* name) {
    return b.call("string", {"timestamp_to_string"}, Type::string_type(), b.vec(b.ident(name, Type::timestamp())));
  };
  Expr lhs = to_string("timestamp1");
  Expr rhs = to_string("timestamp2");
  Expr equal = b.call("_==_", {"equals"}, Type::bool_type(), b.vec(std::move(lhs), std::move(rhs)));
  EXPECT_EQ(estimate(b.build(std::move(equal)), path_hints({})), (CostEstimate{5, 1844674407370955268u}));
}

TEST(CelCostEstimate, LogicalOperatorsShortCircuit) {
  CheckedBuilder b;
  auto var = [&](const char* name) { return b.ident(name, Type::bool_type()); };
  Expr left = b.call("_||_", {"logical_or"}, Type::bool_type(), b.vec(var("a"), var("b")));
  Expr right = b.call("_||_", {"logical_or"}, Type::bool_type(), b.vec(var("c"), var("d")));
  Expr all = b.call("_||_", {"logical_or"}, Type::bool_type(), b.vec(std::move(left), std::move(right)));
  EXPECT_EQ(estimate(b.build(std::move(all)), path_hints({})), (CostEstimate{1, 4}));
}

TEST(CelCostEstimate, InListCountsTheList) {
  CheckedBuilder b;
  Expr literal = b.list(b.vec(b.integer(1), b.integer(2), b.integer(3)), Type::int_type());
  Expr in = b.call("@in", {"in_list"}, Type::bool_type(), b.vec(b.integer(2), std::move(literal)));
  EXPECT_EQ(estimate(b.build(std::move(in)), path_hints({})), (CostEstimate{13, 13}));
}

TEST(CelCostEstimate, TernaryResultSizeDrivesTheComprehension) {
  const Type all_list = Type::list(test_all_types());
  CheckedBuilder b;
  Expr condition = b.call("_>_", {"greater_int64"}, Type::bool_type(), b.vec(b.ident("x", Type::int_type()), b.integer(2)));
  Expr ternary = b.call("_?_:_", {"conditional"}, all_list,
                        b.vec(std::move(condition), b.ident("input1", all_list), b.ident("input2", all_list)));
  Expr all = b.all(std::move(ternary), "y", b.boolean(true));
  EXPECT_EQ(estimate(b.build(std::move(all)), path_hints({{"input1", 1}, {"input2", 1}})), (CostEstimate{4, 7}));
}

TEST(CelCostEstimate, SizeHooksInOrder) {
  // The id hook first, then the node hook, then the type's hint, then unbounded.
  CheckedBuilder b;
  Expr contains = b.member(b.ident("s", Type::string_type().with_max_elements(100)), "contains", {"contains_string"},
                           Type::bool_type(), b.vec(b.str("abcdefghij")));
  const CheckedAst ast = b.build(std::move(contains));
  EXPECT_EQ(estimate_cost(ast, Env{}), (CostEstimate{1, 11}));  // 1 + {0, 10} x 1
  EXPECT_EQ(estimate_cost(ast, Env{}, [](const CheckedAst&, std::int64_t) { return std::optional<std::uint64_t>(50); }),
            (CostEstimate{1, 6}));
  CostOptions no_hints;
  no_hints.type_size_hints = false;
  EXPECT_EQ(estimate_cost(ast, Env{}, no_hints).max, 1844674407370955265u);  // 1 + ceil(2^64 x 0.1) in float64
}

TEST(CelCostEstimate, SchemaEstimatorWalksFromTheRoot) {
  auto spec = std::make_shared<ObjectType>();
  spec->name = "Object.spec";
  spec->fields.emplace("names", Type::list(Type::string_type().with_max_elements(20)).with_max_elements(10));
  spec->fields.emplace("count", Type::int_type());
  auto root = std::make_shared<ObjectType>();
  root->name = "Object";
  root->fields.emplace("spec", Type::object(spec));
  const Type self = Type::object(root);
  const NodeSizeEstimator sizes = schema_size_estimator(self);

  auto ask = [&](std::vector<std::string> path) {
    return sizes(SizeQuery{nullptr, nullptr, std::span<const std::string>(path), nullptr});
  };
  EXPECT_EQ(ask({"self", "spec", "names"}), (SizeEstimate{0, 10}));
  EXPECT_EQ(ask({"oldSelf", "spec", "names", "@items"}), (SizeEstimate{0, 20}));
  EXPECT_EQ(ask({"self", "spec", "count"}), (SizeEstimate{0, 0}));  // no hint: kube's MaxElements is 0
  EXPECT_EQ(ask({"self"}), (SizeEstimate{0, 0}));
  EXPECT_EQ(ask({"self", "spec", "missing"}), std::nullopt);
  EXPECT_EQ(ask({"self", "spec", "names", "@keys"}), std::nullopt);
  EXPECT_EQ(ask({}), std::nullopt);

  // self.spec.names.all(n, n.size() < 5): the iteration variable's path is self.spec.names.@items.
  CheckedBuilder b;
  const Type names_type = spec->fields.at("names");
  Expr names = b.select(b.select(b.ident("self", self), "spec", Type::object(spec)), "names", names_type);
  Expr starts = b.member(b.str("prefix"), "startsWith", {"starts_with_string"}, Type::bool_type(),
                         b.vec(b.var("n", names_type.element())));
  Expr all = b.all(std::move(names), "n", std::move(starts));
  CostOptions options;
  options.node_sizes = sizes;
  options.type_size_hints = false;
  // range 3 (self, .spec, .names), result 1; per element: condition 2 + step (@result 1, n 1, startsWith
  // {0, ceil(20 x 0.1)}) = {3, 6}, times {0, 10} elements.
  EXPECT_EQ(estimate_cost(b.build(std::move(all)), Env{}, options), (CostEstimate{4, 64}));
}

TEST(CelCostLimits, KubeConstantsAndRequestBasedMaxima) {
  EXPECT_EQ(cost_limits::kPerCallLimit, 1000000u);
  EXPECT_EQ(cost_limits::kRuntimeCelCostBudget, 10000000u);
  EXPECT_EQ(cost_limits::kStaticEstimatedCostLimit, 10000000u);
  EXPECT_EQ(cost_limits::kStaticEstimatedCrdCostLimit, 100000000u);
  EXPECT_EQ(cost_limits::kMaxRequestSizeBytes, 3 * 1024 * 1024);
  // A list of strings (min size 2, `""`): (3 MiB - 2) / 3.
  EXPECT_EQ(estimate_max_array_items(2), 1048575);
  EXPECT_EQ(estimate_max_additional_properties(2), 393215);
  EXPECT_EQ(max_cardinality(2), 1048576u);
  EXPECT_EQ(kMaxStringLengthPerRequest, 3145726);
}

}  // namespace
}  // namespace kapi::cel::estimate_test
