#pragma once
// How the server's seats are divided among priority levels (kube's apf_controller): each level's nominal limit is
// its share of --max-requests-inflight + --max-mutating-requests-inflight; every 10 seconds the levels' current
// limits are recomputed from their recent seat demand, so an idle level lends up to lendablePercent of its seats
// and a busy one borrows up to borrowingLimitPercent more.
#include "server/flowcontrol/configuration.h"
#include "server/flowcontrol/queue_set.h"

#include <vector>

namespace kapi::flowcontrol {

struct LevelLimits {
  int nominal = 0;
  int lendable = 0;
  int min_current = 0;  // nominal - lendable
  int max_current = 0;  // nominal + what it may borrow
};

// Nominal limits: ceil(server_limit * shares / total shares), as kube computes them.
std::vector<LevelLimits> nominal_limits(const std::vector<PriorityLevel>& levels, int server_limit);

// The demand a level is planned for: the smoothed (avg + stddev) of its seat demand, never below what it had.
double smoothed_demand(const SeatDemand& demand, double previous_smoothed);

// One level's part in an allocation: its bounds and the limit it would like.
struct AllocationClass {
  double lower = 0;
  double upper = 0;
  double target = 0;
};

// The class of a level with `limits` after a period of `demand` (smoothed to `smoothed`): never below what it
// used (up to its nominal limit) nor below what it may not lend, and wanting its smoothed demand.
AllocationClass allocation_class(const LevelLimits& limits, const SeatDemand& demand, double smoothed);

// kube's computeConcurrencyAllocation: a limit for each class within its bounds, all of them a common proportion of
// their targets where the bounds allow, adding up to `total` (as near as the bounds allow), rounded.
std::vector<int> allocate_concurrency(const std::vector<AllocationClass>& classes, int total);

}  // namespace kapi::flowcontrol
