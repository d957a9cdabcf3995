#pragma once
// The tree-walking evaluator over planned Nodes (cel-go's interpreter/interpretable.go semantics), counting
// run-time cost as cel-go's CostObserver does (runtimecost.go): identifiers and selections 1, constants 0, list
// literals 10, map literals 30, calls what call_cost() says, &&, ||, ?: and comprehensions nothing of their own.
// One Evaluator serves one eval() call; the planned Nodes are shared and never written.
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "cel/interpreter/plan.h"
#include "cel/program.h"

namespace kapi::cel::interp {

// Thrown through the evaluation once the running cost passes the limit (cel-go panics with EvalCancelledError).
struct CostLimitExceeded {};

// A comprehension's variables, chained to the enclosing scope.
struct Scope {
  Scope* parent = nullptr;
  const Node* fold = nullptr;
  const Value* iter_value = nullptr;
  const Value* iter_value2 = nullptr;  // two-variable comprehensions: the element or the map value
  bool computing_result = false;  // the result expression no longer sees the iteration variable
  std::optional<Value> accu;      // initialised on first read, as cel-go's folder does
};

class Evaluator {
 public:
  Evaluator(const Env& env, const Activation& activation, std::optional<std::uint64_t> cost_limit,
            bool presence_test_has_cost)
      : env_(env), activation_(activation), cost_limit_(cost_limit), presence_test_has_cost_(presence_test_has_cost) {}

  Value eval(const Node& node, Scope* scope);
  std::uint64_t cost() const { return cost_; }

 private:
  void charge(std::uint64_t units);

  // A variable's value from comprehension scopes, then the activation; null when unset.
  const Value* lookup(std::string_view name, Scope* scope);

  Value eval_attribute(const Node& node, Scope* scope, bool charge_root);
  Value eval_root(const Node& root, Scope* scope, bool charge_root, std::vector<std::string_view>& extra_fields);
  Value eval_has(const Node& node, Scope* scope);
  Value eval_call(const Node& node, Scope* scope);
  Value eval_and_or(const Node& node, Scope* scope, bool is_and);
  Value eval_conditional(const Node& node, Scope* scope, bool charge_branch_roots);
  Value eval_equality(const Node& node, Scope* scope, bool negate);
  Value eval_list(const Node& node, Scope* scope);
  Value eval_map(const Node& node, Scope* scope);
  Value eval_fold(const Node& node, Scope* scope);
  Value append_in_place(const Value& accumulated, const List& tail);

  const Env& env_;
  const Activation& activation_;
  std::optional<std::uint64_t> cost_limit_;
  bool presence_test_has_cost_;
  std::uint64_t cost_ = 0;
  // Identifies list accumulators this evaluation may grow in place (see AccumulatorList in evaluator.cc).
  std::shared_ptr<const int> accumulator_owner_;
};

// Qualifies obj by key as cel-go's attribute qualifiers do: map lookup (numeric keys compare by value), list
// indexing (int, uint or whole double), anything else "no such key". With presence_only, a missing key or index
// sets *present = false instead of failing.
Value qualify(const Value& obj, const Value& key, bool presence_test, bool* present);

// Whether a run-time value may be passed where the type is declared (cel-go's IsAssignableRuntimeType).
bool runtime_type_matches(const Type& type, const Value& value);

}  // namespace kapi::cel::interp
