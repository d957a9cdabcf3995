#pragma once
// The server's own cost during a run, read from /proc/<pid>: CPU seconds (utime + stime) and resident memory,
// sampled every 50 ms so a transient peak (a LIST's encoding buffers) is seen, not only the steady state.
#include <asio/any_io_executor.hpp>
#include <asio/awaitable.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <sys/types.h>

namespace kapi::bench {

struct ProcessSnapshot {
  double cpu_seconds = 0;
  std::uint64_t rss_bytes = 0;
  std::uint64_t peak_rss_bytes = 0;  // VmHWM: the highest since the process started
};

// Nullopt once the process is gone (or for pid 0).
std::optional<ProcessSnapshot> read_process(pid_t pid);

struct ServerUsage {
  double cpu_seconds = 0;                // during the sampled window
  std::uint64_t rss_before_bytes = 0;    // at the window's start
  std::uint64_t rss_after_bytes = 0;     // at its end: the steady state
  std::uint64_t rss_peak_bytes = 0;      // highest sample in the window
};

// Samples a process in the background from start() until stop(). Does nothing for pid 0.
class ServerSampler {
 public:
  ServerSampler(asio::any_io_executor executor, pid_t pid);
  ~ServerSampler();
  void start();
  ServerUsage stop();
  bool enabled() const noexcept { return pid_ != 0; }

  struct State;  // shared with the sampling coroutine, which may outlive a stop()

 private:
  asio::any_io_executor executor_;
  pid_t pid_;
  std::shared_ptr<State> state_;
};

}  // namespace kapi::bench
