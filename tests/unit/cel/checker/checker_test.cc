// The type checker on hand-built ASTs (ports of cel-go's checker/checker_test.go cases that need no parser),
// against a small environment declared here.
#include <gtest/gtest.h>

#include "cel/compile.h"
#include "tests/unit/cel/checker/ast_builder.h"

namespace kapi::cel {
namespace {

using testing::AstBuilder;

Type A() { return Type::type_param("A"); }

Env small_env() {
  Env env;
  env.add_function({"_+_",
                    {{.id = "add_int64", .params = {Type::int_type(), Type::int_type()}, .result = Type::int_type()},
                     {.id = "add_string",
                      .params = {Type::string_type(), Type::string_type()},
                      .result = Type::string_type()},
                     {.id = "add_list", .params = {Type::list(A()), Type::list(A())}, .result = Type::list(A())}}});
  env.add_function({"_==_", {{.id = "equals", .params = {A(), A()}, .result = Type::bool_type()}}});
  env.add_function({"_&&_",
                    {{.id = "logical_and",
                      .params = {Type::bool_type(), Type::bool_type()},
                      .result = Type::bool_type()}}});
  env.add_function({"@not_strictly_false",
                    {{.id = "not_strictly_false", .params = {Type::bool_type()}, .result = Type::bool_type()}}});
  env.add_function({"size",
                    {{.id = "size_string", .params = {Type::string_type()}, .result = Type::int_type()},
                     {.id = "size_list", .params = {Type::list(A())}, .result = Type::int_type()},
                     {.id = "string_size", .params = {Type::string_type()}, .result = Type::int_type(), .member = true}}});
  env.add_function({"_<_",
                    {{.id = "less_int64", .params = {Type::int_type(), Type::int_type()}, .result = Type::bool_type()},
                     {.id = "less_int64_double",
                      .params = {Type::int_type(), Type::double_type()},
                      .result = Type::bool_type()}}});
  env.add_function({"_[_]",
                    {{.id = "index_list", .params = {Type::list(A()), Type::int_type()}, .result = A()},
                     {.id = "index_map",
                      .params = {Type::map(Type::type_param("K"), Type::type_param("V")), Type::type_param("K")},
                      .result = Type::type_param("V")}}});
  env.add_function({"dyn", {{.id = "to_dyn", .params = {A()}, .result = Type::dyn()}}});
  env.add_function({"ns.f", {{.id = "ns_f_int", .params = {Type::int_type()}, .result = Type::string_type()}}});
  env.add_variable("ii", Type::int_type());
  env.add_variable("is", Type::string_type());
  env.add_variable("ix", Type::null_type());
  env.add_variable("a.b.c", Type::string_type());
  env.add_variable("a.b", Type::map(Type::string_type(), Type::int_type()));
  env.add_variable("m", Type::map(Type::string_type(), Type::list(Type::int_type())));
  env.add_variable("d", Type::dyn());
  auto object = std::make_shared<ObjectType>();
  object->name = "Object.spec";
  object->fields.emplace("replicas", Type::int_type());
  object->fields.emplace("name", Type::string_type());
  env.add_variable("self", Type::object(object));
  env.checker_options.homogeneous_aggregate_literals = false;
  return env;
}

std::string checked_type(const Env& env, ParsedAst ast) {
  CheckResult result = check(env, std::move(ast));
  if (!result.ast) return "ERROR: " + (result.issues.empty() ? std::string() : result.issues.errors[0].message);
  return result.ast->result_type().to_string();
}

TEST(CelChecker, LiteralsHaveTheirTypes) {
  Env env = small_env();
  AstBuilder b;
  EXPECT_EQ(checked_type(env, b.ast(b.lit(std::string("A")))), "string");
  EXPECT_EQ(checked_type(env, b.ast(b.lit(std::int64_t{12}))), "int");
  EXPECT_EQ(checked_type(env, b.ast(b.lit(std::uint64_t{12}))), "uint");
  EXPECT_EQ(checked_type(env, b.ast(b.lit(12.5))), "double");
  EXPECT_EQ(checked_type(env, b.ast(b.lit(NullLiteral{}))), "null_type");
  EXPECT_EQ(checked_type(env, b.ast(b.lit(BytesLiteral{"ABC"}))), "bytes");
  EXPECT_EQ(checked_type(env, b.ast(b.lit(true))), "bool");
}

TEST(CelChecker, IdentifiersResolveToVariablesAndTypes) {
  Env env = small_env();
  AstBuilder b;
  EXPECT_EQ(checked_type(env, b.ast(b.ident("ii"))), "int");
  EXPECT_EQ(checked_type(env, b.ast(b.ident(".ii"))), "int");
  EXPECT_EQ(checked_type(env, b.ast(b.ident("int"))), "type(int)");
  EXPECT_EQ(checked_type(env, b.ast(b.ident("x"))), "ERROR: undeclared reference to 'x' (in container '')");
}

TEST(CelChecker, DottedNamesResolveLongestFirstAndAreRewrittenToIdentifiers) {
  Env env = small_env();
  AstBuilder b;
  CheckResult result = check(env, b.ast(b.select(b.select(b.ident("a"), "b"), "c")));
  ASSERT_TRUE(result.ast) << result.message;
  EXPECT_EQ(result.ast->result_type(), Type::string_type());
  const auto* ident = std::get_if<IdentExpr>(&result.ast->root.kind);
  ASSERT_NE(ident, nullptr);
  EXPECT_EQ(ident->name, "a.b.c");
  EXPECT_EQ(result.ast->references.at(result.ast->root.id).name, "a.b.c");
  // a.b.d: `a.b` is a map(string, int), so .d selects its value.
  EXPECT_EQ(checked_type(env, b.ast(b.select(b.select(b.ident("a"), "b"), "d"))), "int");
}

TEST(CelChecker, OverloadsResolveByArgumentTypes) {
  Env env = small_env();
  AstBuilder b;
  EXPECT_EQ(checked_type(env, b.ast(b.call("_+_", b.vec(b.lit(std::int64_t{1}), b.lit(std::int64_t{2}))))), "int");
  EXPECT_EQ(checked_type(env, b.ast(b.call("_+_", b.vec(b.lit(std::int64_t{1}), b.lit(std::string("a")))))),
            "ERROR: found no matching overload for '_+_' applied to '(int, string)'");
  EXPECT_EQ(checked_type(env, b.ast(b.member(b.lit(std::string("a")), "size", {}))), "int");
  EXPECT_EQ(checked_type(env, b.ast(b.member(b.lit(std::string("a")), "size", b.vec(b.lit(std::int64_t{1}))))),
            "ERROR: found no matching overload for 'size' applied to 'string.(int)'");
  EXPECT_EQ(checked_type(env, b.ast(b.call("nope", {}))), "ERROR: undeclared reference to 'nope' (in container '')");
}

TEST(CelChecker, GenericOverloadsBindTypeParameters) {
  Env env = small_env();
  AstBuilder b;
  // [1] + [2]: add_list with A bound to int.
  EXPECT_EQ(checked_type(env, b.ast(b.call("_+_", b.vec(b.list(b.vec(b.lit(std::int64_t{1}))),
                                                         b.list(b.vec(b.lit(std::int64_t{2}))))))),
            "list(int)");
  // [] + [1]
  EXPECT_EQ(checked_type(env, b.ast(b.call("_+_", b.vec(b.list({}), b.list(b.vec(b.lit(std::int64_t{1}))))))),
            "list(int)");
  // m["k"][0]
  EXPECT_EQ(checked_type(env, b.ast(b.call("_[_]", b.vec(b.call("_[_]", b.vec(b.ident("m"), b.lit(std::string("k")))),
                                                          b.lit(std::int64_t{0}))))),
            "int");
  // d[0] matches index_list and index_map: dyn.
  CheckResult result = check(env, b.ast(b.call("_[_]", b.vec(b.ident("d"), b.lit(std::int64_t{0})))));
  ASSERT_TRUE(result.ast);
  EXPECT_EQ(result.ast->result_type(), Type::dyn());
  EXPECT_EQ(result.ast->references.at(result.ast->root.id).overload_ids,
            (std::vector<std::string>{"index_list", "index_map"}));
  // [] alone: list(dyn) once unbound parameters become dyn.
  EXPECT_EQ(checked_type(env, b.ast(b.list({}))), "list(dyn)");
}

TEST(CelChecker, NamespacedFunctionsWinOverMemberCalls) {
  Env env = small_env();
  AstBuilder b;
  CheckResult result = check(env, b.ast(b.member(b.ident("ns"), "f", b.vec(b.lit(std::int64_t{1})))));
  ASSERT_TRUE(result.ast) << result.message;
  EXPECT_EQ(result.ast->result_type(), Type::string_type());
  const auto& call = std::get<CallExpr>(result.ast->root.kind);
  EXPECT_EQ(call.function, "ns.f");
  EXPECT_EQ(call.target, nullptr);
}

TEST(CelChecker, SelectionOnObjectsMapsAndDyn) {
  Env env = small_env();
  AstBuilder b;
  EXPECT_EQ(checked_type(env, b.ast(b.select(b.ident("self"), "replicas"))), "int");
  EXPECT_EQ(checked_type(env, b.ast(b.select(b.ident("self"), "nope"))), "ERROR: undefined field 'nope'");
  EXPECT_EQ(checked_type(env, b.ast(b.select(b.ident("self"), "name", true))), "bool");
  EXPECT_EQ(checked_type(env, b.ast(b.select(b.ident("self"), "nope", true))), "ERROR: undefined field 'nope'");
  EXPECT_EQ(checked_type(env, b.ast(b.select(b.ident("m"), "k"))), "list(int)");
  EXPECT_EQ(checked_type(env, b.ast(b.select(b.select(b.ident("d"), "x"), "y"))), "dyn");
  EXPECT_EQ(checked_type(env, b.ast(b.select(b.ident("is"), "x"))),
            "ERROR: type 'string' does not support field selection");
}

TEST(CelChecker, ComprehensionsScopeTheirVariables) {
  Env env = small_env();
  AstBuilder b;
  // [1, 2].all(x, x < 3)
  EXPECT_EQ(checked_type(env, b.ast(b.all(b.list(b.vec(b.lit(std::int64_t{1}), b.lit(std::int64_t{2}))), "x",
                                          b.call("_<_", b.vec(b.ident("x"), b.lit(std::int64_t{3})))))),
            "bool");
  // [1].map(is, is + 1): the iteration variable shadows the string variable `is`.
  EXPECT_EQ(checked_type(env, b.ast(b.map_macro(b.list(b.vec(b.lit(std::int64_t{1}))), "is",
                                                b.call("_+_", b.vec(b.ident("is"), b.lit(std::int64_t{1})))))),
            "list(int)");
  // m.all(k, size(k) == 1): maps range over their keys.
  EXPECT_EQ(checked_type(env, b.ast(b.all(b.ident("m"), "k",
                                          b.call("_==_", b.vec(b.call("size", b.vec(b.ident("k"))),
                                                               b.lit(std::int64_t{1})))))),
            "bool");
  // ii.all(x, true)
  EXPECT_EQ(checked_type(env, b.ast(b.all(b.ident("ii"), "x", b.lit(true)))),
            "ERROR: expression of type 'int' cannot be range of a comprehension (must be list, map, or dynamic)");
  // The iteration variable is gone after the comprehension: [1].all(x, true) && x
  EXPECT_EQ(checked_type(env, b.ast(b.call("_&&_", b.vec(b.all(b.list(b.vec(b.lit(std::int64_t{1}))), "x", b.lit(true)),
                                                          b.ident("x"))))),
            "ERROR: undeclared reference to 'x' (in container '')");
}

TEST(CelChecker, TwoVariableComprehensionsBindIndexAndElementOrKeyAndValue) {
  Env env = small_env();
  AstBuilder b;
  // m.all(k, v, size(k) == 1 && v == [1]): m is map(string, list(int)).
  Expr key_check = b.call("_==_", b.vec(b.call("size", b.vec(b.ident("k"))), b.lit(std::int64_t{1})));
  Expr value_check = b.call("_==_", b.vec(b.ident("v"), b.list(b.vec(b.lit(std::int64_t{1})))));
  Expr predicate = b.call("_&&_", b.vec(std::move(key_check), std::move(value_check)));
  EXPECT_EQ(checked_type(env, b.ast(b.all2(b.ident("m"), "k", "v", std::move(predicate)))), "bool");
  // ['a'].transformList(i, v, i + size(v)): the index is an int, the element a string.
  Expr transform = b.call("_+_", b.vec(b.ident("i"), b.call("size", b.vec(b.ident("v")))));
  Expr range = b.list(b.vec(b.lit(std::string("a"))));
  EXPECT_EQ(checked_type(env, b.ast(b.transform_list(std::move(range), "i", "v", std::move(transform)))),
            "list(int)");
  // d.all(k, v, v): both variables of a dyn range are dyn.
  EXPECT_EQ(checked_type(env, b.ast(b.all2(b.ident("d"), "k", "v", b.ident("v")))), "bool");
  EXPECT_EQ(checked_type(env, b.ast(b.all2(b.ident("ii"), "k", "v", b.lit(true)))),
            "ERROR: expression of type 'int' cannot be range of a comprehension (must be list, map, or dynamic)");
}

TEST(CelChecker, LogicalOperatorsNameEachNonBoolArgument) {
  Env env = small_env();
  AstBuilder b;
  EXPECT_EQ(checked_type(env, b.ast(b.call("_&&_", b.vec(b.lit(true), b.ident("ii"))))),
            "ERROR: expected type 'bool' but found 'int'");
}

TEST(CelChecker, MixedLiteralsJoinToDynOrAreRefusedWhenHomogeneous) {
  Env env = small_env();
  AstBuilder b;
  EXPECT_EQ(checked_type(env, b.ast(b.list(b.vec(b.lit(std::int64_t{1}), b.lit(std::string("A")))))), "list(dyn)");
  env.checker_options.homogeneous_aggregate_literals = true;
  EXPECT_EQ(checked_type(env, b.ast(b.list(b.vec(b.lit(std::int64_t{1}), b.lit(std::string("A")))))),
            "ERROR: expected type 'int' but found 'string'");
  EXPECT_EQ(checked_type(env, b.ast(b.map(
                                  [&] {
                                    std::vector<std::pair<Expr, Expr>> entries;
                                    entries.emplace_back(b.lit(std::string("a")), b.lit(std::int64_t{1}));
                                    entries.emplace_back(b.lit(std::string("b")), b.lit(std::int64_t{2}));
                                    return entries;
                                  }()))),
            "map(string, int)");
}

TEST(CelChecker, NullIsAssignableOnlyWhereCelGoAllows) {
  Env env = small_env();
  AstBuilder b;
  EXPECT_EQ(checked_type(env, b.ast(b.call("_==_", b.vec(b.ident("ix"), b.lit(NullLiteral{}))))), "bool");
  EXPECT_EQ(checked_type(env, b.ast(b.call("_+_", b.vec(b.ident("ii"), b.lit(NullLiteral{}))))),
            "ERROR: found no matching overload for '_+_' applied to '(int, null)'");
}

}  // namespace
}  // namespace kapi::cel

namespace kapi::cel {
namespace {

TEST(CelChecker, LiteralArgumentsOfDurationTimestampAndMatchesAreValidated) {
  Env env = small_env();
  auto fails_on_bad = [](std::span<const Value> args) {
    return args.back().get<std::string>() == "bad" ? Value::error(ErrorCode::kGeneric, "bad") : Value(true);
  };
  env.add_function({"duration", {{.id = "string_to_duration", .params = {Type::string_type()},
                                  .result = Type::duration(), .impl = fails_on_bad}}});
  env.add_function({"matches", {{.id = "matches_string", .params = {Type::string_type(), Type::string_type()},
                                 .result = Type::bool_type(), .member = true, .impl = fails_on_bad}}});
  AstBuilder b;
  EXPECT_EQ(checked_type(env, b.ast(b.call("duration", b.vec(b.lit(std::string("1s")))))), "google.protobuf.Duration");
  EXPECT_EQ(checked_type(env, b.ast(b.call("duration", b.vec(b.lit(std::string("bad")))))),
            "ERROR: invalid duration argument");
  EXPECT_EQ(checked_type(env, b.ast(b.member(b.ident("is"), "matches", b.vec(b.lit(std::string("bad")))))),
            "ERROR: invalid matches argument");
  env.checker_options.validate_literals = false;
  EXPECT_EQ(checked_type(env, b.ast(b.call("duration", b.vec(b.lit(std::string("bad")))))), "google.protobuf.Duration");
}

}  // namespace
}  // namespace kapi::cel
