#include "server/flowcontrol/concurrency_limits.h"

#include <gtest/gtest.h>

#include <numeric>

namespace kapi::flowcontrol::concurrency_limits_test {
namespace {

PriorityLevel level(std::string name, int shares, int lendable = 0, std::optional<int> borrowing = std::nullopt) {
  PriorityLevel level;
  level.name = std::move(name);
  level.nominal_concurrency_shares = shares;
  level.lendable_percent = lendable;
  level.borrowing_limit_percent = borrowing;
  return level;
}

TEST(ConcurrencyLimitsTest, NominalLimitsAreSharesOfTheServerLimit) {
  // kube's suggested configuration with the default 400 + 200 seats.
  std::vector<PriorityLevel> levels = {level("exempt", 0),          level("catch-all", 5),
                                       level("system", 30, 33),     level("node-high", 40, 25),
                                       level("leader-election", 10), level("workload-high", 40, 50),
                                       level("workload-low", 100, 90), level("global-default", 20, 50)};
  std::vector<LevelLimits> limits = nominal_limits(levels, 600);
  std::vector<int> nominal;
  for (const auto& limit : limits) nominal.push_back(limit.nominal);
  EXPECT_EQ(nominal, (std::vector<int>{0, 13, 74, 98, 25, 98, 245, 49}));
  // workload-low lends 90% of its 245 seats: it keeps 24, and may borrow up to the whole server.
  EXPECT_EQ(limits[6].lendable, 221);
  EXPECT_EQ(limits[6].min_current, 24);
  EXPECT_EQ(limits[6].max_current, 600);
}

TEST(ConcurrencyLimitsTest, BorrowingLimitBoundsTheMaximum) {
  std::vector<LevelLimits> limits = nominal_limits({level("a", 10, 0, 0), level("b", 10, 0, 50)}, 20);
  EXPECT_EQ(limits[0].max_current, 10);
  EXPECT_EQ(limits[1].max_current, 15);
}

TEST(ConcurrencyLimitsTest, ABusyLevelBorrowsWhatAnIdleOneLends) {
  std::vector<LevelLimits> limits = nominal_limits({level("busy", 10, 50), level("idle", 10, 50)}, 20);
  SeatDemand busy{20, 0, 20};
  SeatDemand idle{0, 0, 0};
  std::vector<AllocationClass> classes = {allocation_class(limits[0], busy, smoothed_demand(busy, 0)),
                                          allocation_class(limits[1], idle, smoothed_demand(idle, 0))};
  std::vector<int> allocation = allocate_concurrency(classes, 20);
  EXPECT_EQ(allocation, (std::vector<int>{15, 5}));
}

TEST(ConcurrencyLimitsTest, NothingIsLentBeyondWhatIsLendable) {
  std::vector<LevelLimits> limits = nominal_limits({level("busy", 10, 50), level("idle", 10, 0)}, 20);
  SeatDemand busy{20, 0, 20};
  SeatDemand idle{0, 0, 0};
  std::vector<int> allocation = allocate_concurrency(
      {allocation_class(limits[0], busy, 20), allocation_class(limits[1], idle, 0)}, 20);
  EXPECT_EQ(allocation, (std::vector<int>{10, 10}));
}

TEST(ConcurrencyLimitsTest, IdleLevelsShareTheSeatsWithinTheirBounds) {
  std::vector<LevelLimits> limits =
      nominal_limits({level("a", 10, 50), level("b", 30, 90), level("c", 60, 0)}, 100);
  SeatDemand idle{};
  std::vector<AllocationClass> classes;
  for (const auto& limit : limits) classes.push_back(allocation_class(limit, idle, 0));
  std::vector<int> allocation = allocate_concurrency(classes, 100);
  // Each limit is rounded on its own, as kube rounds them: the sum may miss by one.
  EXPECT_NEAR(std::accumulate(allocation.begin(), allocation.end(), 0), 100, 1);
  for (std::size_t i = 0; i < limits.size(); ++i) {
    EXPECT_GE(allocation[i], limits[i].min_current);
    EXPECT_LE(allocation[i], limits[i].max_current);
  }
}

TEST(ConcurrencyLimitsTest, SmoothedDemandFollowsRisesAtOnceAndFallsSlowly) {
  EXPECT_DOUBLE_EQ(smoothed_demand({10, 2, 14}, 0), 12);
  double falling = smoothed_demand({0, 0, 0}, 100);
  EXPECT_NEAR(falling, 97.7, 1e-9);
}

}  // namespace
}  // namespace kapi::flowcontrol::concurrency_limits_test
