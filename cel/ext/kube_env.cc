// kube's base environment set (k8s.io/apiserver/pkg/cel/environment/base.go, kube 1.32).
#include "cel/ext/kube_env.h"

#include "cel/ext/libraries.h"
#include "cel/ext/strings_format.h"

namespace kapi::cel::ext {

Env kube_base_env() {
  Env env = standard_env();
  env.parser_options.enable_optional_syntax = true;  // cel.OptionalTypes (1.28)
  env.add_library(urls_library());                   // 1.0
  env.add_library(regex_library());
  env.add_library(lists_library());
  env.add_library(authz_library());             // 1.27
  env.add_library(quantity_library());          // 1.28
  env.add_library(strings_library());           // ext.Strings(ext.StringsVersion(2)), 1.29
  env.add_library(sets_library());              // 1.29
  env.add_library(ip_library());                // 1.30
  env.add_library(cidr_library());
  env.add_library(format_library());            // 1.31
  env.add_library(authz_selectors_library());   // 1.31, AuthorizeWithSelectors
  return env;
}

Env kube_stored_env() {
  Env env = kube_base_env();
  env.add_library(two_var_comprehensions_library());  // 1.32
  return env;
}

CheckResult compile_kube(const Env& env, std::string_view text) {
  CheckResult result = compile(env, text);
  if (!result.ast) return result;
  validate_format_calls(*result.ast, result.issues);
  if (result.issues.empty()) return result;
  result.message = result.issues.to_display_string(result.ast->source, result.ast->source_info);
  result.ast.reset();
  return result;
}

}  // namespace kapi::cel::ext
