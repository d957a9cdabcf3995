// Placeholder until the cost estimator lands (cel/cost: static estimates and run-time call costs).
#include "cel/cost.h"

namespace kapi::cel {

CostEstimate estimate_cost(const CheckedAst&, const Env&, const SizeEstimator&) { return {}; }

std::uint64_t call_cost(std::string_view, std::string_view, std::span<const Value>, const Value&) { return 1; }

}  // namespace kapi::cel
