// Interpreter semantics over hand-built trees (cel-go interpreter_test.go cases that need no parser): error
// absorption in && and ||, conditionals, comprehensions and their scoping, attribute errors, optional chains, and
// run-time cost.
#include <gtest/gtest.h>

#include "tests/unit/cel/interpreter/ast_builder.h"

namespace kapi::cel::builder_eval_test {
namespace {

using testing::AstBuilder;
using testing::run;
using testing::show;

TEST(CelInterpreter, LogicalOperatorsAbsorbErrorsCommutatively) {
  AstBuilder b;
  auto err = [&b] { return b.call("_/_", b.i(1), b.i(0)); };
  EXPECT_EQ(show(run(b.call("_&&_", b.b(false), err()))), "false");
  EXPECT_EQ(show(run(b.call("_&&_", err(), b.b(false)))), "false");
  EXPECT_EQ(show(run(b.call("_||_", err(), b.b(true)))), "true");
  EXPECT_EQ(show(run(b.call("_||_", b.b(true), err()))), "true");
  EXPECT_EQ(show(run(b.call("_&&_", err(), b.b(true)))), "error: division by zero");
  EXPECT_EQ(show(run(b.call("_||_", b.b(false), err()))), "error: division by zero");
  // Both sides failing: the first error wins.
  EXPECT_EQ(show(run(b.call("_&&_", err(), b.call("_%_", b.i(1), b.i(0))))), "error: division by zero");
  EXPECT_EQ(show(run(b.call("_||_", b.i(1), b.b(false)))), "error: no such overload");
}

TEST(CelInterpreter, ConditionalEvaluatesOneBranch) {
  AstBuilder b;
  EXPECT_EQ(show(run(b.call("_?_:_", b.b(true), b.i(1), b.call("_/_", b.i(1), b.i(0))))), "1");
  EXPECT_EQ(show(run(b.call("_?_:_", b.b(false), b.i(1), b.s("x")))), "\"x\"");
  EXPECT_EQ(show(run(b.call("_?_:_", b.i(1), b.i(1), b.i(2)))), "error: no such overload");
}

TEST(CelInterpreter, NotStrictlyFalse) {
  AstBuilder b;
  EXPECT_EQ(show(run(b.call("@not_strictly_false", b.b(false)))), "false");
  EXPECT_EQ(show(run(b.call("@not_strictly_false", b.call("_/_", b.i(1), b.i(0))))), "true");
}

TEST(CelInterpreter, UnsetVariablesAreNoSuchAttribute) {
  AstBuilder b;
  EXPECT_EQ(show(run(b.ident("x"))), "error: no such attribute(s): x");
  EXPECT_EQ(show(run(b.select(b.select(b.ident("a"), "b"), "c"))), "error: no such attribute(s): a.b.c");
  MapActivation vars;
  vars.set("a.b", Value::map({{Value("c"), Value(std::int64_t{7})}}));
  EXPECT_EQ(show(run(b.select(b.select(b.ident("a"), "b"), "c"), vars)), "7");
  vars.set("a.b.c", Value(std::int64_t{8}));
  EXPECT_EQ(show(run(b.select(b.select(b.ident("a"), "b"), "c"), vars)), "8");
}

TEST(CelInterpreter, SelectAndIndex) {
  AstBuilder b;
  MapActivation vars;
  vars.set("m", Value::map({{Value("k"), Value(std::int64_t{1})}, {Value(std::int64_t{2}), Value("two")}}));
  vars.set("l", Value::list({Value("a"), Value("b")}));
  EXPECT_EQ(show(run(b.select(b.ident("m"), "k"), vars)), "1");
  EXPECT_EQ(show(run(b.select(b.ident("m"), "x"), vars)), "error: no such key: x");
  EXPECT_EQ(show(run(b.call("_[_]", b.ident("m"), b.u(2)), vars)), "\"two\"");
  EXPECT_EQ(show(run(b.call("_[_]", b.ident("m"), b.d(2.0)), vars)), "\"two\"");
  EXPECT_EQ(show(run(b.call("_[_]", b.ident("m"), b.d(2.5)), vars)), "error: no such key: 2.5");
  EXPECT_EQ(show(run(b.call("_[_]", b.ident("l"), b.i(1)), vars)), "\"b\"");
  EXPECT_EQ(show(run(b.call("_[_]", b.ident("l"), b.u(0)), vars)), "\"a\"");
  EXPECT_EQ(show(run(b.call("_[_]", b.ident("l"), b.d(1.0)), vars)), "\"b\"");
  EXPECT_EQ(show(run(b.call("_[_]", b.ident("l"), b.i(3)), vars)), "error: index out of bounds: 3");
  EXPECT_EQ(show(run(b.call("_[_]", b.ident("l"), b.d(1.5)), vars)), "error: unsupported index value 1.5 in list");
  EXPECT_EQ(show(run(b.call("_[_]", b.ident("l"), b.s("x")), vars)),
            "error: unsupported index type 'string' in list");
  EXPECT_EQ(show(run(b.has(b.ident("m"), "k"), vars)), "true");
  EXPECT_EQ(show(run(b.has(b.ident("m"), "z"), vars)), "false");
  EXPECT_EQ(show(run(b.has(b.select(b.ident("m"), "z"), "y"), vars)), "error: no such key: z");
  EXPECT_EQ(show(run(b.select(b.i(1), "a"))), "error: no such key: a");
}

TEST(CelInterpreter, ComprehensionsScopeTheirVariables) {
  AstBuilder b;
  MapActivation vars;
  vars.set("x", Value("outer"));
  // [1, 2, 3].map(x, x * 2) leaves the outer x alone.
  Expr doubled = b.map_macro(b.list(AstBuilder::vec(b.i(1), b.i(2), b.i(3))), "x", b.call("_*_", b.ident("x"), b.i(2)));
  EXPECT_EQ(show(run(std::move(doubled), vars)), "[2, 4, 6]");
  Expr pair = b.list(AstBuilder::vec(
      b.map_macro(b.list(AstBuilder::vec(b.i(1))), "x", b.ident("x")), b.ident("x")));
  EXPECT_EQ(show(run(std::move(pair), vars)), "[[1], \"outer\"]");
  // Over a map, the keys.
  Expr keys = b.filter(b.map(AstBuilder::vec(b.s("a"), b.i(1), b.s("b"), b.i(2))), "k", b.call("_==_", b.ident("k"), b.s("b")));
  EXPECT_EQ(show(run(std::move(keys))), "[\"b\"]");
  // all() stops once false and absorbs errors of other elements.
  Expr all = b.all(b.list(AstBuilder::vec(b.i(0), b.i(1))), "v",
                   b.call("_>_", b.call("_/_", b.i(1), b.ident("v")), b.i(0)));
  EXPECT_EQ(show(run(std::move(all))), "error: division by zero");
  Expr all_false = b.all(b.list(AstBuilder::vec(b.i(0), b.i(-1))), "v",
                         b.call("_>_", b.call("_/_", b.i(1), b.ident("v")), b.i(0)));
  EXPECT_EQ(show(run(std::move(all_false))), "false");
  Expr exists = b.exists(b.list(AstBuilder::vec(b.i(0), b.i(1))), "v",
                         b.call("_>_", b.call("_/_", b.i(1), b.ident("v")), b.i(0)));
  EXPECT_EQ(show(run(std::move(exists))), "true");
  EXPECT_EQ(show(run(b.all(b.i(1), "v", b.b(true)))), "error: got 'types.Int', expected iterable type");
}

TEST(CelInterpreter, LongAccumulationsStayFlat) {
  AstBuilder b;
  std::vector<Value> items;
  for (int k = 0; k < 20000; ++k) items.emplace_back(std::int64_t{k});
  MapActivation vars;
  vars.set("items", Value::list(std::move(items)));
  EvalResult result = run(b.member(b.map_macro(b.ident("items"), "x", b.call("_+_", b.ident("x"), b.i(1))), "size"), vars);
  EXPECT_EQ(show(result), "20000");
  EvalResult last = run(b.call("_[_]", b.map_macro(b.ident("items"), "x", b.ident("x")), b.i(19999)), vars);
  EXPECT_EQ(show(last), "19999");
}

TEST(CelInterpreter, ListsAndMapsWithOptionalEntries) {
  AstBuilder b;
  Expr list = b.list(AstBuilder::vec(b.i(1), b.call("optional.none", std::vector<Expr>{}),
                                     b.call("optional.of", b.i(3))),
                     {1, 2});
  EXPECT_EQ(show(run(std::move(list))), "[1, 3]");
  EXPECT_EQ(show(run(b.list(AstBuilder::vec(b.i(1)), {0}))),
            "error: cannot initialize optional list element from non-optional value 1");
  Expr map = b.map(AstBuilder::vec(b.s("a"), b.call("optional.of", b.i(1)), b.s("b"),
                                   b.call("optional.none", std::vector<Expr>{})),
                   {true, true});
  EXPECT_EQ(show(run(std::move(map))), "{\"a\": 1}");
}

TEST(CelInterpreter, OptionalSelectionAndIndexing) {
  AstBuilder b;
  MapActivation vars;
  vars.set("m", Value::map({{Value("c"), Value::map({{Value("d"), Value("x")}})}}));
  auto opt_select = [&b](Expr operand, std::string field) { return b.call("_?._", std::move(operand), b.s(std::move(field))); };
  EXPECT_EQ(show(run(opt_select(b.ident("m"), "c"), vars)), "optional({\"d\": \"x\"})");
  EXPECT_EQ(show(run(opt_select(b.ident("m"), "z"), vars)), "optional.none()");
  EXPECT_EQ(show(run(b.select(opt_select(b.ident("m"), "c"), "d"), vars)), "optional(\"x\")");
  EXPECT_EQ(show(run(b.select(opt_select(b.ident("m"), "z"), "d"), vars)), "optional.none()");
  EXPECT_EQ(show(run(b.call("_[?_]", b.ident("m"), b.s("c")), vars)), "optional({\"d\": \"x\"})");
  // An optional operand makes the rest of the chain optional (cel-go applyQualifiers).
  EXPECT_EQ(show(run(b.select(b.call("optional.of", b.ident("m")), "c"), vars)), "optional({\"d\": \"x\"})");
  EXPECT_EQ(show(run(b.select(b.call("optional.none", std::vector<Expr>{}), "c"), vars)), "optional.none()");
  EXPECT_EQ(show(run(b.has(opt_select(b.ident("m"), "z"), "d"), vars)), "false");
  EXPECT_EQ(show(run(b.member(opt_select(b.ident("m"), "z"), "orValue", AstBuilder::vec(b.s("dflt"))), vars)),
            "\"dflt\"");
  EXPECT_EQ(show(run(b.member(b.call("optional.of", b.i(1)), "or",
                              AstBuilder::vec(b.call("_/_", b.i(1), b.i(0)))))),
            "optional(1)");
}

TEST(CelInterpreter, TypeIdentifiers) {
  AstBuilder b;
  EXPECT_EQ(show(run(b.ident("int"))), "int");
  EXPECT_EQ(show(run(b.select(b.select(b.ident("google"), "protobuf"), "Timestamp"))), "google.protobuf.Timestamp");
  EXPECT_EQ(show(run(b.call("_==_", b.call("type", b.i(1)), b.ident("int")))), "true");
  EXPECT_EQ(show(run(b.call("_==_", b.call("type", b.ident("int")), b.ident("type")))), "true");
}

TEST(CelInterpreter, RuntimeCostAndLimit) {
  AstBuilder b;
  MapActivation vars;
  vars.set("a", Value::map({{Value("b"), Value(std::int64_t{1})}}));
  EXPECT_EQ(run(b.i(1)).cost, 0u);
  EXPECT_EQ(run(b.ident("a"), vars).cost, 1u);
  EXPECT_EQ(run(b.select(b.ident("a"), "b"), vars).cost, 2u);
  EXPECT_EQ(run(b.has(b.ident("a"), "b"), vars).cost, 1u);  // kube: PresenceTestHasCost(false)
  EXPECT_EQ(run(b.has(b.select(b.ident("a"), "b"), "c"), vars).cost, 2u);
  EXPECT_EQ(run(b.call("_+_", b.select(b.ident("a"), "b"), b.i(1)), vars).cost, 3u);
  // Literals of constants are folded when planning (kube's OptOptimize); others cost 10 (lists) or 30 (maps).
  EXPECT_EQ(run(b.list(AstBuilder::vec(b.i(1)))).cost, 0u);
  EXPECT_EQ(run(b.map(std::vector<Expr>{})).cost, 0u);
  EXPECT_EQ(run(b.list(AstBuilder::vec(b.ident("a"))), vars).cost, 11u);
  EXPECT_EQ(run(b.map(AstBuilder::vec(b.s("k"), b.ident("a"))), vars).cost, 31u);
  EXPECT_EQ(run(b.call("string", b.i(1))).cost, 0u);
  EXPECT_EQ(run(b.call("_&&_", b.b(true), b.b(false))).cost, 0u);
  EvalResult limited = run(b.call("_+_", b.select(b.ident("a"), "b"), b.i(1)), vars, EvalOptions{2});
  EXPECT_EQ(show(limited), "error: operation cancelled: actual cost limit exceeded");
  EXPECT_EQ(limited.value.get<Error>().code, ErrorCode::kCostLimitExceeded);
  EXPECT_EQ(show(run(b.call("_+_", b.select(b.ident("a"), "b"), b.i(1)), vars, EvalOptions{3})), "2");
}

TEST(CelInterpreter, UnknownFunctionsAndMismatchedOverloads) {
  AstBuilder b;
  EXPECT_EQ(show(run(b.call("nope", b.i(1)))), "error: no such overload: nope");
  EXPECT_EQ(show(run(b.call("_+_", b.i(1), b.s("a")))), "error: no such overload");
  EXPECT_EQ(show(run(b.call("int", b.b(true)))), "error: no such overload: int(bool)");
  // A stdlib operator whose first argument lacks the trait it dispatches on names the operator.
  EXPECT_EQ(show(run(b.call("_+_", b.b(true), b.i(1)))), "error: no such overload: _+_");
  EXPECT_EQ(show(run(b.call("size", b.i(1)))), "error: no such overload: size");
  EXPECT_EQ(show(run(b.call("_<_", b.b(true), b.i(1)))), "error: no such overload");
  EXPECT_EQ(show(run(b.call("!_", b.i(1)))), "error: no such overload");
}

}  // namespace
}  // namespace kapi::cel::builder_eval_test
