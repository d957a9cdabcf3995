#include "base/stop_signal.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>
#include <gtest/gtest.h>

#include <stop_token>

namespace kapi::base::stop_signal_test {
namespace {

TEST(StopSignalTest, ARequestWakesWaitersAndRunsTheTokensCallbacksOnce) {
  asio::io_context io;
  StopSignal stop;
  bool woken = false;
  asio::co_spawn(io, [&]() -> asio::awaitable<void> {
    co_await stop.wait();
    woken = true;
  }, asio::detached);
  io.poll();
  int calls = 0;
  std::stop_callback counting(stop.token(), [&calls] { ++calls; });
  EXPECT_EQ(calls, 0);
  EXPECT_FALSE(woken);

  stop.request();
  stop.request();
  io.poll();
  EXPECT_TRUE(woken);
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(stop.requested());
}

// A callback registered after the request runs at once, as a loop that starts waiting after a stop must not wait.
TEST(StopSignalTest, ACallbackRegisteredAfterTheRequestRunsAtOnce) {
  StopSignal stop;
  stop.request();
  bool ran = false;
  std::stop_callback late(stop.token(), [&ran] { ran = true; });
  EXPECT_TRUE(ran);
}

}  // namespace
}  // namespace kapi::base::stop_signal_test
