// check_watch on hand-written histories and watches: the events must be the writes that took effect, each once, in
// revision order, at the revisions their writers were told.
#include "tests/support/linearizability/checker.h"
#include "tests/unit/support/history_builders.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kapi::test_support::linearizability::linearizability_watch_test {
namespace {

using namespace builders;
using ::testing::HasSubstr;

// Two keys: a created, updated and deleted; b created by a write whose answer was lost.
const History kHistory = {
    list(0, 0, 1, 5, {}),
    create(1, "a", "v1", 2, 3, Outcome::Ok, 10),
    unknown(create(2, "b", "w1", 2, 3)),
    update(1, "a", "v2", 10, 4, 5, Outcome::Ok, 12),
    update(2, "a", "v3", 10, 6, 7, Outcome::Conflict),
    remove(1, "a", 8, 9),
};

WatchSegment segment(std::vector<WatchEvent> events, Revision through = 20) {
  return {.from = 5, .initial = {}, .events = std::move(events), .through = through};
}

TEST(LinearizabilityWatchTest, EveryWriteThatTookEffectOnceInRevisionOrder) {
  EXPECT_EQ(check_watch(kHistory, {segment({added("a", "v1", 10), added("b", "w1", 11), modified("a", "v2", 12),
                                            deleted("a", "v2", 13)})}),
            "");
  // The unknown write need not be there; nor anything past the revision the watch covered.
  EXPECT_EQ(check_watch(kHistory, {segment({added("a", "v1", 10)}, 11)}), "");
  // A watch that started over from a list (after a 410) is judged from that list's state.
  EXPECT_EQ(
      check_watch(kHistory,
                  {segment({added("a", "v1", 10)}, 10),
                   {.from = 12, .initial = {{"a", {"v2", 12}}}, .events = {deleted("a", "v2", 13)}, .through = 13}}),
      "");
}

TEST(LinearizabilityWatchTest, EventsOutOfOrderAreRefused) {
  EXPECT_THAT(check_watch(kHistory, {segment({added("b", "w1", 11), added("a", "v1", 10), modified("a", "v2", 12)})}),
              HasSubstr("out of order"));
}

TEST(LinearizabilityWatchTest, AnAcknowledgedWriteMissingIsRefused) {
  EXPECT_THAT(check_watch(kHistory, {segment({added("a", "v1", 10), deleted("a", "v1", 13)})}),
              HasSubstr("acknowledged write is missing"));
  EXPECT_THAT(check_watch(kHistory, {segment({added("a", "v1", 10), deleted("a", "v2", 13)})}),
              HasSubstr("the key held v1"));
}

TEST(LinearizabilityWatchTest, AnEventOfAFailedWriteIsRefused) {
  EXPECT_THAT(check_watch(kHistory, {segment({added("a", "v1", 10), modified("a", "v3", 12)})}), HasSubstr("failed"));
}

TEST(LinearizabilityWatchTest, AWriteDeliveredTwiceOrAtAnotherRevisionIsRefused) {
  EXPECT_THAT(
      check_watch(kHistory, {segment({added("a", "v1", 10), modified("a", "v2", 12), modified("a", "v2", 14)})}),
      HasSubstr("delivered twice"));
  EXPECT_THAT(check_watch(kHistory, {segment({added("a", "v1", 11)})}), HasSubstr("took resourceVersion 10"));
}

TEST(LinearizabilityWatchTest, AnUpdateMustFollowTheObjectItsPreconditionNamed) {
  const History history = {
      create(1, "a", "v1", 0, 1, Outcome::Ok, 10),
      unknown(update(1, "a", "v2", 10, 2, 3)),
      unknown(update(2, "a", "v3", 10, 2, 3)),
  };
  EXPECT_EQ(check_watch(history, {segment({added("a", "v1", 10), modified("a", "v3", 11)})}), "");
  EXPECT_THAT(check_watch(history, {segment({added("a", "v1", 10), modified("a", "v2", 11), modified("a", "v3", 12)})}),
              HasSubstr("precondition"));
}

TEST(LinearizabilityWatchTest, AnUnknownWriteMustKeepToRealTime) {
  // b's create had not been called when a's update, acknowledged at 12, ended: it cannot be older.
  const History history = {
      create(1, "a", "v1", 0, 1, Outcome::Ok, 10),
      update(1, "a", "v2", 10, 2, 3, Outcome::Ok, 12),
      unknown(create(2, "b", "w1", 4, 5)),
  };
  EXPECT_THAT(check_watch(history, {segment({added("a", "v1", 10), added("b", "w1", 11), modified("a", "v2", 12)})}),
              HasSubstr("real-time"));
}

}  // namespace
}  // namespace kapi::test_support::linearizability::linearizability_watch_test
