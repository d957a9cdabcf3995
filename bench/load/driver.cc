#include "bench/load/driver.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/concurrent_channel.hpp>
#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>

#include <algorithm>
#include <exception>
#include <memory>
#include <vector>

namespace kapi::bench {
namespace {

using Clock = std::chrono::steady_clock;

// Shared by the workers of one run; everything runs on one thread, so no locking.
struct RunState {
  LoadOptions options;
  Operation operation;
  Clock::time_point start;
  Clock::time_point measure_from;
  Clock::time_point end;
  LoadResult result;
  std::uint64_t next_sequence = 0;
  std::size_t in_flight = 0;
  std::vector<std::size_t> free_slots;

  bool limit_reached() const { return options.operation_limit != 0 && next_sequence >= options.operation_limit; }

  // Runs one operation whose latency counts from `scheduled`; only operations scheduled after the warm-up count.
  asio::awaitable<Outcome> run_one(std::size_t slot, Clock::time_point scheduled) {
    const std::uint64_t sequence = next_sequence++;
    Outcome outcome;
    std::string error;
    try {
      outcome = co_await operation(slot, sequence);
    } catch (const std::exception& e) {
      outcome.status = 0;
      error = e.what();
    }
    const auto done = Clock::now();
    if (scheduled < measure_from || done > end + std::chrono::seconds(30)) co_return outcome;
    ++result.outcomes[outcome.status];
    result.bytes_received += outcome.bytes_received;
    result.bytes_sent += outcome.bytes_sent;
    if (outcome.status >= 200 && outcome.status < 300) {
      ++result.successes;
      const auto micros = static_cast<std::uint64_t>(
          std::chrono::duration_cast<std::chrono::microseconds>(done - scheduled).count());
      result.latency.record_micros(micros);
      result.latency_over_time.record_micros(std::chrono::duration<double>(done - measure_from).count(), micros);
      auto interval = static_cast<std::size_t>((done - measure_from) / kThroughputInterval);
      if (result.completions_per_interval.size() <= interval) result.completions_per_interval.resize(interval + 1);
      ++result.completions_per_interval[interval];
    } else {
      ++result.failures;
      if (result.first_error.empty())
        result.first_error = error.empty() ? "HTTP status " + std::to_string(outcome.status) : error;
    }
    co_return outcome;
  }
};

asio::awaitable<void> closed_loop_worker(std::shared_ptr<RunState> state, std::size_t slot) {
  asio::steady_timer backoff(co_await asio::this_coro::executor);
  while (Clock::now() < state->end && !state->limit_reached()) {
    const Outcome outcome = co_await state->run_one(slot, Clock::now());
    if (state->options.honor_retry_after && outcome.retry_after_seconds > 0) {
      backoff.expires_at(std::min(Clock::now() + std::chrono::seconds(outcome.retry_after_seconds), state->end));
      co_await backoff.async_wait(asio::use_awaitable);
    }
  }
  --state->in_flight;
}

asio::awaitable<void> open_loop_operation(std::shared_ptr<RunState> state, std::size_t slot,
                                          Clock::time_point scheduled) {
  (void)co_await state->run_one(slot, scheduled);
  state->free_slots.push_back(slot);
  --state->in_flight;
}

// Starts every arrival that is due, then sleeps until the next one; arrivals are batched when the timer is late.
asio::awaitable<void> open_loop_arrivals(std::shared_ptr<RunState> state, asio::any_io_executor executor) {
  asio::steady_timer timer(executor);
  const auto gap = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / state->options.rate));
  std::uint64_t arrivals = 0;
  for (;;) {
    const auto scheduled = state->start + gap * static_cast<Clock::rep>(arrivals);
    if (scheduled >= state->end || state->limit_reached()) break;
    if (scheduled > Clock::now()) {
      timer.expires_at(scheduled);
      co_await timer.async_wait(asio::use_awaitable);
    }
    ++arrivals;
    if (state->free_slots.empty()) {
      if (scheduled >= state->measure_from) ++state->result.missed_arrivals;
      continue;
    }
    const std::size_t slot = state->free_slots.back();
    state->free_slots.pop_back();
    ++state->in_flight;
    asio::co_spawn(executor, open_loop_operation(state, slot, scheduled), asio::detached);
  }
}

}  // namespace

void merge_into(LoadResult& into, const LoadResult& other) {
  into.latency.merge(other.latency);
  into.latency_over_time.merge(other.latency_over_time);
  for (const auto& [status, count] : other.outcomes) into.outcomes[status] += count;
  into.successes += other.successes;
  into.failures += other.failures;
  into.missed_arrivals += other.missed_arrivals;
  into.bytes_received += other.bytes_received;
  into.bytes_sent += other.bytes_sent;
  into.measured_seconds = std::max(into.measured_seconds, other.measured_seconds);
  if (into.completions_per_interval.size() < other.completions_per_interval.size())
    into.completions_per_interval.resize(other.completions_per_interval.size());
  for (std::size_t i = 0; i < other.completions_per_interval.size(); ++i)
    into.completions_per_interval[i] += other.completions_per_interval[i];
  if (into.first_error.empty()) into.first_error = other.first_error;
}

asio::awaitable<LoadResult> run_load(asio::any_io_executor executor, LoadOptions options, Operation operation,
                                     ProgressCallback progress) {
  auto state = std::make_shared<RunState>();
  state->options = options;
  state->operation = std::move(operation);
  state->start = Clock::now();
  state->measure_from = state->start + options.warmup;
  state->end = state->measure_from + options.duration;

  bool arrivals_done = options.mode == LoadMode::closed;
  if (options.mode == LoadMode::closed) {
    state->in_flight = options.concurrency;
    for (std::size_t slot = 0; slot < options.concurrency; ++slot)
      asio::co_spawn(executor, closed_loop_worker(state, slot), asio::detached);
  } else {
    for (std::size_t slot = options.concurrency; slot > 0; --slot) state->free_slots.push_back(slot - 1);
    asio::co_spawn(executor, open_loop_arrivals(state, executor), [&arrivals_done](std::exception_ptr) {
      arrivals_done = true;
    });
  }

  asio::steady_timer timer(executor);
  auto next_progress = state->start;
  while (!arrivals_done || state->in_flight > 0) {
    timer.expires_after(std::chrono::milliseconds(20));
    co_await timer.async_wait(asio::use_awaitable);
    if (progress && Clock::now() >= next_progress) {
      progress(std::chrono::duration<double>(Clock::now() - state->start).count(), state->result);
      next_progress += std::chrono::milliseconds(500);
    }
  }
  const auto measured_until = std::min(Clock::now(), state->end);
  state->result.measured_seconds =
      std::max(0.0, std::chrono::duration<double>(measured_until - state->measure_from).count());
  if (options.operation_limit != 0)  // a fill run ends when its count is done, usually well before `end`
    state->result.measured_seconds = std::chrono::duration<double>(Clock::now() - state->measure_from).count();
  co_return std::move(state->result);
}

asio::awaitable<LoadResult> run_load_on(std::vector<asio::any_io_executor> executors, LoadOptions options,
                                        OperationFactory make_operation, ProgressCallback progress) {
  const std::size_t parts = std::max<std::size_t>(1, std::min(executors.size(), options.concurrency));
  if (parts == 1) {
    Operation operation = make_operation(executors.front(), 0);
    co_return co_await run_load(executors.front(), options, std::move(operation), std::move(progress));
  }
  std::vector<LoadResult> results(parts);
  std::vector<std::exception_ptr> failures(parts);
  // Each part reports here when it is done, from its own thread.
  asio::experimental::concurrent_channel<void(std::error_code, std::size_t)> finished(
      co_await asio::this_coro::executor, parts);
  for (std::size_t part = 0; part < parts; ++part) {
    LoadOptions share = options;
    share.concurrency = options.concurrency / parts + (part < options.concurrency % parts ? 1 : 0);
    share.rate = options.rate / static_cast<double>(parts);
    if (options.operation_limit != 0)
      share.operation_limit = options.operation_limit / parts + (part < options.operation_limit % parts ? 1 : 0);
    Operation operation = make_operation(executors[part], part);
    Operation numbered = [operation = std::move(operation), part, parts](std::size_t slot, std::uint64_t sequence) {
      return operation(slot, sequence * parts + part);
    };
    ProgressCallback reports = part == 0 ? progress : nullptr;
    asio::co_spawn(executors[part], run_load(executors[part], share, std::move(numbered), std::move(reports)),
                   [&, part](std::exception_ptr failure, LoadResult result) {
                     failures[part] = failure;
                     results[part] = std::move(result);
                     finished.try_send(std::error_code{}, part);
                   });
  }
  for (std::size_t done = 0; done < parts; ++done) {
    auto next = finished.async_receive(asio::use_awaitable);
    co_await std::move(next);
  }
  for (const std::exception_ptr& failure : failures) {
    if (failure) std::rethrow_exception(failure);
  }
  LoadResult merged = std::move(results.front());
  for (std::size_t part = 1; part < parts; ++part) merge_into(merged, results[part]);
  co_return merged;
}

}  // namespace kapi::bench
