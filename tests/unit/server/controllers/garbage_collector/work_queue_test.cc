// client-go's work queue semantics as the garbage collector's queues keep them: an item queued twice is processed
// once, one queued while a worker holds it comes back when that worker is done, and shutting down wakes a waiting
// worker with nothing. (The rate limiter's schedule is tested in graph_builder_test.cc without waiting.)
#include "server/controllers/garbage_collector/work_queue.h"

#include <gtest/gtest.h>
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>

namespace kapi::controllers::garbage_collector::work_queue_test {
namespace {

TEST(WorkQueueTest, DeduplicatesAndRequeuesWhatWasAddedWhileProcessing) {
  asio::io_context io;
  WorkQueue queue(io.get_executor());
  auto a = std::make_shared<Node>();
  auto b = std::make_shared<Node>();
  queue.add(a);
  queue.add(a);
  queue.add(b);
  EXPECT_EQ(queue.length(), 2u);
  bool finished = false;
  auto worker = [&]() -> asio::awaitable<void> {
    NodePtr first = co_await queue.get();
    EXPECT_EQ(first, a);
    queue.add(a);  // while held: not queued yet
    EXPECT_EQ(queue.length(), 1u);
    queue.done(a);  // now it is, behind b
    EXPECT_EQ(queue.length(), 2u);
    NodePtr second = co_await queue.get();
    EXPECT_EQ(second, b);
    queue.done(b);
    NodePtr third = co_await queue.get();
    EXPECT_EQ(third, a);
    queue.done(a);
    NodePtr none = co_await queue.get();  // waits until the shutdown below
    EXPECT_EQ(none, nullptr);
    finished = true;
  };
  asio::co_spawn(io, worker(), asio::detached);
  io.run_one();  // the worker runs up to its wait
  while (io.poll() > 0) {
  }
  EXPECT_FALSE(finished);
  queue.shut_down();
  io.restart();
  io.run();
  EXPECT_TRUE(finished);
  queue.add(a);  // dropped after shutdown
  EXPECT_EQ(queue.length(), 0u);
}

}  // namespace
}  // namespace kapi::controllers::garbage_collector::work_queue_test
