// The checker against the real standard library (standard_env(): cel-go's declarations, optional types on,
// checker options as kube sets them), and end to end through the interpreter where the checker rewrites the tree
// (dotted variable names, namespaced functions).
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>

#include "cel/compile.h"
#include "cel/program.h"

namespace kapi::cel {
namespace {

std::string checked(const Env& env, std::string_view expr) {
  CheckResult result = compile(env, expr);
  if (!result.ast) return result.issues.empty() ? "no ast" : "ERROR: " + result.issues.errors.front().message;
  return result.ast->result_type().to_string();
}

TEST(CelCheckerStandardEnv, ResultTypes) {
  Env env = standard_env();
  env.add_variable("s", Type::string_type());
  env.add_variable("xs", Type::list(Type::int_type()));
  env.add_variable("m", Type::map(Type::string_type(), Type::dyn()));
  struct Case {
    const char* expr;
    const char* type;
  };
  for (const Case& c : std::vector<Case>{
           {"size(\"x\") == 1", "bool"},
           {"[1, 2].all(x, x > 0)", "bool"},
           {"[1, 2, 3].map(x, x * 2).filter(x, x > 2)", "list(int)"},
           {"[1, 2].exists_one(x, x == 1)", "bool"},
           {"xs.exists(x, x > 1) || xs.size() == 0", "bool"},
           {"s.startsWith('a') && s.endsWith('b') && s.contains('c')", "bool"},
           {"s.matches('^a+$')", "bool"},
           {"1 < 2.0 && 2u > 1 && 1.5 >= 1", "bool"},
           {"type(1) == int && type('a') == string && type([]) == list && type({}) == map", "bool"},
           {"type(null) == null_type && type(type) == type && type(b'') == bytes", "bool"},
           {"dyn(1) + 1", "int"},
           {"{'a': 1}.a", "int"},
           {"has({'a': 1}.a)", "bool"},
           {"int('1') + int(1u) + int(1.5)", "int"},
           {"string(1) + string(1u) + string(1.5) + string(b'a') + string(true)", "string"},
           {"double(1) + double(1u) + double('1.5')", "double"},
           {"uint(1) + uint(1.5) + uint('1')", "uint"},
           {"bytes('a') + b'b'", "bytes"},
           {"bool('true')", "bool"},
           {"'a' in ['a'] && 'a' in {'a': 1}", "bool"},
           {"!true || -1 < 0", "bool"},
           {"duration('1s') + timestamp('2020-01-01T00:00:00Z')", "google.protobuf.Timestamp"},
           {"timestamp(1).getFullYear()", "int"},
           {"timestamp('2020-01-01T00:00:00Z') - timestamp('2019-01-01T00:00:00Z')", "google.protobuf.Duration"},
           {"m.a.b.c", "dyn"},
           {"m['a'][0]", "dyn"},
           {"optional.of(1).orValue(2)", "int"},
           {"optional.none().hasValue()", "bool"},
           {"m.?a", "optional_type(dyn)"},
           {"xs[?0]", "optional_type(int)"},
           {"[?optional.of(1), 2]", "list(int)"},
           {"{?'a': optional.of('b')}", "map(string, string)"},
           {"true ? 1 : 2", "int"},
           {"true ? 1 : dyn('a')", "dyn"},
           {"true ? [] : [1]", "list(int)"},
           {"true ? optional.of(1) : null", "optional_type(int)"},
           {"true ? null : optional.of(1)", "null_type"},  // cel-go keeps the first of two unrelated types
           {"m.?a.orValue(1)", "dyn"},
       }) {
    EXPECT_EQ(checked(env, c.expr), c.type) << c.expr;
  }
}

TEST(CelCheckerStandardEnv, LibraryMacrosExpandIntoCheckableTrees) {
  Env env = standard_env();
  env.parser_options.extra_macros = {"cel.bind", "optMap", "optFlatMap"};
  env.add_variable("m", Type::map(Type::string_type(), Type::int_type()));
  EXPECT_EQ(checked(env, "cel.bind(x, 1, x + 1)"), "int");
  EXPECT_EQ(checked(env, "cel.bind(x, 'a', cel.bind(y, [x], y[0] + x))"), "string");
  EXPECT_EQ(checked(env, "m.?a.optMap(v, v * 2)"), "optional_type(int)");
  EXPECT_EQ(checked(env, "m.?a.optFlatMap(v, v > 0 ? optional.of(string(v)) : optional.none())"),
            "optional_type(string)");
}

TEST(CelCheckerStandardEnv, Errors) {
  Env env = standard_env();
  struct Case {
    const char* expr;
    const char* error;
  };
  for (const Case& c : std::vector<Case>{
           {"1 + 2u", "ERROR: found no matching overload for '_+_' applied to '(int, uint)'"},
           {"1 == 1u", "ERROR: found no matching overload for '_==_' applied to '(int, uint)'"},
           {"'a'.size(1)", "ERROR: found no matching overload for 'size' applied to 'string.(int)'"},
           {"size(1)", "ERROR: found no matching overload for 'size' applied to '(int)'"},
           {"x", "ERROR: undeclared reference to 'x' (in container '')"},
           {"nope(1)", "ERROR: undeclared reference to 'nope' (in container '')"},
           {"[1, 'a']", "ERROR: expected type 'int' but found 'string'"},
           {"{'a': 1, 'b': 'c'}", "ERROR: expected type 'int' but found 'string'"},
           {"1 && true", "ERROR: expected type 'bool' but found 'int'"},
           {"[1].all(x, x)", "ERROR: expected type 'bool' but found 'int'"},
           {"1.all(x, true)",
            "ERROR: expression of type 'int' cannot be range of a comprehension (must be list, map, or dynamic)"},
           {"'a'.b", "ERROR: type 'string' does not support field selection"},
           {"duration('1x')", "ERROR: invalid duration argument"},
           {"timestamp('yesterday')", "ERROR: invalid timestamp argument"},
           {"'a'.matches('[')", "ERROR: invalid matches argument"},
           {"Msg{a: 1}", "ERROR: undeclared reference to 'Msg' (in container '')"},
           {"true ? 1 : 'a'", "ERROR: found no matching overload for '_?_:_' applied to '(bool, int, string)'"},
           {"timestamp(1) + timestamp(2)",
            "ERROR: found no matching overload for '_+_' applied to '(timestamp, timestamp)'"},
       }) {
    EXPECT_EQ(checked(env, c.expr), c.error) << c.expr;
  }
}

// Messages kube's own tests expect from rules over schema-derived objects (apiextensions' compilation_test.go,
// the policy tests' variables).
TEST(CelCheckerStandardEnv, KubeObjectRulesFailAsKubeExpects) {
  Env env = standard_env();
  auto element = std::make_shared<ObjectType>();
  element->name = "Object.objs.@items";
  element->fields.emplace("f1", Type::string_type());
  element->fields.emplace("f2", Type::string_type());
  auto self = std::make_shared<ObjectType>();
  self->name = "Object";
  self->fields.emplace("objs", Type::list(Type::object(element)));
  env.add_variable("self", Type::object(self));
  env.add_function({"url",
                    {{.id = "string_to_url", .params = {Type::string_type()}, .result = Type::opaque("kubernetes.URL")}}});
  env.add_function({"getQuery",
                    {{.id = "url_get_query",
                      .params = {Type::opaque("kubernetes.URL")},
                      .result = Type::map(Type::string_type(), Type::list(Type::string_type())),
                      .member = true}}});
  env.add_variable("labels", Type::map(Type::string_type(), Type::string_type()));
  EXPECT_EQ(checked(env, "self.objs[0] == self.objs[1]"), "bool");
  EXPECT_EQ(checked(env, "self.objs[0] == {'f1': 'a', 'f2': 'b'}"),
            "ERROR: found no matching overload for '_==_' applied to '(Object.objs.@items, map(string, string))'");
  EXPECT_EQ(compile(env, "'foo' in labels ? url(labels['foo']).getQuery() : null").message,
            "ERROR: <input>:1:17: found no matching overload for '_?_:_' applied to '(bool, map(string, "
            "list(string)), null)'\n"
            " | 'foo' in labels ? url(labels['foo']).getQuery() : null\n"
            " | ................^");
  EXPECT_EQ(checked(env, "1 < 'asdf'"), "ERROR: found no matching overload for '_<_' applied to '(int, string)'");
  EXPECT_EQ(checked(env, "self.objs.all(o, o.f1 == o.f3)"), "ERROR: undefined field 'f3'");
}

// cel-go's TestCheckErrorData: one issue, on the node that failed.
TEST(CelCheckerStandardEnv, IssuesNameTheNodeThatFailed) {
  CheckResult result = compile(standard_env(), "a || true");
  ASSERT_EQ(result.issues.errors.size(), 1u);
  EXPECT_EQ(result.issues.errors[0].expr_id, 1);
  EXPECT_EQ(result.issues.errors[0].message, "undeclared reference to 'a' (in container '')");
}

Value evaluate(std::shared_ptr<const Env> env, std::string_view expr, const Activation& activation) {
  CheckResult result = compile(*env, expr);
  if (!result.ast) return Value::error(ErrorCode::kGeneric, result.message);
  auto checked_ast = std::make_shared<const CheckedAst>(std::move(*result.ast));
  return Program::plan(env, checked_ast).eval(activation).value;
}

TEST(CelCheckerStandardEnv, RewrittenTreesEvaluate) {
  auto env = std::make_shared<Env>(standard_env());
  env->add_variable("a.b.c", Type::string_type());
  env->add_variable("a.b", Type::map(Type::string_type(), Type::string_type()));
  MapActivation activation;
  activation.set("a.b.c", Value("x"));
  activation.set("a.b", Value::map({{Value("d"), Value("y")}}));
  auto expect_true = [&](std::string_view expr) {
    Value v = evaluate(env, expr, activation);
    ASSERT_TRUE(v.is<bool>()) << expr << ": " << debug_string(v);
    EXPECT_TRUE(v.get<bool>()) << expr;
  };
  expect_true("a.b.c == 'x'");
  expect_true(".a.b.c == 'x'");
  expect_true("a.b.d == 'y'");
  expect_true("optional.of(1).value() == 1");
  expect_true("!optional.none().hasValue()");
  expect_true("[1, 2].all(x, x > 0) && [1, 2].map(x, x + 1) == [2, 3]");
  expect_true("a.b.?d.orValue('z') == 'y' && a.b.?e.orValue('z') == 'z'");
}

}  // namespace
}  // namespace kapi::cel

namespace kapi::cel {
namespace {

// The deepest trees the parser lets through check without trouble (the checker recurses once per level).
TEST(CelCheckerStandardEnv, DeepestParsableTreesCheck) {
  Env env = standard_env();
  env.add_variable("m", Type::dyn());
  for (int n = 50; n <= 1000; n += 50) {
    std::string lists = std::string(n, '[') + "1" + std::string(n, ']');
    std::string selects = "m";
    std::string sums = "1";
    for (int i = 0; i < n; ++i) {
      selects += ".f";
      sums += " + 1";
    }
    for (const std::string& expr : {lists, selects, sums}) {
      ParseResult parsed = parse(expr, env.parser_options);
      if (!parsed.ast) continue;  // beyond the parser's limit
      CheckResult result = check(env, std::move(*parsed.ast));
      EXPECT_TRUE(result.ast) << expr.substr(0, 20) << "... (" << n << "): " << result.message;
    }
  }
}

}  // namespace
}  // namespace kapi::cel

namespace kapi::cel {
namespace {

TEST(CelCheckerStandardEnv, LibraryValidatorsRunAfterTheCheck) {
  Env env = standard_env();
  env.checker_options.validators.push_back([](const CheckedAst& ast, Issues& issues) {
    if (ast.result_type() == Type::string_type()) issues.errors.push_back({.expr_id = ast.root.id, .message = "no strings"});
  });
  EXPECT_EQ(checked(env, "1"), "int");
  EXPECT_EQ(compile(env, "'a'").message, "ERROR: <input>:1:1: no strings\n | 'a'\n | ^");
}

}  // namespace
}  // namespace kapi::cel

namespace kapi::cel {
namespace {

void collect_ids(const Expr& e, std::vector<std::int64_t>& ids) {
  ids.push_back(e.id);
  if (const auto* s = std::get_if<SelectExpr>(&e.kind)) collect_ids(*s->operand, ids);
  if (const auto* c = std::get_if<CallExpr>(&e.kind)) {
    if (c->target) collect_ids(*c->target, ids);
    for (const Expr& a : c->args) collect_ids(a, ids);
  }
  if (const auto* l = std::get_if<ListExpr>(&e.kind)) {
    for (const Expr& x : l->elements) collect_ids(x, ids);
  }
  if (const auto* m = std::get_if<MapExpr>(&e.kind)) {
    for (const MapEntry& x : m->entries) {
      collect_ids(*x.key, ids);
      collect_ids(*x.value, ids);
    }
  }
  if (const auto* c = std::get_if<ComprehensionExpr>(&e.kind)) {
    for (const auto* p : {&c->iter_range, &c->accu_init, &c->loop_condition, &c->loop_step, &c->result}) {
      collect_ids(**p, ids);
    }
  }
}

TEST(CelCheckerStandardEnv, EveryNodeHasATypeAndIdentifiersAndCallsHaveReferences) {
  Env env = standard_env();
  env.add_variable("xs", Type::list(Type::string_type()).with_max_elements(10));
  env.add_variable("m", Type::map(Type::string_type(), Type::int_type()));
  CheckResult result =
      compile(env, "xs.all(x, x.size() < 3) && m.?a.orValue(1) == 1 && {'k': [1, 2]}.k[0] > 0 && has(m.b)");
  ASSERT_TRUE(result.ast) << result.message;
  const CheckedAst& ast = *result.ast;
  std::vector<std::int64_t> ids;
  collect_ids(ast.root, ids);
  // All but the field name of `m.?a`, which cel-go leaves untyped too (type_of() gives dyn for it).
  std::size_t untyped = 0;
  for (std::int64_t id : ids) untyped += ast.types.contains(id) ? 0 : 1;
  EXPECT_EQ(untyped, 1u);

  std::map<std::string, std::vector<std::string>> calls;
  std::set<std::string> idents;
  for (const auto& [id, reference] : ast.references) {
    if (reference.overload_ids.empty()) {
      idents.insert(reference.name);
    } else {
      calls[reference.overload_ids.front()] = reference.overload_ids;
    }
  }
  EXPECT_EQ(idents, (std::set<std::string>{"xs", "x", "m", "@result"}));
  EXPECT_TRUE(calls.contains("string_size"));
  EXPECT_TRUE(calls.contains("less_int64"));
  EXPECT_TRUE(calls.contains("select_optional_field"));
  EXPECT_TRUE(calls.contains("optional_orValue_value"));
  EXPECT_TRUE(calls.contains("index_list"));
  EXPECT_TRUE(calls.contains("not_strictly_false"));
  // Declared size hints survive into the checked types.
  bool hint_kept = false;
  for (const auto& [id, t] : ast.types) hint_kept |= t.kind() == TypeKind::kList && t.max_elements() == 10u;
  EXPECT_TRUE(hint_kept);
}

}  // namespace
}  // namespace kapi::cel
