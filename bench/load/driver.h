#pragma once
// Drives an operation under load and measures it. Closed loop: `concurrency` workers, each issuing its next
// operation as soon as the last one finished (throughput is the result). Open loop: operations start at a fixed
// arrival rate whatever the server does, latency counted from the scheduled start, so a stalled server shows up
// as latency rather than as fewer requests (no coordinated omission). Warm-up operations run but are not counted.
#include "bench/load/histogram.h"

#include <asio/any_io_executor.hpp>
#include <asio/awaitable.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace kapi::bench {

// status: the HTTP status, or 0 for a network error. Only 2xx count as successes.
struct Outcome {
  int status = 0;
  int retry_after_seconds = 0;  // the server asked to wait this long (429 Retry-After)
  std::size_t bytes_received = 0;
  std::size_t bytes_sent = 0;
};

// `slot` is in [0, concurrency): at most one operation runs per slot at a time, so a scenario can keep one
// connection per slot. `sequence` numbers operations from 0 across the whole run.
using Operation = std::function<asio::awaitable<Outcome>(std::size_t slot, std::uint64_t sequence)>;

enum class LoadMode { closed, open };

struct LoadOptions {
  LoadMode mode = LoadMode::closed;
  std::size_t concurrency = 64;  // closed: workers; open: most operations in flight
  double rate = 1000;            // open: operations started per second
  std::chrono::milliseconds warmup{2000};
  std::chrono::milliseconds duration{10000};  // measured time, after the warm-up
  std::uint64_t operation_limit = 0;          // stops after this many (0: no limit); used to fill stores
  // Closed loop: a worker told Retry-After waits that long before its next operation, as client-go does.
  bool honor_retry_after = false;
};

constexpr std::chrono::milliseconds kThroughputInterval{250};

struct LoadResult {
  LatencyHistogram latency;                      // successful operations only
  LatencySeries latency_over_time;               // the same, by the second they completed in
  std::map<int, std::uint64_t> outcomes;         // status → count, 0 = network error
  std::uint64_t successes = 0;
  std::uint64_t failures = 0;
  std::uint64_t missed_arrivals = 0;             // open loop: arrivals with every slot busy, never sent
  std::uint64_t bytes_received = 0;
  std::uint64_t bytes_sent = 0;
  double measured_seconds = 0;
  std::vector<std::uint64_t> completions_per_interval;  // throughput over time, kThroughputInterval each
  std::string first_error;
};

// Adds `other`'s figures to `into` (runs measured over the same span: measured_seconds is the longer of the two).
void merge_into(LoadResult& into, const LoadResult& other);

// Called about twice a second while running (elapsed since start including warm-up, the result so far).
using ProgressCallback = std::function<void(double elapsed_seconds, const LoadResult&)>;

asio::awaitable<LoadResult> run_load(asio::any_io_executor executor, LoadOptions options, Operation operation,
                                     ProgressCallback progress = {});

// The operation one reactor runs (`part` of how many run_load_on spreads the load over): its connections live on
// `executor`, and whatever it keeps that is not thread-safe (a random generator) is its own.
using OperationFactory = std::function<Operation(asio::any_io_executor executor, std::size_t part)>;

// run_load spread over reactors of their own (one thread each), so that the harness can use every core it is
// given: the slots and the arrival rate are shared out evenly, a part's sequence numbers are interleaved with the
// others' (sequence * parts + part, unique across the run), and the parts' results are merged. Progress is
// reported by the first part, for its share. With one executor it is run_load.
asio::awaitable<LoadResult> run_load_on(std::vector<asio::any_io_executor> executors, LoadOptions options,
                                        OperationFactory make_operation, ProgressCallback progress = {});

}  // namespace kapi::bench
