#include "server/flowcontrol/dropped_requests.h"

#include <gtest/gtest.h>

namespace kapi::flowcontrol::dropped_requests_test {
namespace {

TEST(DroppedRequestsTrackerTest, StartsAtOneSecond) {
  DroppedRequestsTracker tracker;
  EXPECT_EQ(tracker.retry_after("workload-low"), 1);
  tracker.record("workload-low", 1000);
  tracker.record("workload-low", 1000);
  EXPECT_EQ(tracker.retry_after("workload-low"), 1);
}

TEST(DroppedRequestsTrackerTest, DoublesWhileALevelKeepsRefusingAndComesBackSlowly) {
  DroppedRequestsTracker tracker;
  for (int i = 0; i < 3; ++i) tracker.record("busy", 1000);
  tracker.record("busy", 1001);  // second 1000 had 3 refusals: 3 x 1
  EXPECT_EQ(tracker.retry_after("busy"), 2);
  for (int i = 0; i < 5; ++i) tracker.record("busy", 1001);
  tracker.record("busy", 1002);  // not yet: it doubled a second ago, less than Retry-After
  EXPECT_EQ(tracker.retry_after("busy"), 2);
  for (int i = 0; i < 5; ++i) tracker.record("busy", 1002);
  tracker.record("busy", 1003);  // 6 + 6 refusals over the last 2 s >= 3 x 2
  EXPECT_EQ(tracker.retry_after("busy"), 4);
  EXPECT_EQ(tracker.retry_after("quiet"), 1) << "each level has its own";

  tracker.record("busy", 1010);  // quiet since: one second less each time it is reconsidered
  EXPECT_EQ(tracker.retry_after("busy"), 3);
  tracker.record("busy", 1020);
  EXPECT_EQ(tracker.retry_after("busy"), 2);
}

TEST(DroppedRequestsTrackerTest, NeverPastThirtyTwoSeconds) {
  DroppedRequestsTracker tracker;
  for (std::int64_t second = 0; second < 400; ++second)
    for (int i = 0; i < 200; ++i) tracker.record("flooded", 5000 + second);
  EXPECT_EQ(tracker.retry_after("flooded"), 32);
}

}  // namespace
}  // namespace kapi::flowcontrol::dropped_requests_test
