#include "server/flowcontrol/queue_set.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <vector>

namespace kapi::flowcontrol::queue_set_test {
namespace {

using namespace std::chrono_literals;
using Outcome = std::shared_ptr<std::optional<QueueSet::Admission>>;

asio::awaitable<void> admit_into(std::shared_ptr<QueueSet> queues, std::uint64_t hash, WorkEstimate work,
                                 Clock::time_point deadline, Outcome outcome) {
  auto pending = queues->admit(hash, "flow", work, deadline);
  *outcome = co_await std::move(pending);
}

class QueueSetTest : public ::testing::Test {
 protected:
  std::shared_ptr<QueueSet> make(std::optional<QueuingConfiguration> queuing, int limit) {
    return std::make_shared<QueueSet>(queuing, limit, io_.get_executor());
  }

  Outcome admit(const std::shared_ptr<QueueSet>& queues, std::uint64_t hash = 1, WorkEstimate work = {},
                Clock::duration wait = 10s) {
    auto outcome = std::make_shared<std::optional<QueueSet::Admission>>();
    asio::co_spawn(io_, admit_into(queues, hash, work, Clock::now() + wait, outcome), asio::detached);
    settle();
    return outcome;
  }

  void settle() {
    io_.restart();
    io_.poll();
  }

  static bool admitted(const Outcome& outcome) { return *outcome && (*outcome)->request; }
  static bool waiting(const Outcome& outcome) { return !*outcome; }
  static std::optional<RejectReason> rejected(const Outcome& outcome) {
    return *outcome ? (*outcome)->rejected : std::nullopt;
  }

  // Two hashes that a deck of `queues` with hands of one deals to different queues.
  static std::pair<std::uint64_t, std::uint64_t> separate_flows(int queues) {
    Dealer dealer(queues, 1);
    int first = -1;
    dealer.deal(1, [&first](int card) { first = card; });
    for (std::uint64_t hash = 2;; ++hash) {
      int card = -1;
      dealer.deal(hash, [&card](int c) { card = c; });
      if (card != first) return {1, hash};
    }
  }

  asio::io_context io_;
};

TEST_F(QueueSetTest, AdmitsUpToTheLimitThenQueuesUntilSeatsAreFree) {
  auto queues = make(QueuingConfiguration{4, 2, 5}, 2);
  Outcome first = admit(queues), second = admit(queues), third = admit(queues);
  EXPECT_TRUE(admitted(first));
  EXPECT_TRUE(admitted(second));
  EXPECT_TRUE(waiting(third));
  EXPECT_EQ(queues->stats().waiting_requests, 1);
  EXPECT_EQ(queues->stats().seats_in_use, 2);

  queues->finish((*first)->request);
  settle();
  ASSERT_TRUE(admitted(third));
  EXPECT_EQ(queues->stats().waiting_requests, 0);
  EXPECT_EQ(queues->stats().executing_requests, 2);
  queues->finish((*second)->request);
  queues->finish((*third)->request);
  EXPECT_EQ(queues->stats().seats_in_use, 0);
  EXPECT_EQ(queues->stats().executing_requests, 0);
}

TEST_F(QueueSetTest, RejectsWhenTheQueueIsFull) {
  auto queues = make(QueuingConfiguration{1, 1, 1}, 1);
  Outcome first = admit(queues), second = admit(queues), third = admit(queues);
  EXPECT_TRUE(admitted(first));
  EXPECT_TRUE(waiting(second));
  EXPECT_EQ(rejected(third), RejectReason::QueueFull);
  EXPECT_EQ(reason_label(RejectReason::QueueFull), "queue-full");
}

TEST_F(QueueSetTest, RejectsARequestThatWaitsPastItsDeadline) {
  auto queues = make(QueuingConfiguration{1, 1, 10}, 1);
  Outcome first = admit(queues);
  Outcome late = admit(queues, 1, {}, 50ms);
  EXPECT_TRUE(waiting(late));
  io_.restart();
  io_.run_for(300ms);
  EXPECT_EQ(rejected(late), RejectReason::TimeOut);
  EXPECT_GE((*late)->waited, 50ms);
  EXPECT_EQ(queues->stats().waiting_requests, 0);
  queues->finish((*first)->request);
  EXPECT_EQ(queues->stats().seats_in_use, 0);
}

TEST_F(QueueSetTest, ARejectLevelNeverQueues) {
  auto queues = make(std::nullopt, 1);
  Outcome first = admit(queues), second = admit(queues);
  EXPECT_TRUE(admitted(first));
  EXPECT_EQ(rejected(second), RejectReason::ConcurrencyLimit);
  queues->finish((*first)->request);
  EXPECT_TRUE(admitted(admit(queues)));
}

TEST_F(QueueSetTest, AFloodingFlowDoesNotDelayAQuietOne) {
  auto [flood, quiet] = separate_flows(8);
  auto queues = make(QueuingConfiguration{8, 1, 50}, 1);
  Outcome running = admit(queues, flood);
  std::vector<Outcome> flooded;
  for (int i = 0; i < 5; ++i) flooded.push_back(admit(queues, flood));
  Outcome polite = admit(queues, quiet);
  EXPECT_TRUE(waiting(polite));

  queues->finish((*running)->request);
  settle();
  EXPECT_TRUE(admitted(polite)) << "the quiet flow's queue is behind in virtual time: it goes first";
  for (const auto& outcome : flooded) EXPECT_TRUE(waiting(outcome));
  queues->finish((*polite)->request);
  settle();
  EXPECT_TRUE(admitted(flooded[0]));
  EXPECT_TRUE(waiting(flooded[1]));
}

TEST_F(QueueSetTest, AWideRequestRunsAloneAndIsNotOvertaken) {
  auto queues = make(QueuingConfiguration{1, 1, 10}, 2);
  Outcome narrow = admit(queues);
  Outcome wide = admit(queues, 1, {5, 0, {}});
  Outcome after = admit(queues);
  EXPECT_TRUE(admitted(narrow));
  EXPECT_TRUE(waiting(wide)) << "five seats do not fit beside another request";
  EXPECT_TRUE(waiting(after)) << "nobody overtakes the head of the queue";
  queues->finish((*narrow)->request);
  settle();
  EXPECT_TRUE(admitted(wide)) << "wider than the level, it runs alone";
  EXPECT_TRUE(waiting(after));
  queues->finish((*wide)->request);
  settle();
  EXPECT_TRUE(admitted(after));
}

TEST_F(QueueSetTest, FinalSeatsAreHeldForTheAdditionalLatency) {
  auto queues = make(QueuingConfiguration{1, 1, 10}, 1);
  Outcome write = admit(queues, 1, {1, 1, 100ms});
  Outcome next = admit(queues);
  queues->finish((*write)->request);
  settle();
  EXPECT_TRUE(waiting(next)) << "the write's events still hold its seat";
  EXPECT_EQ(queues->stats().seats_in_use, 1);
  io_.restart();
  io_.run_for(400ms);
  EXPECT_TRUE(admitted(next));
}

TEST_F(QueueSetTest, ARaisedLimitDispatchesWhoWaits) {
  auto queues = make(QueuingConfiguration{4, 2, 10}, 1);
  Outcome first = admit(queues), second = admit(queues), third = admit(queues);
  EXPECT_TRUE(waiting(second));
  queues->set_concurrency_limit(3);
  settle();
  EXPECT_TRUE(admitted(second));
  EXPECT_TRUE(admitted(third));
  EXPECT_EQ(queues->stats().concurrency_limit, 3);
}

TEST_F(QueueSetTest, ReshapingKeepsWhoWaits) {
  auto queues = make(QueuingConfiguration{4, 2, 10}, 1);
  Outcome first = admit(queues), second = admit(queues);
  queues->configure(QueuingConfiguration{16, 4, 10}, 1);
  EXPECT_EQ(queues->stats().waiting_requests, 1);
  queues->finish((*first)->request);
  settle();
  EXPECT_TRUE(admitted(second));
  queues->finish((*second)->request);
  EXPECT_EQ(queues->stats().seats_in_use, 0);
}

TEST_F(QueueSetTest, ReportsSeatDemand) {
  auto queues = make(QueuingConfiguration{4, 2, 10}, 2);
  Outcome first = admit(queues), second = admit(queues), third = admit(queues);
  SeatDemand demand = queues->take_seat_demand();
  EXPECT_EQ(demand.high_watermark, 3);
  queues->finish((*first)->request);
  queues->finish((*second)->request);
  settle();
  queues->finish((*third)->request);
  EXPECT_EQ(queues->take_seat_demand().high_watermark, 3) << "the period starts from what was in use";
  EXPECT_EQ(queues->take_seat_demand().high_watermark, 0);
}

}  // namespace
}  // namespace kapi::flowcontrol::queue_set_test
