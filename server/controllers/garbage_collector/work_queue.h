#pragma once
// client-go's rate-limited work queue (util/workqueue) for coroutines, as the garbage collector's attemptToDelete
// and attemptToOrphan queues use it: an item queued twice before a worker takes it is processed once, an item
// queued while a worker holds it comes back once that worker is done, and add_rate_limited waits as
// DefaultControllerRateLimiter says (per item 5 ms doubling up to 1000 s, and 10 per second with bursts of 100
// for all items) until forget. get() suspends the worker, never a thread.
#include "server/controllers/garbage_collector/graph.h"

#include <asio/any_io_executor.hpp>
#include <asio/awaitable.hpp>

#include <chrono>
#include <deque>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

namespace kapi::controllers::garbage_collector {

// The delay before a failing item is retried: the larger of its own exponential backoff and the shared token
// bucket's wait. Pure and not thread-safe (the queue locks around it), so its schedule is tested without waiting.
class RateLimiter {
 public:
  using Clock = std::chrono::steady_clock;

  std::chrono::nanoseconds when(const NodePtr& item, Clock::time_point now);
  void forget(const NodePtr& item) { failures_.erase(item); }
  int failures(const NodePtr& item) const;

 private:
  std::unordered_map<NodePtr, int> failures_;  // holds a failing node until it is forgotten, as kube's map does
  double tokens_ = 100;  // the bucket starts full
  Clock::time_point last_{};
};

class WorkQueue {
 public:
  explicit WorkQueue(asio::any_io_executor executor);

  void add(const NodePtr& item);
  void add_rate_limited(const NodePtr& item);
  void forget(const NodePtr& item);
  // The next item to process (call done with it afterwards); none once shut down.
  asio::awaitable<NodePtr> get();
  void done(const NodePtr& item);
  // Wakes every waiting get() with nothing; later adds are dropped.
  void shut_down();
  std::size_t length() const;

 private:
  struct State;
  std::shared_ptr<State> state_;  // shared with the timers of delayed adds, which may outlive the queue
};

}  // namespace kapi::controllers::garbage_collector
