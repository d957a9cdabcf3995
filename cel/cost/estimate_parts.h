#pragma once
// The pieces the static estimator shares between its tree walk and its per-function tables: cel-go's saturating
// estimate arithmetic (checker/cost.go), its AstNode view of a node, and the size look-ups cel-go and kube make.
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cel/cost.h"

namespace kapi::cel::cost_internal {

inline constexpr std::uint64_t kUnbounded = std::numeric_limits<std::uint64_t>::max();

inline std::uint64_t add_saturating(std::uint64_t x, std::uint64_t y) {
  return (y > 0 && x > kUnbounded - y) ? kUnbounded : x + y;
}

inline std::uint64_t multiply_saturating(std::uint64_t x, std::uint64_t y) {
  return (y != 0 && x > kUnbounded / y) ? kUnbounded : x * y;
}

// x * factor rounded up, in float64 as cel-go computes it (so large sizes round the way Go's do).
inline std::uint64_t multiply_by_cost_factor(std::uint64_t x, double factor) {
  const double x_float = static_cast<double>(x);
  const double max_float = static_cast<double>(kUnbounded);
  if (x_float > 0 && factor > 0 && x_float > max_float / factor) return kUnbounded;
  const double rounded_up = std::ceil(x_float * factor);
  if (rounded_up >= 0x1p64) return kUnbounded;
  return static_cast<std::uint64_t>(rounded_up);
}

inline CostEstimate add(CostEstimate a, CostEstimate b) {
  return {add_saturating(a.min, b.min), add_saturating(a.max, b.max)};
}
inline SizeEstimate add(SizeEstimate a, SizeEstimate b) {
  return {add_saturating(a.min, b.min), add_saturating(a.max, b.max)};
}
inline CostEstimate multiply(CostEstimate a, CostEstimate b) {
  return {multiply_saturating(a.min, b.min), multiply_saturating(a.max, b.max)};
}
inline SizeEstimate multiply(SizeEstimate a, SizeEstimate b) {
  return {multiply_saturating(a.min, b.min), multiply_saturating(a.max, b.max)};
}
inline CostEstimate multiply_by_cost(SizeEstimate size, CostEstimate cost) {
  return {multiply_saturating(size.min, cost.min), multiply_saturating(size.max, cost.max)};
}
inline CostEstimate multiply_by_cost_factor(SizeEstimate size, double factor) {
  return {multiply_by_cost_factor(size.min, factor), multiply_by_cost_factor(size.max, factor)};
}
inline CostEstimate multiply_by_cost_factor(CostEstimate cost, double factor) {
  return {multiply_by_cost_factor(cost.min, factor), multiply_by_cost_factor(cost.max, factor)};
}
inline CostEstimate as_cost(SizeEstimate size) { return {size.min, size.max}; }
inline SizeEstimate as_size(CostEstimate cost) { return {cost.min, cost.max}; }

template <typename Estimate>
Estimate union_of(Estimate a, Estimate b) {
  if (b.min < a.min) a.min = b.min;
  if (b.max > a.max) a.max = b.max;
  return a;
}

inline constexpr CostEstimate kUnitCost{1, 1};

// A node as cel-go's checker.AstNode: its expression (null for a list's element), type, field path and the size
// the estimate itself derived (results of calls with a known result size, comprehensions).
struct Node {
  const Expr* expr = nullptr;
  const Type* type = nullptr;
  std::vector<std::string> path;
  std::optional<SizeEstimate> derived_size;

  // cel-go's ComputedSize: the derived size, else the exact size of a literal.
  std::optional<SizeEstimate> computed_size() const;
};

// The size look-ups: the configured estimators (cel-go's CostEstimator.EstimateSize, which kube delegates to its
// SizeEstimator) and the two fallbacks cel-go and kube put behind it.
class Sizes {
 public:
  Sizes(const CheckedAst& ast, const CostOptions& options) : ast_(ast), options_(options) {}

  std::optional<SizeEstimate> estimate(const Node& node) const;
  // cel-go's coster.sizeEstimate: computed, estimated, 1 for fixed-size scalars, else unbounded.
  SizeEstimate size_or_scalar(const Node& node) const;
  // kube's CostEstimator.sizeEstimate and cel-go's ext sets estimateSize: computed, estimated, else unbounded.
  SizeEstimate size(const Node& node) const;
  // kube's listElementNode: the element of a list-typed node (null when the type has no parameters).
  std::optional<Node> list_element(const Node& list) const;

 private:
  const CheckedAst& ast_;
  const CostOptions& options_;
};

struct CallEstimate {
  CostEstimate cost;
  std::optional<SizeEstimate> result_size;
};

// The estimate of one overload of one call, arguments included: cel-go's coster.functionCost with ext sets'
// overload estimators and kube's EstimateCallCost ahead of cel-go's own table.
CallEstimate function_cost(const Sizes& sizes, std::string_view function, std::string_view overload_id,
                           const Node* target, std::span<const Node> args, std::span<const CostEstimate> arg_costs);

// kube's EstimateCallCost (library/cost.go) without the arguments' own costs; nullopt when kube has none.
std::optional<CallEstimate> kube_call_estimate(const Sizes& sizes, std::string_view function,
                                               std::string_view overload_id, const Node* target,
                                               std::span<const Node> args);

}  // namespace kapi::cel::cost_internal
