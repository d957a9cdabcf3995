#include "server/flowcontrol/concurrency_limits.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace kapi::flowcontrol {
namespace {

// kube's seatDemandSmoothing: how much of the previous period's plan survives into the next.
constexpr double kSmoothing = 0.977;
// kube's MinTarget: levels with no demand share what is left alike instead of not at all.
constexpr double kMinTarget = 0.001;

}  // namespace

std::vector<LevelLimits> nominal_limits(const std::vector<PriorityLevel>& levels, int server_limit) {
  double total_shares = 0;
  for (const auto& level : levels) total_shares += level.nominal_concurrency_shares;
  std::vector<LevelLimits> limits;
  limits.reserve(levels.size());
  for (const auto& level : levels) {
    LevelLimits limit;
    if (total_shares > 0)
      limit.nominal = static_cast<int>(std::ceil(server_limit * level.nominal_concurrency_shares / total_shares));
    limit.lendable = static_cast<int>(std::round(limit.nominal * level.lendable_percent / 100.0));
    limit.min_current = limit.nominal - limit.lendable;
    limit.max_current = level.borrowing_limit_percent
                            ? limit.nominal + static_cast<int>(std::round(limit.nominal * *level.borrowing_limit_percent / 100.0))
                            : std::max(server_limit, limit.nominal);
    limits.push_back(limit);
  }
  return limits;
}

double smoothed_demand(const SeatDemand& demand, double previous_smoothed) {
  const double target = demand.average + demand.standard_deviation;
  return std::max(target, kSmoothing * previous_smoothed + (1 - kSmoothing) * target);
}

AllocationClass allocation_class(const LevelLimits& limits, const SeatDemand& demand, double smoothed) {
  AllocationClass item;
  item.lower = std::max<double>(limits.min_current, std::min<double>(limits.nominal, demand.high_watermark));
  item.upper = std::max<double>(item.lower, limits.max_current);
  item.target = std::max(item.lower, smoothed);
  return item;
}

std::vector<int> allocate_concurrency(const std::vector<AllocationClass>& classes, int total) {
  auto allocation_of = [](const AllocationClass& item, double proportion) {
    return std::clamp(std::max(item.target, kMinTarget) * proportion, item.lower, item.upper);
  };
  auto allocation_at = [&](double proportion) {
    double sum = 0;
    for (const auto& item : classes) sum += allocation_of(item, proportion);
    return sum;
  };
  // The sum grows with the proportion: search for the one that spends `total`.
  double low = 0, high = 1;
  while (allocation_at(high) < total && high < 1e12) high *= 2;
  for (int step = 0; step < 100; ++step) {
    double middle = (low + high) / 2;
    (allocation_at(middle) < total ? low : high) = middle;
  }
  std::vector<int> allocation;
  allocation.reserve(classes.size());
  for (const auto& item : classes) allocation.push_back(static_cast<int>(std::lround(allocation_of(item, high))));
  return allocation;
}

}  // namespace kapi::flowcontrol
