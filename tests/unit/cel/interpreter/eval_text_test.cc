// The interpreter end to end from expression text (parse, check when possible, plan, evaluate): cel-go's
// interpreter_test.go cases that need no protobuf messages, and kube-style expressions over JSON objects.
#include <gtest/gtest.h>

#include <thread>

#include <boost/json.hpp>

#include "cel/compile.h"
#include "cel/json.h"
#include "cel/program.h"

namespace kapi::cel {
namespace {

struct Vars {
  std::vector<std::pair<std::string, Value>> values;
};

std::shared_ptr<const Env> env_with(const Vars& vars) {
  Env env = standard_env();
  for (const auto& [name, value] : vars.values) env.add_variable(name, Type::dyn());
  return std::make_shared<const Env>(std::move(env));
}

MapActivation activation_of(const Vars& vars) {
  MapActivation activation;
  for (const auto& [name, value] : vars.values) activation.set(name, value);
  return activation;
}

// Checked evaluation (as kube runs expressions); the check must succeed.
EvalResult checked(std::string_view text, const Vars& vars = {}, EvalOptions options = {}) {
  auto env = env_with(vars);
  CheckResult result = compile(*env, text);
  if (!result.ast) {
    ADD_FAILURE() << text << ": " << result.message;
    return {};
  }
  Program program = Program::plan(env, std::make_shared<const CheckedAst>(std::move(*result.ast)));
  return program.eval(activation_of(vars), options);
}

// Unchecked evaluation (cel-go's parse-only programs).
EvalResult unchecked(std::string_view text, const Vars& vars = {}, EvalOptions options = {}) {
  auto env = env_with(vars);
  ParseResult parsed = parse(text, env->parser_options);
  if (!parsed.ast) {
    ADD_FAILURE() << text << ": " << parsed.issues.to_display_string(std::string(text), {});
    return {};
  }
  Program program = Program::plan_unchecked(env, std::make_shared<const ParsedAst>(std::move(*parsed.ast)));
  return program.eval(activation_of(vars), options);
}

std::string show(const EvalResult& r) { return debug_string(r.value); }

Value json(std::string_view text) {
  return value_of(std::make_shared<const boost::json::value>(boost::json::parse(text)));
}

TEST(CelEvalText, LogicAndErrors) {
  EXPECT_EQ(show(checked("0.0/0.0 == 0.0/0.0")), "false");
  EXPECT_EQ(show(checked("1/0 != 0 && false")), "false");
  EXPECT_EQ(show(checked("false && 1/0 != 0")), "false");
  EXPECT_EQ(show(checked("1/0 != 0 && true")), "error: division by zero");
  EXPECT_EQ(show(checked("true && 1/0 != 0")), "error: division by zero");
  EXPECT_EQ(show(checked("1/0 != 0 || false")), "error: division by zero");
  EXPECT_EQ(show(checked("1/0 != 0 || true")), "true");
  EXPECT_EQ(show(checked("true || 1/0 != 0")), "true");
  EXPECT_EQ(show(checked("1/0 in [1, 2, 3]")), "error: division by zero");
  EXPECT_EQ(show(checked("a ? b < 1.2 : c == ['hello']",
                         {{{"a", Value(true)}, {"b", Value(2.0)}, {"c", Value::list({Value("hello")})}}})),
            "false");
}

// Literals mixing types and invalid constant patterns are refused by kube's checker (homogeneous aggregate
// literals, matches() argument validation); cel-go's tests evaluate them, so they run unchecked here.
TEST(CelEvalText, IndexingAndMembership) {
  Vars m{{{"m", Value::list({Value(std::int64_t{0})})}, {"x", Value(false)}}};
  EXPECT_EQ(show(checked("m[(x ? 0 : 1)] >= 0", m)), "error: index out of bounds: 1");
  EXPECT_EQ(show(checked("6 in []")), "false");
  EXPECT_EQ(show(checked("6 in [2, 12, 6]")), "true");
  EXPECT_EQ(show(checked("b'hello' in [b'world', b'universe', b'hello']")), "true");
  EXPECT_EQ(show(unchecked("[6] in [2, 12, [6]]")), "true");
  EXPECT_EQ(show(checked("dyn(12u) in [2, 12, 6]")), "true");
  EXPECT_EQ(show(checked("dyn(6.0) in [2, 12, 6]")), "true");
  EXPECT_EQ(show(checked("dyn(6) in [2.1, 12.0, 6.0]")), "true");
  EXPECT_EQ(show(checked("dyn(2) in [2.1, 12.0, 6.0]")), "false");
  EXPECT_EQ(show(checked("dyn(6) in [2u, 12u, 6u]")), "true");
  EXPECT_EQ(show(checked("dyn(-6) in [2u, 12u, 6u]")), "false");
  EXPECT_EQ(show(unchecked("6 in [2, 12, x]", {{{"x", Value(std::int64_t{6})}}})), "true");
  EXPECT_EQ(show(unchecked("dyn(6.0) in [2, 12, x]", {{{"x", Value(std::int64_t{6})}}})), "true");
  EXPECT_EQ(show(unchecked("'other-key' in {'key': null, 'other-key': 42}")), "true");
  EXPECT_EQ(show(unchecked("'other-key' in {1: null, 2u: 42}")), "false");
  EXPECT_EQ(show(unchecked("2.0 in {1: null, 2u: 42}")), "true");
  EXPECT_EQ(show(unchecked("2.1 in {1: null, 2u: 42}")), "false");
  EXPECT_EQ(show(unchecked("'hello' in {1: 'one', false: true, 'hello': 'world'}")), "true");
  EXPECT_EQ(show(checked("{1: 'hello', 2: 'world'}[dyn(2.0)] == 'world'")), "true");
  EXPECT_EQ(show(checked("{1: 'hello', 2: 'world'}[dyn(2u)] == 'world'")), "true");
  EXPECT_EQ(show(checked("{1: 'hello'}[x] == 'hello' && ['world'][y] == 'world'",
                         {{{"x", Value(std::int64_t{2})}, {"y", Value(std::int64_t{0})}}})),
            "error: no such key: 2");
  EXPECT_EQ(show(checked("[7, 8, 9][dyn(0.0)] == 7")), "true");
  EXPECT_EQ(show(checked("[7, 8, 9][dyn(0u)] == 7")), "true");
  EXPECT_EQ(show(checked("[7, 8, 9][dyn(0.1)] == 7")), "error: unsupported index value 0.1 in list");
  EXPECT_EQ(show(unchecked("([[[1]], [[2]], [[3]]][0][0] + [2, 3, {'four': {'five': 'six'}}])[3].four.five == 'six'")),
            "true");
  EXPECT_EQ(show(unchecked("['string', 1] == [2, 3]")), "false");
}

TEST(CelEvalText, StringsBytesAndTime) {
  EXPECT_EQ(show(checked(R"(string(bytes("\303\277")) == '''\303\277''')")), "true");
  EXPECT_EQ(show(checked(R"(string(b"\303\277") == 'ÿ')")), "true");
  EXPECT_EQ(show(checked(R"(string(b'aaa"bbb'))")), R"("aaa"bbb")");
  EXPECT_EQ(show(checked("timestamp(0) < timestamp(1)")), "true");
  EXPECT_EQ(show(checked("timestamp('1986-04-26T01:23:40Z')")), "timestamp(514862620s+0ns)");
  EXPECT_EQ(show(checked("timestamp('1986-04-26T01:23:40Z').getFullYear('America/New_York')")), "1986");
  EXPECT_EQ(show(checked("duration('1h2m3.5s').getMinutes()")), "62");
  EXPECT_EQ(show(checked("string(duration('1h2m3.5s'))")), R"("3723.5s")");
  EXPECT_EQ(show(checked("timestamp('2023-01-01T00:00:00Z') - timestamp('2022-12-31T23:00:00Z') == duration('1h')")),
            "true");
  EXPECT_EQ(show(checked("'hello'.matches('^h.*o$') && matches('abc', 'b')")), "true");
  EXPECT_EQ(show(unchecked("input.matches(')k.*')", {{{"input", Value("kathmandu")}}})).rfind("error: ", 0), 0u);
  EXPECT_EQ(show(checked("'héllo'.size() == 5 && size(b'h\\xc3\\xa9llo') == 6")), "true");
}

TEST(CelEvalText, ConversionsAsCelGoTestsThem) {
  for (const char* failing : {"bool('tru')", "double('_123')", "duration('12hh3')", "int('11l')", "timestamp('123')",
                              "uint(-1)"}) {
    EXPECT_TRUE(unchecked(failing).value.is_error()) << failing;
  }
  EXPECT_EQ(show(checked("bool('true')")), "true");
  EXPECT_EQ(show(checked("double('123.0')")), "123");
  EXPECT_EQ(show(checked("duration('12s')")), "duration(12000000000ns)");
  EXPECT_EQ(show(checked("dyn(1u)")), "1u");
  EXPECT_EQ(show(checked("timestamp(123)")), "timestamp(123s+0ns)");
  EXPECT_EQ(show(checked("type(null)")), "null_type");
  EXPECT_EQ(show(checked("type(timestamp(int('123')))")), "google.protobuf.Timestamp");
  EXPECT_EQ(show(checked("type(1) == int && type('a') == string && type([]) == list && type({}) == map")), "true");
  EXPECT_EQ(show(checked("type(type(1)) == type && type(optional.none()) == optional_type")), "true");
}

TEST(CelEvalText, Macros) {
  EXPECT_EQ(show(checked("![0, 2, 4].all(x, 4/x != 2 && 4/(4-x) != 2)")), "true");
  EXPECT_EQ(show(unchecked("[1, 2, 3, 4, 5u, 1.0].exists(e, type(e) == uint)")), "true");
  EXPECT_EQ(show(checked("[0, 2, 4].exists(x, 4/x == 2 && 4/(4-x) == 2)")), "true");
  EXPECT_EQ(show(checked("[1, 2, 3].exists_one(x, (x % 2) == 0)")), "true");
  EXPECT_EQ(show(checked("[-10, -9, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3].filter(x, x > 0)")), "[1, 2, 3]");
  EXPECT_EQ(show(checked("has({'a':1}.a) && !has({}.a)")), "true");
  EXPECT_EQ(show(checked("[1, 2, 3].map(x, x * 2) == [2, 4, 6]")), "true");
  EXPECT_EQ(show(checked("[1, 2, 3].map(x, x > 1, x * 10)")), "[20, 30]");
  EXPECT_EQ(show(checked("code == '111' && ['a', 'b'].all(x, x in tags)",
                         {{{"code", Value("111")}, {"tags", Value::list({Value("a"), Value("b"), Value("c")})}}})),
            "true");
  EXPECT_EQ(show(checked("items.map(i, i).map(i, i).size() != 0",
                         {{{"items", Value::list({Value(std::int64_t{1})})}}})),
            "true");
  // Nested comprehensions shadow the outer variable and restore it.
  EXPECT_EQ(show(checked("[1, 2].map(x, [10, 20].map(x, x + 1)) == [[11, 21], [11, 21]]")), "true");
  EXPECT_EQ(show(checked("[1, 2].all(x, [3].exists(y, y > x))")), "true");
}

TEST(CelEvalText, Optionals) {
  EXPECT_EQ(show(checked("{?'hi': {}.?missing, ?'present': {'k': 1}.?k}")), "{\"present\": 1}");
  EXPECT_EQ(show(unchecked("{?'hi': 'world'}")),
            "error: cannot initialize optional entry '\"hi\"' from non-optional value \"world\"");
  EXPECT_EQ(show(checked("[?{}.?missing, ?{'present': 42u}.?present]")), "[42u]");
  EXPECT_EQ(show(unchecked("[?123]")), "error: cannot initialize optional list element from non-optional value 123");
  EXPECT_EQ(show(checked("{}.?invalid")), "optional.none()");
  EXPECT_EQ(show(checked("{'invalid': dyn(null)}.?invalid.?nested")), "optional.none()");
  EXPECT_EQ(show(checked("optional.of(1).optMap(x, x + 1)")), "optional(2)");
  EXPECT_EQ(show(checked("optional.none().or(optional.of(3)).value()")), "3");
  EXPECT_EQ(show(checked("{'a': {'b': 1}}.?a.b.orValue(0)")), "1");
  EXPECT_EQ(show(checked("{'a': {'b': 1}}.?a.c.orValue(0)")), "0");
  EXPECT_EQ(show(checked("[1, 2][?5].orValue(7)")), "7");
  EXPECT_EQ(show(checked("optional.ofNonZeroValue([]).hasValue()")), "false");
}

TEST(CelEvalText, Attributes) {
  EXPECT_EQ(show(unchecked("mylistundef[0]")), "error: no such attribute(s): mylistundef");
  Vars abc{{{"a.b", Value::map({{Value("c"), Value(std::int64_t{10})}})}}};
  EXPECT_EQ(show(unchecked("a.b.c", abc)), "10");
  EXPECT_EQ(show(unchecked("has(dyn(1).invalid)")), "false");
  EXPECT_EQ(show(unchecked("dyn(1).invalid")), "error: no such key: invalid");
  EXPECT_EQ(show(unchecked("has(dyn([]).invalid)")), "error: unsupported index type 'string' in list");
  Vars declared{{{"x", Value()}}};
  MapActivation none;
  auto env = env_with(declared);
  CheckResult result = compile(*env, "x + 1");
  ASSERT_TRUE(result.ast);
  Program program = Program::plan(env, std::make_shared<const CheckedAst>(std::move(*result.ast)));
  EXPECT_EQ(show(program.eval(none)), "error: no such attribute(s): x");
}

TEST(CelEvalText, KubeStyleRulesOverJson) {
  Vars self{{{"self", json(R"({"replicas": 3, "minReplicas": 1, "maxReplicas": 5,
                                "containers": [{"name": "a", "image": "nginx:1.2"}, {"name": "b", "image": "x"}],
                                "labels": {"app": "web"}})")}}};
  EXPECT_EQ(show(checked("self.minReplicas <= self.replicas && self.replicas <= self.maxReplicas", self)), "true");
  EXPECT_EQ(show(checked("self.containers.all(c, c.image.contains(':'))", self)), "false");
  EXPECT_EQ(show(checked("self.containers.exists(c, c.name == 'b')", self)), "true");
  EXPECT_EQ(show(checked("self.containers.map(c, c.name)", self)), "[\"a\", \"b\"]");
  EXPECT_EQ(show(checked("'app' in self.labels && self.labels.app == 'web'", self)), "true");
  EXPECT_EQ(show(checked("has(self.labels.tier) || self.?labels.tier.orValue('none') == 'none'", self)), "true");
  EXPECT_EQ(show(checked("self.missing == 1", self)), "error: no such key: missing");
  EXPECT_EQ(show(checked("self.replicas + 1.5", self)), "error: no such overload");
}

TEST(CelEvalText, RuntimeCostWithKubeOptions) {
  Vars self{{{"self", json(R"({"items": ["a", "b", "c"], "name": "abc"})")}}};
  // has() is free in kube; the identifier is not charged, the field qualifier is.
  EXPECT_EQ(checked("has(self.name)", self).cost, 1u);
  // A constant list is folded and `in` becomes a set look-up: only the identifier and the select are charged.
  EXPECT_EQ(checked("self.name in ['abc', 'def']", self).cost, 2u);
  // self (1) + .items (1) + per element: c (1) + call_cost of == and @not_strictly_false ...
  EvalResult all = checked("self.items.all(c, c != '')", self);
  EXPECT_EQ(show(all), "true");
  EXPECT_GT(all.cost, 2u);
  EvalResult limited = checked("self.items.all(c, c != '')", self, EvalOptions{3});
  EXPECT_EQ(show(limited), "error: operation cancelled: actual cost limit exceeded");
}

}  // namespace
}  // namespace kapi::cel

namespace kapi::cel {
namespace {

TEST(CelEvalText, ProgramsEvaluateConcurrently) {
  auto env = std::make_shared<const Env>([] {
    Env e = standard_env();
    e.add_variable("names", Type::list(Type::string_type()));
    return e;
  }());
  CheckResult result = compile(*env, "names.filter(n, n.matches('^a.*')).map(n, n + '!')");
  ASSERT_TRUE(result.ast) << result.message;
  const Program program = Program::plan(env, std::make_shared<const CheckedAst>(std::move(*result.ast)));
  std::vector<std::string> outputs(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      MapActivation vars;
      vars.set("names", Value::list({Value("ab"), Value("b"), Value("ac" + std::to_string(t))}));
      std::string last;
      for (int i = 0; i < 200; ++i) last = debug_string(program.eval(vars).value);
      outputs[static_cast<std::size_t>(t)] = last;
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < 4; ++t) {
    EXPECT_EQ(outputs[static_cast<std::size_t>(t)], "[\"ab!\", \"ac" + std::to_string(t) + "!\"]");
  }
}

}  // namespace
}  // namespace kapi::cel

namespace kapi::cel {
namespace {

TEST(CelEvalText, PlanOptionsSelectCelGoDefaults) {
  auto env = std::make_shared<const Env>([] {
    Env e = standard_env();
    e.add_variable("m", Type::map(Type::string_type(), Type::int_type()));
    return e;
  }());
  MapActivation vars;
  vars.set("m", Value::map({{Value("a"), Value(std::int64_t{1})}}));
  auto cost_of = [&](std::string_view text, PlanOptions options) {
    CheckResult result = compile(*env, text);
    EXPECT_TRUE(result.ast) << result.message;
    if (!result.ast) return std::uint64_t{0};
    return Program::plan(env, std::make_shared<const CheckedAst>(std::move(*result.ast)), options).eval(vars).cost;
  };
  const PlanOptions kube{}, cel_go{false, true};
  EXPECT_EQ(cost_of("[1, 2, 3].size()", kube), 1u);
  EXPECT_EQ(cost_of("[1, 2, 3].size()", cel_go), 11u);
  EXPECT_EQ(cost_of("has(m.a)", kube), 1u);
  EXPECT_EQ(cost_of("has(m.a)", cel_go), 2u);
  EXPECT_EQ(cost_of("'a' in ['a', 'b']", kube), 0u);
  EXPECT_EQ(cost_of("'a' in ['a', 'b']", cel_go), 12u);
  EXPECT_EQ(cost_of("duration('1s') > duration('0s')", kube), 1u);
  EXPECT_EQ(cost_of("duration('1s') > duration('0s')", cel_go), 3u);
}

}  // namespace
}  // namespace kapi::cel
