#include "server/audit/buffered_backend.h"

#include "base/sleep.h"
#include "base/wake_signal.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/post.hpp>
#include <asio/strand.hpp>
#include <asio/use_awaitable.hpp>

#include <algorithm>
#include <deque>
#include <mutex>
#include <optional>

namespace kapi::audit {
namespace {

using Clock = std::chrono::steady_clock;

// client-go's token bucket (flowcontrol.NewTokenBucketRateLimiter): full at first, refilled at qps, each batch
// takes a token or waits for one.
class TokenBucket {
 public:
  TokenBucket(double qps, int burst) : qps_(qps), burst_(burst), tokens_(burst) {}

  // How long to wait before the next batch may go; takes its token.
  Clock::duration reserve(Clock::time_point now) {
    if (last_ != Clock::time_point{})
      tokens_ = std::min<double>(burst_, tokens_ + std::chrono::duration<double>(now - last_).count() * qps_);
    last_ = now;
    tokens_ -= 1;
    if (tokens_ >= 0) return Clock::duration::zero();
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(-tokens_ / qps_));
  }

 private:
  double qps_;
  int burst_;
  double tokens_;
  Clock::time_point last_{};
};

}  // namespace

struct BufferedBackend::State {
  State(std::shared_ptr<Backend> delegate_, BatchConfig config_, PluginErrors errors_)
      : delegate(std::move(delegate_)), config(config_), errors(errors_) {}

  const std::shared_ptr<Backend> delegate;
  const BatchConfig config;
  const PluginErrors errors;

  std::mutex mutex;  // the queue and `stopping`, shared by every request's thread
  std::deque<Event> queue;
  bool stopping = false;

  // On the strand only.
  std::optional<asio::strand<asio::any_io_executor>> strand;
  std::optional<base::WakeSignal> wake;  // the sender: a full batch queued, a batch sent, or stopping
  std::optional<base::WakeSignal> sender_done;
  std::size_t in_flight = 0;
  bool sender_finished = false;

};

namespace {

void wake_sender(const std::shared_ptr<BufferedBackend::State>& state) {
  if (state->strand) asio::post(*state->strand, [state] { state->wake->notify(); });
}

std::vector<Event> take_batch(BufferedBackend::State& state) {
  std::lock_guard lock(state.mutex);
  const std::size_t count = std::min(state.queue.size(), static_cast<std::size_t>(state.config.max_batch_size));
  std::vector<Event> batch(std::make_move_iterator(state.queue.begin()),
                           std::make_move_iterator(state.queue.begin() + static_cast<std::ptrdiff_t>(count)));
  state.queue.erase(state.queue.begin(), state.queue.begin() + static_cast<std::ptrdiff_t>(count));
  return batch;
}

asio::awaitable<void> deliver(std::shared_ptr<BufferedBackend::State> state, std::vector<Event> batch) {
  try {
    auto processing = state->delegate->process_events(std::move(batch));
    co_await std::move(processing);
  } catch (const std::exception& error) {
    state->errors.report("buffered", error.what(), {});
  }
  --state->in_flight;
  state->wake->notify();
}

// processIncomingEvents and the drain after stop: collect, throttle, hand over; then wait for what is in flight.
// A zero max_batch_wait sends whatever has queued as soon as the sender is free (kube's timer firing at once,
// without its spinning).
asio::awaitable<void> send_batches(std::shared_ptr<BufferedBackend::State> state) {
  const BatchConfig& config = state->config;
  const bool immediate = config.max_batch_wait <= Clock::duration::zero();
  const auto max_batch_size = static_cast<std::size_t>(config.max_batch_size);
  TokenBucket throttle(config.throttle_qps, config.throttle_burst);
  auto deadline = Clock::now() + config.max_batch_wait;
  for (;;) {
    std::size_t queued;
    bool stopping;
    {
      std::lock_guard lock(state->mutex);
      queued = state->queue.size();
      stopping = state->stopping;
    }
    const bool due = queued >= max_batch_size || stopping ||
                     (queued > 0 && (immediate || Clock::now() >= deadline));
    if (!due) {
      // An empty period: the timer starts over, as kube resets it for every batch it collects.
      if (Clock::now() >= deadline) deadline = Clock::now() + config.max_batch_wait;
      auto waiting = state->wake->wait_until(immediate ? Clock::time_point::max() : deadline);
      co_await std::move(waiting);
      continue;
    }
    if (queued == 0) break;  // stopping, and everything handed over
    deadline = Clock::now() + config.max_batch_wait;
    std::vector<Event> batch = take_batch(*state);
    if (config.throttle_enable) {
      if (auto pause = throttle.reserve(Clock::now()); pause > Clock::duration::zero()) {
        auto sleeping = base::sleep_for(pause);
        co_await std::move(sleeping);
      }
    }
    ++state->in_flight;
    if (config.async_delegate) {
      asio::co_spawn(*state->strand, deliver(state, std::move(batch)), asio::detached);
    } else {
      auto delivering = deliver(state, std::move(batch));
      co_await std::move(delivering);
    }
  }
  while (state->in_flight > 0) {
    auto waiting = state->wake->wait();
    co_await std::move(waiting);
  }
  state->sender_finished = true;
  state->sender_done->notify();
}

asio::awaitable<void> sender_finished(std::shared_ptr<BufferedBackend::State> state) {
  while (!state->sender_finished) {
    auto waiting = state->sender_done->wait();
    co_await std::move(waiting);
  }
}

}  // namespace

BufferedBackend::BufferedBackend(std::shared_ptr<Backend> delegate, BatchConfig config, PluginErrors errors)
    : state_(std::make_shared<State>(std::move(delegate), config, errors)) {}

BufferedBackend::~BufferedBackend() {
  std::lock_guard lock(state_->mutex);
  state_->stopping = true;
}

asio::awaitable<bool> BufferedBackend::process_events(std::vector<Event> events) {
  std::size_t dropped_from = events.size();
  bool wake = false;
  const BatchConfig& config = state_->config;
  const bool immediate = config.max_batch_wait <= Clock::duration::zero();
  {
    std::lock_guard lock(state_->mutex);
    for (std::size_t i = 0; i < events.size(); ++i) {
      if (state_->stopping || state_->queue.size() >= static_cast<std::size_t>(config.buffer_size)) {
        dropped_from = i;
        break;
      }
      state_->queue.push_back(std::move(events[i]));
      // One wake-up per batch, not one per event.
      const std::size_t queued = state_->queue.size();
      wake = wake || queued == static_cast<std::size_t>(config.max_batch_size) || (immediate && queued == 1);
    }
  }
  if (wake) wake_sender(state_);
  if (dropped_from < events.size())
    state_->errors.report("buffered", "audit buffer queue blocked", std::span(events).subspan(dropped_from));
  co_return true;
}

void BufferedBackend::run(asio::any_io_executor executor) {
  if (state_->strand) return;
  state_->strand.emplace(asio::make_strand(executor));
  state_->wake.emplace(*state_->strand);
  state_->sender_done.emplace(*state_->strand);
  state_->delegate->run(executor);
  asio::co_spawn(*state_->strand, send_batches(state_), asio::detached);
}

asio::awaitable<void> BufferedBackend::shutdown() {
  {
    std::lock_guard lock(state_->mutex);
    state_->stopping = true;
  }
  if (state_->strand) {
    wake_sender(state_);
    auto finishing = asio::co_spawn(*state_->strand, sender_finished(state_), asio::use_awaitable);
    co_await std::move(finishing);
    // Nothing runs on the strand any more (stopping queues nothing, so nothing wakes the sender): its timers and
    // the strand itself go now, so the backend may outlive the reactor they belong to.
    auto releasing = asio::co_spawn(
        *state_->strand,
        [state = state_]() -> asio::awaitable<void> {
          state->wake.reset();
          state->sender_done.reset();
          co_return;
        },
        asio::use_awaitable);
    co_await std::move(releasing);
    state_->strand.reset();
  }
  auto shutting_down = state_->delegate->shutdown();
  co_await std::move(shutting_down);
}

std::string BufferedBackend::name() const { return "buffered<" + state_->delegate->name() + ">"; }

}  // namespace kapi::audit
