#include "server/controllers/garbage_collector/work_queue.h"

#include <asio/co_spawn.hpp>
#include <asio/experimental/concurrent_channel.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>

#include <algorithm>
#include <cmath>

namespace kapi::controllers::garbage_collector {
namespace {

constexpr auto kBaseDelay = std::chrono::milliseconds(5);
constexpr auto kMaxDelay = std::chrono::seconds(1000);
constexpr double kBucketRate = 10;   // per second
constexpr double kBucketBurst = 100;
// Wake-ups waiting in the channel: one per add is enough while few are queued; once this many are pending, every
// waiting worker has one, and a worker looks at the queue before waiting again.
constexpr std::size_t kPendingWakeUps = 1024;

}  // namespace

std::chrono::nanoseconds RateLimiter::when(const NodePtr& item, Clock::time_point now) {
  const int failures = failures_[item]++;
  // ItemExponentialFailureRateLimiter: 5 ms * 2^failures, at most 1000 s.
  const double exponential = std::chrono::duration<double>(kBaseDelay).count() * std::pow(2.0, std::min(failures, 40));
  const double item_delay = std::min(exponential, std::chrono::duration<double>(kMaxDelay).count());
  // BucketRateLimiter: a token bucket of 10 per second, burst 100, a token reserved per call.
  if (last_ != Clock::time_point{})
    tokens_ = std::min(kBucketBurst, tokens_ + std::chrono::duration<double>(now - last_).count() * kBucketRate);
  last_ = now;
  tokens_ -= 1;
  const double bucket_delay = tokens_ < 0 ? -tokens_ / kBucketRate : 0;
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::duration<double>(std::max(item_delay, bucket_delay)));
}

int RateLimiter::failures(const NodePtr& item) const {
  auto found = failures_.find(item);
  return found == failures_.end() ? 0 : found->second;
}

struct WorkQueue::State {
  explicit State(asio::any_io_executor executor_) : executor(executor_), wake_ups(executor_, kPendingWakeUps) {}

  void add(const NodePtr& item) {
    {
      std::lock_guard lock(mutex);
      if (shutting_down || !dirty.insert(item).second) return;
      if (processing.contains(item)) return;  // queued again by done()
      queue.push_back(item);
    }
    wake_ups.try_send(asio::error_code(), 0);
  }

  asio::any_io_executor executor;
  std::mutex mutex;
  std::deque<NodePtr> queue;
  std::unordered_set<NodePtr> dirty;       // queued and not yet taken
  std::unordered_set<NodePtr> processing;  // held by a worker
  RateLimiter limiter;
  bool shutting_down = false;
  // (asio 1.22 cannot instantiate a channel of void(error_code) alone: a dummy int rides along.)
  asio::experimental::concurrent_channel<void(asio::error_code, int)> wake_ups;
};

WorkQueue::WorkQueue(asio::any_io_executor executor) : state_(std::make_shared<State>(std::move(executor))) {}

void WorkQueue::add(const NodePtr& item) { state_->add(item); }

void WorkQueue::add_rate_limited(const NodePtr& item) {
  std::chrono::nanoseconds delay;
  {
    std::lock_guard lock(state_->mutex);
    if (state_->shutting_down) return;
    delay = state_->limiter.when(item, RateLimiter::Clock::now());
  }
  if (delay <= std::chrono::nanoseconds::zero()) return state_->add(item);
  auto later = [](std::shared_ptr<State> state, NodePtr item, std::chrono::nanoseconds delay) -> asio::awaitable<void> {
    asio::steady_timer timer(state->executor);
    timer.expires_after(delay);
    co_await timer.async_wait(asio::use_awaitable);
    state->add(item);
  };
  asio::co_spawn(state_->executor, later(state_, item, delay), asio::detached);
}

void WorkQueue::forget(const NodePtr& item) {
  std::lock_guard lock(state_->mutex);
  state_->limiter.forget(item);
}

asio::awaitable<NodePtr> WorkQueue::get() {
  for (;;) {
    {
      std::lock_guard lock(state_->mutex);
      if (!state_->queue.empty()) {
        NodePtr item = std::move(state_->queue.front());
        state_->queue.pop_front();
        state_->processing.insert(item);
        state_->dirty.erase(item);
        co_return item;
      }
      if (state_->shutting_down) co_return nullptr;
    }
    // Every add leaves a wake-up unless plenty are pending, so an add while no worker looks is never lost.
    auto [error, unused] = co_await state_->wake_ups.async_receive(asio::experimental::as_tuple(asio::use_awaitable));
    (void)error, (void)unused;  // closed at shutdown: the loop sees shutting_down
  }
}

void WorkQueue::done(const NodePtr& item) {
  {
    std::lock_guard lock(state_->mutex);
    state_->processing.erase(item);
    if (!state_->dirty.contains(item) || state_->shutting_down) return;
    state_->queue.push_back(item);
  }
  state_->wake_ups.try_send(asio::error_code(), 0);
}

void WorkQueue::shut_down() {
  {
    std::lock_guard lock(state_->mutex);
    state_->shutting_down = true;
  }
  state_->wake_ups.close();
}

std::size_t WorkQueue::length() const {
  std::lock_guard lock(state_->mutex);
  return state_->queue.size();
}

}  // namespace kapi::controllers::garbage_collector
