// The load driver's rate control and accounting, driven with operations that need no server: arrivals follow the
// schedule exactly (the counts below are not timing-dependent), busy slots turn arrivals into misses rather than a
// queue, warm-up is excluded, Retry-After is honoured.
#include "bench/load/driver.h"

#include <asio/co_spawn.hpp>
#include <asio/executor_work_guard.hpp>
#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/use_future.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace kapi::bench::driver_test {
namespace {

using namespace std::chrono_literals;

class LoadDriverTest : public ::testing::Test {
 protected:
  LoadResult run(LoadOptions options, Operation operation) {
    std::optional<LoadResult> result;
    asio::co_spawn(io_, run_load(io_.get_executor(), options, std::move(operation)),
                   [&](std::exception_ptr error, LoadResult value) {
                     if (error) std::rethrow_exception(error);
                     result = std::move(value);
                   });
    io_.run();
    EXPECT_TRUE(result.has_value());
    return result.value_or(LoadResult{});
  }

  // An operation that succeeds after `delay` (at once when zero) and counts how many run at once.
  Operation succeed_after(std::chrono::milliseconds delay, int status = 200, int retry_after = 0) {
    return [this, delay, status, retry_after](std::size_t, std::uint64_t sequence) -> asio::awaitable<Outcome> {
      sequences_.push_back(sequence);
      max_in_flight_ = std::max(max_in_flight_, ++in_flight_);
      if (delay > 0ms) {
        asio::steady_timer timer(io_, delay);
        co_await timer.async_wait(asio::use_awaitable);
      }
      --in_flight_;
      co_return Outcome{.status = status, .retry_after_seconds = retry_after, .bytes_received = 10, .bytes_sent = 3};
    };
  }

  static LoadOptions open_loop(double rate, std::chrono::milliseconds duration, std::size_t concurrency = 64) {
    return LoadOptions{.mode = LoadMode::open, .concurrency = concurrency, .rate = rate, .warmup = 0ms,
                       .duration = duration};
  }

  asio::io_context io_;
  std::vector<std::uint64_t> sequences_;
  int in_flight_ = 0;
  int max_in_flight_ = 0;
};

TEST_F(LoadDriverTest, OpenLoopStartsRateTimesDurationOperations) {
  LoadResult result = run(open_loop(500, 200ms), succeed_after(0ms));
  EXPECT_EQ(result.successes, 100u);  // one every 2 ms for 200 ms
  EXPECT_EQ(result.failures, 0u);
  EXPECT_EQ(result.missed_arrivals, 0u);
  EXPECT_EQ(result.outcomes[200], 100u);
  EXPECT_EQ(result.bytes_received, 1000u);
  EXPECT_EQ(result.bytes_sent, 300u);
  EXPECT_EQ(result.latency.count(), 100u);
  EXPECT_NEAR(result.measured_seconds, 0.2, 0.05);
}

TEST_F(LoadDriverTest, WarmUpOperationsRunButAreNotCounted) {
  LoadOptions options = open_loop(500, 200ms);
  options.warmup = 100ms;
  LoadResult result = run(options, succeed_after(0ms));
  EXPECT_EQ(sequences_.size(), 150u) << "warm-up and measured arrivals all ran";
  EXPECT_EQ(result.successes, 100u) << "only those scheduled after the warm-up count";
}

TEST_F(LoadDriverTest, ArrivalsWithEverySlotBusyAreMissedNotQueued) {
  LoadResult result = run(open_loop(100, 100ms, 2), succeed_after(150ms));
  EXPECT_EQ(result.successes, 2u);
  EXPECT_EQ(result.missed_arrivals, 8u) << "ten arrivals, two slots busy for longer than the run";
  EXPECT_GE(result.latency.quantile_micros(0.0), 150'000u) << "latency counts from the scheduled start";
}

TEST_F(LoadDriverTest, ClosedLoopKeepsConcurrencyOperationsInFlight) {
  LoadOptions options{.mode = LoadMode::closed, .concurrency = 4, .warmup = 0ms, .duration = 60ms};
  LoadResult result = run(options, succeed_after(5ms));
  EXPECT_EQ(max_in_flight_, 4);
  EXPECT_GE(result.successes, 4u);
}

TEST_F(LoadDriverTest, AnOperationLimitEndsTheRunAfterThatMany) {
  LoadOptions options{.mode = LoadMode::closed, .concurrency = 3, .warmup = 0ms, .duration = 1h,
                      .operation_limit = 10};
  LoadResult result = run(options, succeed_after(1ms));
  EXPECT_EQ(result.successes, 10u);
  EXPECT_EQ(sequences_.size(), 10u);
  std::sort(sequences_.begin(), sequences_.end());
  EXPECT_EQ(sequences_.front(), 0u);
  EXPECT_EQ(sequences_.back(), 9u);
}

TEST_F(LoadDriverTest, RetryAfterIsWaitedOutOnlyWhenAsked) {
  LoadOptions options{.mode = LoadMode::closed, .concurrency = 2, .warmup = 0ms, .duration = 200ms};
  options.honor_retry_after = true;
  LoadResult honoured = run(options, succeed_after(0ms, 429, 1));
  EXPECT_EQ(honoured.outcomes[429], 2u) << "each worker waits out its 1 s Retry-After past the run's end";
  EXPECT_EQ(honoured.successes, 0u);
  EXPECT_EQ(honoured.first_error, "HTTP status 429");

  io_.restart();
  options.honor_retry_after = false;
  options.duration = 20ms;
  LoadResult ignored = run(options, succeed_after(1ms, 429, 1));
  EXPECT_GT(ignored.outcomes[429], 2u);
}

TEST_F(LoadDriverTest, AThrowingOperationIsANetworkError) {
  LoadOptions options{.mode = LoadMode::closed, .concurrency = 1, .warmup = 0ms, .duration = 1h,
                      .operation_limit = 3};
  LoadResult result = run(options, [](std::size_t, std::uint64_t) -> asio::awaitable<Outcome> {
    throw std::runtime_error("connection refused");
    co_return Outcome{};
  });
  EXPECT_EQ(result.failures, 3u);
  EXPECT_EQ(result.outcomes[0], 3u);
  EXPECT_EQ(result.first_error, "connection refused");
}

TEST_F(LoadDriverTest, MergingRunsAddsTheirFigures) {
  LoadResult first = run(open_loop(500, 100ms), succeed_after(0ms));
  io_.restart();
  LoadResult second = run(open_loop(500, 100ms), succeed_after(0ms, 503));
  merge_into(first, second);
  EXPECT_EQ(first.successes, 50u);
  EXPECT_EQ(first.failures, 50u);
  EXPECT_EQ(first.outcomes[200], 50u);
  EXPECT_EQ(first.outcomes[503], 50u);
  EXPECT_EQ(first.latency.count(), 50u);
  EXPECT_EQ(first.first_error, "HTTP status 503");
  EXPECT_NEAR(first.measured_seconds, 0.1, 0.05);
}

// The harness's load spread over reactors of their own: every part runs its operations on its own thread, the
// slots are shared out, sequence numbers stay unique across parts, and the figures add up.
TEST(LoadOnReactorsTest, PartsRunOnTheirOwnThreadsAndTheirResultsAreMerged) {
  constexpr std::size_t kParts = 3;
  std::vector<std::unique_ptr<asio::io_context>> reactors;
  std::vector<asio::any_io_executor> executors;
  for (std::size_t i = 0; i < kParts; ++i) {
    reactors.push_back(std::make_unique<asio::io_context>(1));
    executors.push_back(reactors.back()->get_executor());
  }
  std::mutex mutex;
  std::set<std::uint64_t> sequences;
  std::map<std::size_t, std::set<std::thread::id>> threads_of_part;
  std::map<std::size_t, std::size_t> highest_slot_of_part;
  OperationFactory factory = [&](asio::any_io_executor, std::size_t part) -> Operation {
    return [&, part](std::size_t slot, std::uint64_t sequence) -> asio::awaitable<Outcome> {
      {
        std::lock_guard lock(mutex);
        EXPECT_TRUE(sequences.insert(sequence).second) << "sequence " << sequence << " twice";
        threads_of_part[part].insert(std::this_thread::get_id());
        highest_slot_of_part[part] = std::max(highest_slot_of_part[part], slot);
      }
      co_await asio::post(asio::use_awaitable);  // as a request would, lets the part's other slots run
      co_return Outcome{.status = 200, .bytes_received = 10};
    };
  };
  LoadOptions options{.concurrency = 7, .warmup = 0ms, .duration = 10s, .operation_limit = 300};
  auto merged = asio::co_spawn(executors.front(), run_load_on(executors, options, factory), asio::use_future);
  std::vector<asio::executor_work_guard<asio::io_context::executor_type>> keep_running;
  std::vector<std::thread> threads;
  for (auto& reactor : reactors) {
    keep_running.push_back(asio::make_work_guard(*reactor));  // until a part is given to it
    threads.emplace_back([&reactor] { reactor->run(); });
  }
  const LoadResult result = merged.get();
  keep_running.clear();
  for (std::thread& thread : threads) thread.join();

  EXPECT_EQ(result.successes, 300u);
  EXPECT_EQ(result.bytes_received, 3000u);
  EXPECT_EQ(sequences.size(), 300u);
  EXPECT_EQ(*sequences.rbegin(), 299u) << "the parts' sequences interleave: 0 to 299, each once";
  ASSERT_EQ(threads_of_part.size(), kParts);
  std::set<std::thread::id> all;
  for (const auto& [part, ids] : threads_of_part) {
    EXPECT_EQ(ids.size(), 1u) << "part " << part << " stays on its reactor";
    all.insert(ids.begin(), ids.end());
  }
  EXPECT_EQ(all.size(), kParts) << "a thread each";
  EXPECT_EQ(highest_slot_of_part[0], 2u) << "7 slots shared out as 3, 2, 2";
  EXPECT_EQ(highest_slot_of_part[1], 1u);
  EXPECT_EQ(highest_slot_of_part[2], 1u);
}

}  // namespace
}  // namespace kapi::bench::driver_test
