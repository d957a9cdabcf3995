// cel-go v0.22's checker_test.go cases that state the whole checked tree: every node's type and every
// identifier's and call's reference, printed as cel-go's checker.Print does (the debug form adorned with
// "~type" and "^reference" or "^overload|overload", overloads sorted), checked against the real standard library.
// Whitespace is ignored in the comparison, as cel-go's test.Compare ignores it.
#include <gtest/gtest.h>

#include <algorithm>

#include "cel/checker/unify.h"
#include "cel/compile.h"
#include "cel/parser/debug.h"

namespace kapi::cel::checker_printed_test {
namespace {

struct PrintedCase {
  const char* expr;
  const char* printed;
  const char* env;
};

const PrintedCase kCases[] = {
#include "tests/unit/cel/checker/checker_printed_cases.inc"
};

void declare(Env& env, std::string_view key) {
  const Type s = Type::string_type(), i = Type::int_type(), u = Type::uint_type(), b = Type::bool_type();
  const Type T = Type::type_param("T");
  auto fn = [&](std::string name, std::string id, std::vector<Type> params, Type result, bool member = false) {
    env.add_function({std::move(name), {{.id = std::move(id), .params = std::move(params), .result = std::move(result),
                                         .member = member}}});
  };
  if (key == "default") {
    for (auto [name, type] : {std::pair{"is", s}, std::pair{"ii", i}, std::pair{"iu", u}, std::pair{"iz", b},
                              std::pair{"ib", Type::bytes_type()}, std::pair{"id", Type::double_type()},
                              std::pair{"ix", Type::null_type()}}) {
      env.add_variable(name, type);
    }
    fn("fg_s", "fg_s_0", {}, s);
    fn("fi_s_s", "fi_s_s_0", {s}, s, true);
  } else if (key == "x_list_int") {
    env.add_variable("x", Type::list(i));
  } else if (key == "x_bool") {
    env.add_variable("x", b);
  } else if (key == "lists_dyn") {
    env.add_variable("lists", Type::dyn());
  } else if (key == "myfun") {
    env.add_function({"myfun",
                      {{.id = "myfun_instance", .params = {i, b, u}, .result = i, .member = true},
                       {.id = "myfun_static", .params = {i, b, u}, .result = i}}});
  } else if (key == "args") {
    env.add_variable("args", Type::map(s, Type::dyn()));
  } else if (key == "a_T") {
    env.add_variable("a", T);
  } else if (key == "base64") {
    fn("base64.encode", "base64_encode_string", {s}, s);
  } else if (key == "set" || key == "set_x") {
    fn("set", "set_list", {Type::list(T)}, Type::opaque("set", {T}));
    if (key == "set_x") env.add_variable("x", Type::opaque("set", {T}));
  } else if (key == "values") {
    env.add_variable("values", Type::list(Type::map(s, s)));
  } else if (key == "a_map_ss") {
    env.add_variable("a", Type::map(s, s));
  } else if (key == "a_opt_map_ss") {
    env.add_variable("a", Type::optional(Type::map(s, s)));
  } else if (key == "a_opt_dyn") {
    env.add_variable("a", Type::optional(Type::dyn()));
  } else if (key == "a_opt_map_sdyn") {
    env.add_variable("a", Type::optional(Type::map(s, Type::dyn())));
  } else if (key == "ab_opt_string") {
    env.add_variable("a", Type::optional(s));
    env.add_variable("b", Type::optional(s));
  }
}

std::string print_checked(const CheckedAst& ast) {
  parser::DebugAdorner adorner;
  adorner.expr = [&ast](const Expr& e) {
    std::string out;
    if (auto it = ast.types.find(e.id); it != ast.types.end()) out += "~" + checker::format_type(it->second);
    bool referable = std::holds_alternative<IdentExpr>(e.kind) || std::holds_alternative<CallExpr>(e.kind) ||
                     std::holds_alternative<ListExpr>(e.kind) || std::holds_alternative<StructExpr>(e.kind) ||
                     std::holds_alternative<SelectExpr>(e.kind);
    auto ref = ast.references.find(e.id);
    if (!referable || ref == ast.references.end()) return out;
    if (ref->second.overload_ids.empty()) return out + "^" + ref->second.name;
    std::vector<std::string> ids = ref->second.overload_ids;
    std::sort(ids.begin(), ids.end());
    for (std::size_t n = 0; n < ids.size(); ++n) out += (n == 0 ? "^" : "|") + ids[n];
    return out;
  };
  adorner.entry = [](std::int64_t) { return std::string(); };
  return parser::adorned_debug_string(ast.root, adorner);
}

std::string without_whitespace(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') out += c;
  }
  return out;
}

// The standard library as cel-go's checker tests declare it: without the optional library's overloads of `_[_]`
// (indexing an optional list or map), which would otherwise match dyn operands too.
Env checker_test_env() {
  Env standard = standard_env();
  Env env;
  env.parser_options = standard.parser_options;
  env.checker_options = standard.checker_options;
  for (const auto& [name, function] : standard.functions()) {
    Function copy{name, {}};
    for (const Overload& overload : function.overloads) {
      bool optional_index = name == "_[_]" && overload.id.starts_with("optional_");
      if (!optional_index) copy.overloads.push_back(overload);
    }
    env.add_function(std::move(copy));
  }
  return env;
}

TEST(CelCheckerPrinted, CheckedTreesPrintAsCelGoPrintsThem) {
  for (const PrintedCase& c : kCases) {
    Env env = checker_test_env();
    env.checker_options.homogeneous_aggregate_literals = false;  // cel-go's checker tests run without validators
    declare(env, c.env);
    CheckResult result = compile(env, c.expr);
    if (!result.ast) {
      ADD_FAILURE() << c.expr << ": " << result.message;
      continue;
    }
    std::string printed = print_checked(*result.ast);
    EXPECT_EQ(without_whitespace(printed), without_whitespace(c.printed)) << c.expr << "\n" << printed;
  }
}

}  // namespace
}  // namespace kapi::cel::checker_printed_test
