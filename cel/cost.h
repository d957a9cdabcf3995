#pragma once
// CEL cost: the static estimate the checker's cost estimator computes (cel-go's checker.Cost with kube's
// library.CostEstimator), and what one call costs at run time (cel-go's interpreter runtimecost.go with kube's
// CallCost). kube refuses CRD rules and policies whose estimate exceeds its limits, and stops evaluation at its
// per-call and per-request cost limits.
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string_view>

#include "cel/ast.h"
#include "cel/env.h"
#include "cel/value.h"

namespace kapi::cel {

struct CostEstimate {
  std::uint64_t min = 0;
  std::uint64_t max = 0;  // saturating: UINT64_MAX means unbounded
};

// Sizes the estimator cannot know from types alone (kube: the size of `self` from the schema's limits). Returning
// nullopt lets the estimator fall back to the node type's max_elements, then to unbounded.
using SizeEstimator = std::function<std::optional<std::uint64_t>(const CheckedAst& ast, std::int64_t expr_id)>;

CostEstimate estimate_cost(const CheckedAst& ast, const Env& env, const SizeEstimator& sizes = {});

// The run-time cost of one call once its result is known; 1 for most functions, size-based for string and list
// work and for kube's libraries.
std::uint64_t call_cost(std::string_view function, std::string_view overload_id, std::span<const Value> args,
                        const Value& result);

}  // namespace kapi::cel
