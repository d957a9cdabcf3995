#include "base/ring_queue.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace kapi::base::ring_queue_test {
namespace {

TEST(RingQueueTest, AnEmptyQueueHoldsNoRoom) {
  RingQueue<std::string> queue;
  EXPECT_TRUE(queue.empty());
  EXPECT_EQ(queue.capacity(), 0u);
}

TEST(RingQueueTest, ItemsComeOutInOrderAcrossTheRingsEndAndItsGrowth) {
  RingQueue<int> queue;
  int next_in = 0;
  int next_out = 0;
  // Fill and drain unevenly, so that the ring wraps before it grows and grows while wrapped.
  for (int round = 1; round <= 6; ++round) {
    for (int i = 0; i < round * 3; ++i) queue.push_back(next_in++);
    for (int i = 0; i < round * 2; ++i) {
      ASSERT_EQ(queue.front(), next_out++);
      queue.pop_front();
    }
  }
  ASSERT_EQ(queue.size(), static_cast<std::size_t>(next_in - next_out));
  for (std::size_t i = 0; i < queue.size(); ++i) EXPECT_EQ(queue[i], next_out + static_cast<int>(i));
  EXPECT_EQ(queue.back(), next_in - 1);
  while (!queue.empty()) {
    EXPECT_EQ(queue.front(), next_out++);
    queue.pop_front();
  }
  EXPECT_EQ(next_out, next_in);
}

TEST(RingQueueTest, ASteadyQueueKeepsItsRoomAndClearGivesItBack) {
  RingQueue<int> queue;
  for (int i = 0; i < 100; ++i) {
    queue.push_back(i);
    queue.pop_front();
  }
  EXPECT_EQ(queue.capacity(), 1u);
  for (int i = 0; i < 5; ++i) queue.push_back(i);
  EXPECT_EQ(queue.capacity(), 8u);
  queue.clear();
  EXPECT_TRUE(queue.empty());
  EXPECT_EQ(queue.capacity(), 0u);
}

TEST(RingQueueTest, APoppedItemIsReleasedAtOnce) {
  RingQueue<std::shared_ptr<int>> queue;
  auto item = std::make_shared<int>(7);
  queue.push_back(item);
  EXPECT_EQ(item.use_count(), 2);
  queue.pop_front();
  EXPECT_EQ(item.use_count(), 1);
}

}  // namespace
}  // namespace kapi::base::ring_queue_test
