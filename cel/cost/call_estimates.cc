// Per-call estimates: cel-go v0.22's coster.functionCost (checker/cost.go) for the standard library, after the
// overload estimators cel-go's ext.Sets() installs (ext/sets.go) and kube's EstimateCallCost
// (apiserver/pkg/cel/library/cost.go), in that order, as cel.Env.EstimateCost consults them.
#include <string_view>

#include "cel/cost/estimate_parts.h"

namespace kapi::cel::cost_internal {
namespace {

CostEstimate sum_of(std::span<const CostEstimate> costs) {
  CostEstimate sum;
  for (const CostEstimate& cost : costs) sum = add(sum, cost);
  return sum;
}

// ext.Sets: sets.contains / sets.intersects cost |a|·|b|, sets.equivalent twice that, plus one.
std::optional<CallEstimate> sets_estimate(const Sizes& sizes, std::string_view overload_id,
                                          std::span<const Node> args) {
  double factor = 0;
  if (overload_id == "list_sets_contains_list" || overload_id == "list_sets_intersects_list") {
    factor = 1;
  } else if (overload_id == "list_sets_equivalent_list") {
    factor = 2;
  } else {
    return std::nullopt;
  }
  if (args.size() != 2) return std::nullopt;
  const SizeEstimate product = multiply(sizes.size(args[0]), sizes.size(args[1]));
  return CallEstimate{add(multiply_by_cost_factor(product, factor), kUnitCost), std::nullopt};
}

bool is_size_compared(std::string_view overload_id) {
  static constexpr std::string_view kCompared[] = {
      "less_string",  "greater_string",  "less_equals_string",  "greater_equals_string",
      "less_bytes",   "greater_bytes",   "less_equals_bytes",   "greater_equals_bytes",
      "equals",       "not_equals",
  };
  for (std::string_view id : kCompared) {
    if (id == overload_id) return true;
  }
  return false;
}

std::optional<CallEstimate> standard_estimate(const Sizes& sizes, std::string_view overload_id, const Node* target,
                                              std::span<const Node> args, std::span<const CostEstimate> arg_costs) {
  using cost_units::kRegexStringLengthFactor;
  using cost_units::kStringTraversalFactor;
  const CostEstimate arg_sum = sum_of(arg_costs);
  auto traversal = [&](SizeEstimate size) { return add(multiply_by_cost_factor(size, kStringTraversalFactor), arg_sum); };

  if (overload_id == "string_format") {
    if (target != nullptr) return CallEstimate{traversal(sizes.size_or_scalar(*target)), std::nullopt};
  } else if (overload_id == "string_to_bytes") {
    if (args.size() == 1) {
      const SizeEstimate size = sizes.size_or_scalar(args[0]);
      // Each code point becomes at most 4 bytes (cel-go multiplies without saturating).
      return CallEstimate{traversal(size), SizeEstimate{size.min, size.max * 4}};
    }
  } else if (overload_id == "bytes_to_string") {
    if (args.size() == 1) {
      const SizeEstimate size = sizes.size_or_scalar(args[0]);
      return CallEstimate{traversal(size), SizeEstimate{size.min / 4, size.max}};
    }
  } else if (overload_id == "strings_quote") {
    if (args.size() == 1) {
      const SizeEstimate size = sizes.size_or_scalar(args[0]);
      return CallEstimate{traversal(size), SizeEstimate{size.min + 2, size.max * 2 + 2}};
    }
  } else if (overload_id == "starts_with_string" || overload_id == "ends_with_string") {
    if (args.size() == 1) return CallEstimate{traversal(sizes.size_or_scalar(args[0])), std::nullopt};
  } else if (overload_id == "in_list") {
    if (args.size() == 2) {
      return CallEstimate{add(multiply_by_cost_factor(sizes.size_or_scalar(args[1]), 1), arg_sum), std::nullopt};
    }
  } else if (overload_id == "matches_string") {
    if (target != nullptr && args.size() == 1) {
      // One more than the length, so an empty string against an expensive pattern still costs something.
      const CostEstimate string_cost =
          multiply_by_cost_factor(add(sizes.size_or_scalar(*target), SizeEstimate{1, 1}), kStringTraversalFactor);
      const CostEstimate regex_cost = multiply_by_cost_factor(sizes.size_or_scalar(args[0]), kRegexStringLengthFactor);
      return CallEstimate{add(multiply(string_cost, regex_cost), arg_sum), std::nullopt};
    }
  } else if (overload_id == "contains_string") {
    if (target != nullptr && args.size() == 1) {
      const CostEstimate string_cost = multiply_by_cost_factor(sizes.size_or_scalar(*target), kStringTraversalFactor);
      const CostEstimate substring_cost = multiply_by_cost_factor(sizes.size_or_scalar(args[0]), kStringTraversalFactor);
      return CallEstimate{add(multiply(string_cost, substring_cost), arg_sum), std::nullopt};
    }
  } else if (overload_id == "logical_or" || overload_id == "logical_and") {
    if (arg_costs.size() == 2) {
      // Short-circuiting: at least the left side, at most both.
      const CostEstimate lhs = arg_costs[0];
      const CostEstimate rhs = arg_costs[1];
      return CallEstimate{CostEstimate{lhs.min, add(lhs, rhs).max}, std::nullopt};
    }
  } else if (overload_id == "conditional") {
    if (args.size() == 3) {
      const SizeEstimate size = union_of(sizes.size_or_scalar(args[1]), sizes.size_or_scalar(args[2]));
      return CallEstimate{add(arg_costs[0], union_of(arg_costs[1], arg_costs[2])), size};
    }
  } else if (overload_id == "add_string" || overload_id == "add_bytes" || overload_id == "add_list") {
    if (args.size() == 2) {
      const SizeEstimate result = add(sizes.size_or_scalar(args[0]), sizes.size_or_scalar(args[1]));
      if (overload_id == "add_list") return CallEstimate{add(kUnitCost, arg_sum), result};  // O(1), but sized
      return CallEstimate{traversal(result), result};
    }
  } else if (is_size_compared(overload_id)) {
    if (args.size() == 2) {
      const SizeEstimate lhs = sizes.size_or_scalar(args[0]);
      const SizeEstimate rhs = sizes.size_or_scalar(args[1]);
      const std::uint64_t smallest_max = rhs.max < lhs.max ? rhs.max : lhs.max;
      const SizeEstimate compared{smallest_max > 0 ? 1u : 0u, smallest_max};
      return CallEstimate{traversal(compared), std::nullopt};
    }
  }
  return std::nullopt;
}

}  // namespace

CallEstimate function_cost(const Sizes& sizes, std::string_view function, std::string_view overload_id,
                           const Node* target, std::span<const Node> args, std::span<const CostEstimate> arg_costs) {
  if (auto estimate = sets_estimate(sizes, overload_id, args)) {
    estimate->cost = add(estimate->cost, sum_of(arg_costs));
    return *estimate;
  }
  if (auto estimate = kube_call_estimate(sizes, function, overload_id, target, args)) {
    estimate->cost = add(estimate->cost, sum_of(arg_costs));
    return *estimate;
  }
  if (auto estimate = standard_estimate(sizes, overload_id, target, args, arg_costs)) return *estimate;
  // Everything else is O(1): conversions, size(), arithmetic and comparisons of fixed-width scalars.
  return CallEstimate{add(kUnitCost, sum_of(arg_costs)), std::nullopt};
}

}  // namespace kapi::cel::cost_internal
