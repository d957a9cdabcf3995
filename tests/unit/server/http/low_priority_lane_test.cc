// A reactor's low-priority lane (server/http/low_priority_lane.h): what the lane holds takes one bounded turn per
// pass of the reactor's queue, so other work waits at most a turn; work reaches the lane from any thread and runs
// on the reactor's, in order; a coroutine spawned on the lane stays in it, and only a pool's reactors have one.
#include "server/http/low_priority_lane.h"

#include "base/executor_target.h"
#include "server/http/reactor_pool.h"

#include <asio/co_spawn.hpp>
#include <asio/dispatch.hpp>
#include <asio/post.hpp>
#include <asio/steady_timer.hpp>
#include <asio/strand.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/use_future.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace kapi::http::low_priority_lane_test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

void spin_for(Clock::duration busy) {
  const auto until = Clock::now() + busy;
  while (Clock::now() < until) {
  }
}

asio::any_io_executor lane_of(asio::io_context& reactor) {
  auto lane = low_priority_executor(reactor.get_executor());
  if (!lane) throw std::logic_error("no lane");
  return *lane;
}

TEST(LowPriorityLaneTest, WorkPostedToTheReactorWaitsOneTurnNotTheWholeLane) {
  asio::io_context reactor(1);
  add_low_priority_lane(reactor);
  const auto lane = lane_of(reactor);
  // Each piece of lane work is busy for 2/5 of a turn, so a turn runs at most three of them, fewer if the thread
  // is descheduled; twenty of them are eight turns.
  const auto busy = LowPriorityLane::kTurn * 2 / 5;
  std::vector<std::string> ran;
  asio::post(reactor, [&] {
    for (int i = 0; i < 20; ++i)
      asio::post(lane, [&, i] {
        spin_for(busy);
        ran.push_back("lane " + std::to_string(i));
      });
    asio::post(reactor, [&] { ran.push_back("reactor"); });
  });
  reactor.run();

  ASSERT_EQ(ran.size(), 21u);
  const auto reactor_at = std::find(ran.begin(), ran.end(), "reactor") - ran.begin();
  EXPECT_GE(reactor_at, 1) << "the lane's turn was queued first";
  EXPECT_LE(reactor_at, 3) << "but it is one turn, not the twenty pieces";
  ran.erase(ran.begin() + reactor_at);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(ran[i], "lane " + std::to_string(i)) << "the lane keeps its order";
}

// While nothing waits in the lane, what is dispatched to it (as a completion resumes a coroutine) runs at once,
// as on the reactor's own executor: the lane costs an idle reactor no extra pass. Once it is backlogged, it too
// waits its turn, in order.
TEST(LowPriorityLaneTest, ADispatchRunsAtOnceOnlyWhileTheLaneIsIdle) {
  asio::io_context reactor(1);
  add_low_priority_lane(reactor);
  const auto lane = lane_of(reactor);
  std::vector<std::string> ran;
  asio::post(reactor, [&] {
    asio::dispatch(lane, [&] { ran.push_back("dispatched to an idle lane"); });
    ran.push_back("after the first dispatch");
    asio::post(lane, [&] { ran.push_back("posted"); });
    asio::dispatch(lane, [&] { ran.push_back("dispatched behind it"); });
    ran.push_back("after the second dispatch");
  });
  reactor.run();
  EXPECT_EQ(ran, (std::vector<std::string>{"dispatched to an idle lane", "after the first dispatch",
                                           "after the second dispatch", "posted", "dispatched behind it"}));
}

// Past kQuietAdmissions requests admitted on a reactor, their steps would take its queue ahead of exempt work,
// so a dispatch joins the lane even when nothing waits there; as the admissions end, it runs at once again.
TEST(LowPriorityLaneTest, ADispatchWaitsItsTurnWhileManyRequestsAreAdmitted) {
  asio::io_context reactor(1);
  add_low_priority_lane(reactor);
  std::vector<std::string> ran;
  asio::post(reactor, [&] {
    std::vector<LaneAdmission> admitted;
    for (int i = 0; i <= LowPriorityLane::kQuietAdmissions; ++i) {
      admitted.push_back(*LaneAdmission::on(reactor.get_executor()));
    }
    asio::dispatch(admitted.front().executor(), [&] { ran.push_back("dispatched while many are admitted"); });
    ran.push_back("after it");
    admitted.clear();
    asio::post(reactor, [&] {
      asio::dispatch(lane_of(reactor), [&] { ran.push_back("dispatched once they ended"); });
      ran.push_back("after that");
    });
  });
  reactor.run();
  EXPECT_EQ(ran, (std::vector<std::string>{"after it", "dispatched while many are admitted",
                                           "dispatched once they ended", "after that"}));
}

// A request's frame (and its admission) can outlive the reactor, held by a store's pending answer.
TEST(LowPriorityLaneTest, AnAdmissionMayOutliveItsReactor) {
  std::optional<LaneAdmission> admitted;
  {
    asio::io_context reactor(1);
    add_low_priority_lane(reactor);
    admitted.emplace(*LaneAdmission::on(reactor.get_executor()));
  }
  admitted.reset();  // what ASan checks: nothing of the lane is touched
}

TEST(LowPriorityLaneTest, WorkFromAnotherThreadRunsInTheLaneOnTheReactorsThread) {
  asio::io_context reactor(1);
  add_low_priority_lane(reactor);
  const auto lane = lane_of(reactor);
  auto work = asio::make_work_guard(reactor);
  std::thread::id ran_on;
  std::thread poster([&] {
    asio::post(lane, [&] {
      ran_on = std::this_thread::get_id();
      work.reset();
    });
  });
  reactor.run();
  poster.join();
  EXPECT_EQ(ran_on, std::this_thread::get_id());
}

TEST(LowPriorityLaneTest, ACoroutineSpawnedOnTheLaneResumesInTheLane) {
  asio::io_context reactor(1);
  add_low_priority_lane(reactor);
  const auto lane = lane_of(reactor);
  auto coroutine = [&]() -> asio::awaitable<int> {
    asio::steady_timer timer(co_await asio::this_coro::executor);
    timer.expires_after(1ms);
    co_await timer.async_wait(asio::use_awaitable);
    // Still the lane's executor, and its work: once this turn is spent, reactor work posted now runs before the
    // rest of this coroutine.
    const auto executor = co_await asio::this_coro::executor;
    EXPECT_FALSE(base::executor_target<asio::io_context::executor_type>(executor));
    bool reactor_ran = false;
    asio::post(reactor, [&] { reactor_ran = true; });
    spin_for(LowPriorityLane::kTurn);
    co_await asio::post(executor, asio::use_awaitable);
    EXPECT_TRUE(reactor_ran);
    throw std::runtime_error("from the lane");
  };
  auto outcome = asio::co_spawn(lane, coroutine(), asio::use_future);
  reactor.run();
  EXPECT_THROW(outcome.get(), std::runtime_error) << "what the lane's coroutine throws reaches its spawner";
}

TEST(LowPriorityLaneTest, OnlyAReactorsOwnExecutorHasALane) {
  asio::io_context plain;
  EXPECT_FALSE(low_priority_executor(plain.get_executor())) << "a context nobody gave a lane";
  asio::io_context main;
  ReactorPool pool(main, 2);
  EXPECT_TRUE(low_priority_executor(pool.next().get_executor()));
  EXPECT_TRUE(low_priority_executor(pool.next().get_executor()));
  EXPECT_FALSE(low_priority_executor(asio::make_strand(main))) << "a strand's work is not the reactor's";
}

TEST(LowPriorityLaneTest, WorkLeftInTheLaneIsDestroyedWithItsReactor) {
  auto token = std::make_shared<int>(0);
  {
    asio::io_context reactor(1);
    add_low_priority_lane(reactor);
    asio::post(reactor, [&] {
      asio::post(lane_of(reactor), [token] {});  // a post joins the lane, never runs at once
      reactor.stop();                             // before the lane's first turn
    });
    reactor.run();
    EXPECT_EQ(token.use_count(), 2);
  }
  EXPECT_EQ(token.use_count(), 1);
}

}  // namespace
}  // namespace kapi::http::low_priority_lane_test
