#pragma once
// An environment: the variables, functions, macros and limits expressions are compiled against (cel-go's
// cel.Env). kube builds one base environment per compatibility version and extends it per use (CRD rules get
// `self` and `oldSelf`, policies get `object`, `oldObject`, `request`, `params`, `namespaceObject`, ...).
//
// Contract: build an Env, then share it read-only (std::shared_ptr<const Env>) among compiles and programs.
// Adding a function whose name is already declared merges the overloads; an overload id declared twice with a
// different signature is a programming error (std::logic_error), as cel-go refuses it.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "cel/function.h"
#include "cel/types.h"

namespace kapi::cel {

struct CheckedAst;
struct Issues;

struct ParserOptions {
  // cel-go's defaults as kube sets them (parser.MaxRecursionDepth, ExpressionSizeCodePointLimit).
  int max_recursion_depth = 250;
  std::int64_t expression_size_code_point_limit = 100'000;
  bool enable_optional_syntax = true;  // `a.?b`, `a[?b]`, `[?x]`, `{?k: v}` (cel.OptionalTypes)
  // Macros the parser expands: the standard ones always; library macros (optMap, optFlatMap, cel.bind) when named.
  std::vector<std::string> extra_macros;
};

// How check() behaves beyond the declarations, as kube configures cel-go (environment/base.go).
struct CheckerOptions {
  // cel.CrossTypeNumericComparisons: `1 < 2.0` type-checks (kube enables it from 1.28). When off, the checker
  // skips the cross-type ordering overloads (less_int64_double ...), as cel-go does.
  bool cross_type_numeric_comparisons = true;
  // cel.HomogeneousAggregateLiterals: after checking, list and map literals whose elements (keys, values) differ
  // in type are refused, except inside calls of the exempt functions (ext strings' format exempts itself).
  bool homogeneous_aggregate_literals = true;
  std::vector<std::string> homogeneous_exempt_functions = {"format"};
  // cel.ValidateDurationLiterals, ValidateTimestampLiterals, ValidateRegexLiterals (kube from 1.29): a literal
  // argument of duration(), timestamp() or matches() that would fail at run time fails the check instead.
  bool validate_literals = true;
  // Libraries' own checks of a checked tree (cel-go's ASTValidators, e.g. ext strings' format-string check), run
  // in order after the ones above; each adds an issue (expr_id, message) for what it refuses, failing the check.
  std::vector<std::function<void(const CheckedAst&, Issues&)>> validators;
};

class Env {
 public:
  Env() = default;

  void add_library(const Library& library);
  void add_function(Function function);
  void add_variable(std::string name, Type type);
  void add_type(Type type);  // a named type usable as an identifier (e.g. `net.IP` in type(x) == net.IP)

  const Function* find_function(std::string_view name) const;
  const Type* find_variable(std::string_view name) const;
  const Type* find_type(std::string_view name) const;
  const std::map<std::string, Function, std::less<>>& functions() const { return functions_; }

  ParserOptions parser_options;
  CheckerOptions checker_options;

 private:
  std::map<std::string, Function, std::less<>> functions_;
  std::map<std::string, Type, std::less<>> variables_;
  std::map<std::string, Type, std::less<>> types_;
};

// The standard environment cel-go's cel.NewEnv() starts from (stdlib declarations and implementations), with
// optional types on as kube enables them. kube's libraries are added by cel/ext (see cel/ext/kube_env.h).
Env standard_env();

}  // namespace kapi::cel
