// The checker against kube's environments (cel/ext/kube_env.h): two-variable comprehensions, which only the
// stored-expressions environment of 1.32 has, typed as cel-go's checker types them.
#include <gtest/gtest.h>

#include "cel/compile.h"
#include "cel/ext/kube_env.h"

namespace kapi::cel::kube_env_test {
namespace {

std::string checked(const Env& env, std::string_view expr) {
  CheckResult result = compile(env, expr);
  if (!result.ast) return result.message;
  return result.ast->result_type().to_string();
}

TEST(CelCheckerKubeEnv, TwoVariableComprehensionsBindIndexAndElementOrKeyAndValue) {
  Env env = ext::kube_stored_env();
  env.add_variable("m", Type::map(Type::string_type(), Type::int_type()));
  struct Case {
    const char* expr;
    const char* type;
  };
  for (const Case& c : std::vector<Case>{
           {"m.all(k, v, k == 'a' && v > 0)", "bool"},
           {"[1, 2].exists(i, v, i == 0 && v == 1)", "bool"},
           {"['a'].existsOne(i, v, i == size(v))", "bool"},
           {"['a'].transformList(i, v, i + size(v))", "list(int)"},
           {"[1, 2].transformList(i, v, v > 1, i)", "list(int)"},
           {"m.transformMap(k, v, v * 2)", "map(string, int)"},
           {"m.transformMap(k, v, k != 'a', string(v))", "map(string, string)"},
           {"[1, 2].transformMapEntry(i, v, {string(i): v})", "map(string, int)"},
           {"m.all(k, v, v == 'a')",
            "ERROR: <input>:1:15: found no matching overload for '_==_' applied to '(int, string)'\n"
            " | m.all(k, v, v == 'a')\n"
            " | ..............^"},
           // The one-variable form stays: its variable is the key.
           {"m.all(k, k == 'a')", "bool"},
           {"m.all(k, k)", "ERROR: <input>:1:10: expected type 'bool' but found 'string'\n | m.all(k, k)\n | .........^"},
       }) {
    EXPECT_EQ(checked(env, c.expr), c.type) << c.expr;
  }
  // New expressions (compatibility 1.31) do not have them.
  Env base = ext::kube_base_env();
  base.add_variable("m", Type::map(Type::string_type(), Type::int_type()));
  EXPECT_NE(checked(base, "m.transformMap(k, v, v * 2)"), "map(string, int)");
}

}  // namespace
}  // namespace kapi::cel::kube_env_test
