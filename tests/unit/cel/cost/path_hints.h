#pragma once
// cel-go's testCostEstimator (checker/cost_test.go): size hints by dotted field path, answered as {0, hint}.
#include <cstdint>
#include <map>
#include <string>

#include "cel/cost.h"

namespace kapi::cel::cost_testing {

inline CostOptions path_hints(std::map<std::string, std::uint64_t> hints, bool presence_test_has_cost = true) {
  CostOptions options;
  options.presence_test_has_cost = presence_test_has_cost;
  options.type_size_hints = false;
  options.node_sizes = [hints = std::move(hints)](const SizeQuery& node) -> std::optional<SizeEstimate> {
    std::string joined;
    for (const std::string& part : node.path) joined += (joined.empty() ? "" : ".") + part;
    auto it = hints.find(joined);
    if (it == hints.end()) return std::nullopt;
    return SizeEstimate{0, it->second};
  };
  return options;
}

}  // namespace kapi::cel::cost_testing
