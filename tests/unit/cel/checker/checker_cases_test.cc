// Ports of cel-go v0.22's checker/checker_test.go cases: expressions parsed from text, checked against cel-go's
// standard declarations (mini_std_env.h) plus each case's own; expected result types and errors as cel-go states
// them (errors as "line:column: message"). cel-go's proto test messages are replaced by object types declared here
// with the fields the cases use.
#include <gtest/gtest.h>

#include <functional>
#include <memory>

#include "cel/compile.h"
#include "tests/unit/cel/checker/mini_std_env.h"

namespace kapi::cel {
namespace {

struct Case {
  std::string expr;
  std::string type;   // expected result type, when the check succeeds
  std::string error;  // expected issues, "line:column: message" joined by newlines
  std::function<void(Env&)> declare = nullptr;
};

Type test_all_types() {
  auto nested = std::make_shared<ObjectType>();
  nested->name = "TestAllTypes.NestedMessage";
  nested->fields.emplace("bb", Type::int_type());
  auto object = std::make_shared<ObjectType>();
  object->name = "TestAllTypes";
  object->fields.emplace("single_int32", Type::int_type());
  object->fields.emplace("single_int64", Type::int_type());
  object->fields.emplace("repeated_int32", Type::list(Type::int_type()));
  object->fields.emplace("repeated_int64", Type::list(Type::int_type()));
  object->fields.emplace("map_string_string", Type::map(Type::string_type(), Type::string_type()));
  object->fields.emplace("single_nested_message", Type::object(nested));
  object->fields.emplace("single_timestamp", Type::timestamp());
  object->fields.emplace("single_duration", Type::duration());
  return Type::object(object);
}

void default_idents(Env& env) {
  env.add_variable("is", Type::string_type());
  env.add_variable("ii", Type::int_type());
  env.add_variable("iu", Type::uint_type());
  env.add_variable("iz", Type::bool_type());
  env.add_variable("ib", Type::bytes_type());
  env.add_variable("id", Type::double_type());
  env.add_variable("ix", Type::null_type());
  env.add_function({"fg_s", {{.id = "fg_s_0", .params = {}, .result = Type::string_type()}}});
  env.add_function(
      {"fi_s_s", {{.id = "fi_s_s_0", .params = {Type::string_type()}, .result = Type::string_type(), .member = true}}});
}

auto var(std::string name, Type type) {
  return [name = std::move(name), type = std::move(type)](Env& env) { env.add_variable(name, type); };
}

std::string describe_issues(const Issues& issues, const SourceInfo& info) {
  std::string out;
  for (const Issue& issue : issues.errors) {
    auto location = info.location_of(issue.expr_id).value_or(SourceInfo::Location{});
    if (!out.empty()) out += '\n';
    out += std::to_string(location.line) + ":" + std::to_string(location.column + 1) + ": " + issue.message;
  }
  return out;
}

void run(const Case& c, bool homogeneous = false, bool cross_type = true) {
  Env env = testing::mini_std_env();
  env.checker_options.homogeneous_aggregate_literals = homogeneous;
  env.checker_options.cross_type_numeric_comparisons = cross_type;
  if (c.declare) c.declare(env);
  ParseResult parsed = parse(c.expr, env.parser_options);
  ASSERT_TRUE(parsed.ast) << c.expr << ": " << parsed.issues.to_display_string(c.expr, SourceInfo{});
  SourceInfo info;  // positions only: macro calls hold expressions, which do not copy implicitly
  info.line_offsets = parsed.ast->source_info.line_offsets;
  info.positions = parsed.ast->source_info.positions;
  CheckResult result = check(env, std::move(*parsed.ast));
  if (!c.error.empty()) {
    EXPECT_FALSE(result.ast) << c.expr;
    EXPECT_EQ(describe_issues(result.issues, info), c.error) << c.expr;
    return;
  }
  ASSERT_TRUE(result.ast) << c.expr << ": " << describe_issues(result.issues, info);
  EXPECT_EQ(result.ast->result_type().to_string(), c.type) << c.expr;
}

TEST(CelCheckerCases, Constants) {
  for (const Case& c : std::vector<Case>{{"\"A\"", "string"},
                                         {"12", "int"},
                                         {"12u", "uint"},
                                         {"true", "bool"},
                                         {"false", "bool"},
                                         {"12.23", "double"},
                                         {"null", "null_type"},
                                         {"b\"ABC\"", "bytes"}}) {
    run(c);
  }
}

TEST(CelCheckerCases, Identifiers) {
  for (const Case& c : std::vector<Case>{{"is", "string", "", default_idents},
                                         {"ii", "int", "", default_idents},
                                         {"iu", "uint", "", default_idents},
                                         {"iz", "bool", "", default_idents},
                                         {"id", "double", "", default_idents},
                                         {"ix", "null_type", "", default_idents},
                                         {"ib", "bytes", "", default_idents},
                                         {"foo", "", "1:1: undeclared reference to 'foo' (in container '')"},
                                         {"undef", "", "1:1: undeclared reference to 'undef' (in container '')"},
                                         {"1 + x", "", "1:5: undeclared reference to 'x' (in container '')"},
                                         {".ii", "int", "", default_idents}}) {
    run(c);
  }
}

TEST(CelCheckerCases, CallsAndOperators) {
  for (const Case& c : std::vector<Case>{
           {"fg_s()", "string", "", default_idents},
           {"is.fi_s_s()", "string", "", default_idents},
           {"1 + 2", "int", "", default_idents},
           {"1 + ii", "int", "", default_idents},
           {"int(1u) + int(uint(\"1\"))", "int"},
           {"false && !true || false ? 2 : 3", "int"},
           {"b\"abc\" + b\"def\"", "bytes"},
           {"1.0 + 2.0 * 3.0 - 1.0 / 2.20202 != 66.6", "bool"},
           {"null == null && null != null", "bool"},
           {"1 == 1 && 2 != 1", "bool"},
           {"1 + 2 * 3 - 1 / 2 == 6 % 1", "bool"},
           {"\"abc\" + \"def\"", "string"},
           {"1u + 2u * 3u - 1u / 2u == 6u % 1u", "bool"},
           {"size(x) == x.size()", "bool", "", var("x", Type::list(Type::int_type()))},
           {"1 in [1, 2, 3]", "bool"},
           {"1 in dyn([1, 2, 3])", "bool"},
           {"type(null) == null_type", "bool"},
           {"type(type) == type", "bool"},
           {"list == type([1]) && map == type({1:2u})", "bool"},
           {"fun()", "", "1:4: undeclared reference to 'fun' (in container '')"},
           {"undef()", "", "1:6: undeclared reference to 'undef' (in container '')"},
           {"'string'.fun()", "", "1:13: undeclared reference to 'fun' (in container '')"},
           {"x.single_int64 != null", "", "1:16: found no matching overload for '_!=_' applied to '(int, null)'",
            var("x", test_all_types())},
           {"x.single_nested_message != null", "bool", "", var("x", test_all_types())},
           {"x.single_timestamp != null && x.single_duration != null", "bool", "", var("x", test_all_types())},
       }) {
    run(c);
  }
}

TEST(CelCheckerCases, CrossTypeNumericComparisonsFollowTheOption) {
  const std::string expr = "1 <= 1.0 && 1u <= 1.0 && 1.0 <= 1 && 1.0 <= 1u && 1 <= 1u && 1u <= 1";
  run({expr, "bool"}, false, true);
  run({expr, "",
       "1:3: found no matching overload for '_<=_' applied to '(int, double)'\n"
       "1:16: found no matching overload for '_<=_' applied to '(uint, double)'\n"
       "1:30: found no matching overload for '_<=_' applied to '(double, int)'\n"
       "1:42: found no matching overload for '_<=_' applied to '(double, uint)'\n"
       "1:53: found no matching overload for '_<=_' applied to '(int, uint)'\n"
       "1:65: found no matching overload for '_<=_' applied to '(uint, int)'"},
      false, false);
  // cel-go's filter falls away with the first comprehension's scope.
  run({"[1].all(x, x < 1.5)", "bool"}, false, false);
  for (const char* e : {"1 < 1.0 && 1u < 1.0 && 1.0 < 1 && 1.0 < 1u && 1 < 1u && 1u < 1",
                        "1 > 1.0 && 1u > 1.0 && 1.0 > 1 && 1.0 > 1u && 1 > 1u && 1u > 1",
                        "1 >= 1.0 && 1u >= 1.0 && 1.0 >= 1 && 1.0 >= 1u && 1 >= 1u && 1u >= 1"}) {
    run({e, "bool"});
  }
}

TEST(CelCheckerCases, ListsAndMaps) {
  Type object = test_all_types();
  for (const Case& c : std::vector<Case>{
           {"[]", "list(dyn)"},
           {"[1]", "list(int)"},
           {"[1, \"A\"]", "list(dyn)"},
           {"[1] + [2]", "list(int)"},
           {"[] + [1,2,3,] + [4]", "list(int)"},
           {"[1, 2u] + []", "list(dyn)"},
           {"{1:2u, 2:3u}", "map(int, uint)"},
           {"{\"a\":1, \"b\":2}.a", "int"},
           {"{1:2u, 2u:3}", "map(dyn, dyn)"},
           {"{}", "map(dyn, dyn)"},
           {"size([] + [1])", "int"},
           {"([[[1]], [[2]], [[3]]][0][0] + [2, 3, {'four': {'five': 'six'}}])[3]", "dyn"},
           {"[1] + [dyn('string')]", "list(dyn)"},
           {"[dyn('string')] + [1]", "list(dyn)"},
           {"x + y", "", "1:3: found no matching overload for '_+_' applied to '(list(TestAllTypes), list(int))'",
            [object](Env& env) {
              env.add_variable("x", Type::list(object));
              env.add_variable("y", Type::list(Type::int_type()));
            }},
           {"x[1u]", "", "1:2: found no matching overload for '_[_]' applied to '(list(TestAllTypes), uint)'",
            var("x", Type::list(object))},
           {"(x + x)[1].single_int32 == size(x)", "bool", "", var("x", Type::list(object))},
           {"x.repeated_int64[x.single_int32] == 23", "bool", "", var("x", object)},
           {"size(x.map_string_string) == 0", "bool", "", var("x", object)},
           {"x[2].single_int32 == 23", "",
            "1:2: found no matching overload for '_[_]' applied to '(map(string, TestAllTypes), int)'",
            var("x", Type::map(Type::string_type(), object))},
           {"x[\"a\"].single_int32 == 23", "bool", "", var("x", Type::map(Type::string_type(), object))},
           {"[].length", "", "1:3: type 'list(_var0)' does not support field selection"},
       }) {
    run(c);
  }
}

TEST(CelCheckerCases, HomogeneousLiteralsAsKubeConfiguresThem) {
  run({"[1, \"A\"]", "", "1:5: expected type 'int' but found 'string'"}, true);
  run({"{1: 2u, 2u: 3}", "", "1:9: expected type 'int' but found 'uint'\n1:13: expected type 'uint' but found 'int'"},
      true);
  run({"[1, dyn(2)]", "", "1:8: expected type 'int' but found 'dyn'"}, true);
  run({"[[1], []]", "list(list(int))"}, true);
  // Lists given to format() are exempt, as ext strings' format asks of the validator.
  auto format = [](Env& env) {
    env.add_function({"format",
                      {{.id = "string_format",
                        .params = {Type::string_type(), Type::list(Type::dyn())},
                        .result = Type::string_type(),
                        .member = true}}});
  };
  run({"\"%s %d\".format([\"a\", 1])", "string", "", format}, true);
  run({"\"%s\".format([[\"a\", 1]])", "string", "", format}, true);
  run({"[\"%s\".format([\"a\", 1]), 2]", "", "1:25: expected type 'string' but found 'int'", format}, true);
  run({"[1, 2].all(x, x > 0)", "bool"}, true);
}

TEST(CelCheckerCases, ObjectsAndDynamicValues) {
  Type object = test_all_types();
  for (const Case& c : std::vector<Case>{
           {"x[\"claims\"][\"groups\"][0].name == \"dummy\" && x.claims[\"exp\"] == y[1].time && "
            "x.claims.structured == {'key': z} && z == 1.0",
            "bool", "",
            [](Env& env) {
              env.add_variable("x", Type::map(Type::string_type(), Type::dyn()));
              env.add_variable("y", Type::list(Type::dyn()));
              env.add_variable("z", Type::dyn());
            }},
           {"x.single_nested_message.bb == 43 && has(x.single_nested_message)", "bool", "", var("x", object)},
           {"x.single_nested_message.undefined == x.undefined && has(x.single_int32) && has(x.repeated_int32)", "",
            "1:24: undefined field 'undefined'\n1:39: undefined field 'undefined'", var("x", object)},
           {"has(x.nope)", "", "1:4: undefined field 'nope'", var("x", object)},
           {"a.b + 1 == a[0]", "bool", "", var("a", Type::type_param("T"))},
           {"args.user[\"myextension\"].customAttributes.filter(x, x.name == \"hobbies\")", "list(dyn)", "",
            var("args", Type::map(Type::string_type(), Type::dyn()))},
           {"is.length", "", "1:3: type 'string' does not support field selection", default_idents},
       }) {
    run(c);
  }
}

TEST(CelCheckerCases, Comprehensions) {
  Type object = test_all_types();
  for (const Case& c : std::vector<Case>{
           {"x.all(y, y == true)", "",
            "1:1: expression of type 'bool' cannot be range of a comprehension (must be list, map, or dynamic)",
            var("x", Type::bool_type())},
           {"x.repeated_int64.map(x, double(x))", "list(double)", "", var("x", object)},
           {"x.repeated_int64.map(x, x > 0, double(x))", "list(double)", "", var("x", object)},
           {"x.repeated_int64.exists(y, y > 10) && y < 5", "", "1:39: undeclared reference to 'y' (in container '')",
            var("x", object)},
           {"x.repeated_int64.all(e, e > 0) && x.repeated_int64.exists(e, e < 0) && "
            "x.repeated_int64.exists_one(e, e == 0)",
            "bool", "", var("x", object)},
           {"x.all(e, 0)", "",
            "1:1: expression of type 'TestAllTypes' cannot be range of a comprehension (must be list, map, or "
            "dynamic)\n1:10: expected type 'bool' but found 'int'",
            var("x", object)},
           {"lists.filter(x, x > 1.5)", "list(dyn)", "", var("lists", Type::dyn())},
           {"[].map(x, [].map(y, x in y && y in x))", "",
            "1:33: found no matching overload for '@in' applied to '(list(dyn), dyn)'"},
           {"[1].map(x, [x, x]).map(x, [x, x])", "list(list(list(int)))"},
           {"values.filter(i, i.content != \"\").map(i, i.content)", "list(string)", "",
            var("values", Type::list(Type::map(Type::string_type(), Type::string_type())))},
           {"[{}.map(c,c,c)]+[{}.map(c,c,c)]", "list(list(bool))"},
           {"{}.map(c,[c,type(c)])", "list(list(dyn))"},
           {"[1, 2].exists(is, is > 1)", "bool", "", default_idents},
       }) {
    run(c);
  }
}

TEST(CelCheckerCases, FunctionsOfTheirOwn) {
  auto myfun = [](Env& env) {
    std::vector<Type> params{Type::int_type(), Type::bool_type(), Type::uint_type()};
    env.add_function({"myfun",
                      {{.id = "myfun_instance", .params = params, .result = Type::int_type(), .member = true},
                       {.id = "myfun_static", .params = params, .result = Type::int_type()}}});
  };
  auto set = [](Env& env) {
    env.add_function({"set",
                      {{.id = "set_list",
                        .params = {Type::list(Type::type_param("T"))},
                        .result = Type::opaque("set", {Type::type_param("T")})}}});
  };
  for (const Case& c : std::vector<Case>{
           {"myfun(1, true, 3u) + 1.myfun(false, 3u).myfun(true, 42u)", "int", "", myfun},
           {"set([1, 2, 3])", "set(int)", "", set},
           {"set([1, 2]) == set([2, 1])", "bool", "", set},
           {"set([1, 2]) == x", "bool", "",
            [set](Env& env) {
              set(env);
              env.add_variable("x", Type::opaque("set", {Type::type_param("T")}));
            }},
           {"base64.encode('hello')", "string", "",
            [](Env& env) {
              env.add_function({"base64.encode",
                                {{.id = "base64_encode_string",
                                  .params = {Type::string_type()},
                                  .result = Type::string_type()}}});
            }},
           {"size(x) > 4", "bool", "",
            [](Env& env) {
              Type object = test_all_types();
              env.add_variable("x", object);
              env.add_function({"size", {{.id = "size_message", .params = {object}, .result = Type::int_type()}}});
            }},
       }) {
    run(c);
  }
}

TEST(CelCheckerCases, MessageLiteralsAreRefusedWithoutMessageTypes) {
  for (const Case& c : std::vector<Case>{
           {"int{}", "", "1:4: 'int' is not a message type"},
           {"Msg{}", "", "1:4: undeclared reference to 'Msg' (in container '')"},
           {"NotAMessage{}", "", "1:12: 'int' is not a type", var("NotAMessage", Type::int_type())},
           {"xs{}", "", "1:3: 'list' is not a type", var("xs", Type::list(Type::int_type()))},
           {"google.protobuf.Timestamp{}", "", "1:26: 'google.protobuf.Timestamp' is not a message type"},
       }) {
    run(c);
  }
}

TEST(CelCheckerCases, OptionalTypes) {
  Type opt_map = Type::optional(Type::map(Type::string_type(), Type::string_type()));
  for (const Case& c : std::vector<Case>{
           {"a.?b", "optional_type(string)", "", var("a", Type::map(Type::string_type(), Type::string_type()))},
           {"type(a.?b) == optional_type", "bool", "",
            var("a", Type::map(Type::string_type(), Type::string_type()))},
           {"a.b", "optional_type(string)", "", var("a", opt_map)},
           {"a.dynamic", "optional_type(dyn)", "", var("a", Type::optional(Type::dyn()))},
           {"has(a.dynamic)", "bool", "", var("a", Type::optional(Type::dyn()))},
           {"has(a.?b.c)", "bool", "", var("a", Type::optional(Type::map(Type::string_type(), Type::dyn())))},
           {"{?'key': {'a': 'b'}.?value}", "map(string, string)"},
           {"{?'key': {'a': 'b'}.?value}.key", "string"},
           {"{?'nested': a.b}", "map(string, string)", "", var("a", opt_map)},
           {"{?'key': 'hi'}", "", "1:10: expected type 'optional_type(string)' but found 'string'"},
           {"[?a, ?b, 'world']", "list(string)", "",
            [](Env& env) {
              env.add_variable("a", Type::optional(Type::string_type()));
              env.add_variable("b", Type::optional(Type::string_type()));
            }},
           {"[?'value']", "", "1:3: expected type 'optional_type(string)' but found 'string'"},
           {"m[?'k']", "optional_type(int)", "", var("m", Type::map(Type::string_type(), Type::int_type()))},
           {"[1][?0].orValue(2)", "int"},
           {"optional.of(1).value()", "int"},
           {"optional.none().orValue('x')", "string"},
           {"[?optional.none(), ?optional.of(1)]", "list(int)"},
       }) {
    run(c);
  }
}

}  // namespace
}  // namespace kapi::cel

namespace kapi::cel {
namespace {

TEST(CelCheckerCases, MessagesDisplayAsCelGoPrintsThem) {
  Env env = testing::mini_std_env();
  CheckResult result = compile(env, "1 + x");
  EXPECT_FALSE(result.ast);
  EXPECT_EQ(result.message,
            "ERROR: <input>:1:5: undeclared reference to 'x' (in container '')\n"
            " | 1 + x\n"
            " | ....^");
  result = compile(env, "x.single_int64 != null");
  EXPECT_EQ(result.message,
            "ERROR: <input>:1:1: undeclared reference to 'x' (in container '')\n"
            " | x.single_int64 != null\n"
            " | ^");
  result = compile(env, "1 + 'a'");
  EXPECT_EQ(result.message,
            "ERROR: <input>:1:3: found no matching overload for '_+_' applied to '(int, string)'\n"
            " | 1 + 'a'\n"
            " | ..^");
}

}  // namespace
}  // namespace kapi::cel
