#pragma once
// Evaluating a checked expression (cel-go's cel.Program and interpreter), with run-time cost tracking.
//
// Contract:
// - plan() does the per-expression work once (resolving overload implementations, constant regexes, ...); a
//   Program is immutable and eval() may run concurrently from several threads.
// - eval() never throws for bad data: errors are CEL error values in the result. Evaluation is bounded by the
//   expression (comprehensions iterate finite ranges) and, when cost_limit is set, stops with
//   ErrorCode::kCostLimitExceeded ("operation cancelled: actual cost limit exceeded") once the running cost passes
//   the limit, as cel-go's cel.CostLimit does.
// - Cost is counted as cel-go's interpreter counts it (runtimecost.go), plus kube's library call costs (cost.h).
// - An unchecked ParsedAst may be planned too (the conformance tests do): calls then dispatch on run-time types.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "cel/ast.h"
#include "cel/env.h"
#include "cel/value.h"

namespace kapi::cel {

// Variables' values for one evaluation. find() returns null for a variable that is not set (an error if the
// expression reads it).
class Activation {
 public:
  virtual ~Activation() = default;
  virtual const Value* find(std::string_view name) const = 0;
};

class MapActivation final : public Activation {
 public:
  void set(std::string name, Value value) { values_.insert_or_assign(std::move(name), std::move(value)); }
  const Value* find(std::string_view name) const override;

 private:
  std::unordered_map<std::string, Value> values_;
};

struct EvalOptions {
  std::optional<std::uint64_t> cost_limit;
};

struct EvalResult {
  Value value;
  std::uint64_t cost = 0;
};

// How a program is planned and what its evaluation charges. The defaults are kube's program options
// (apiserver/pkg/cel/environment/base.go): cel.OptOptimize, which folds constant list and map literals and
// conversions of constants when planning and turns `x in <constant list>` into a set look-up (folded nodes cost
// nothing), and interpreter.PresenceTestHasCost(false). cel-go's defaults, which its own tests and kube's library
// cost tests use, are {false, true}.
struct PlanOptions {
  bool optimize = true;
  bool presence_test_has_cost = false;
};

class Program {
 public:
  static Program plan(std::shared_ptr<const Env> env, std::shared_ptr<const CheckedAst> ast,
                      const PlanOptions& options = {});
  static Program plan_unchecked(std::shared_ptr<const Env> env, std::shared_ptr<const ParsedAst> ast,
                                const PlanOptions& options = {});

  EvalResult eval(const Activation& activation, const EvalOptions& options = {}) const;

  class Impl;  // the interpreter's planned form (cel/interpreter)

 private:
  explicit Program(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
};

}  // namespace kapi::cel
