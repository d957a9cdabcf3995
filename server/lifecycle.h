#pragma once
// The server's lifecycle signals for graceful shutdown (the role of lifecycleSignals in k8s.io/apiserver):
// readiness, the wait group of in-flight requests, and the long-running requests to end when draining.
#include <asio/any_io_executor.hpp>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <unordered_map>

namespace kapi::server {

class Lifecycle {
 public:
  // ShutdownInitiated: /readyz fails from now on.
  void initiate_shutdown() { shutdown_initiated_ = true; }
  bool shutdown_initiated() const { return shutdown_initiated_; }
  // NotAcceptingNewRequest: the wait-group filter refuses requests from now on.
  void stop_accepting_requests() { not_accepting_ = true; }
  bool accepting_requests() const { return !not_accepting_; }

  // The wait group of non-long-running requests (WithWaitGroup).
  bool try_begin_request();
  void end_request();
  std::int64_t in_flight() const;

  // Long-running requests (watches) register how to end them cleanly; ending them happens on each request's
  // own executor.
  std::uint64_t add_long_running(asio::any_io_executor executor, std::function<void()> end);
  void remove_long_running(std::uint64_t id);
  void end_long_running_requests();
  std::size_t long_running_count() const;

 private:
  std::atomic<bool> shutdown_initiated_{false};
  std::atomic<bool> not_accepting_{false};
  mutable std::mutex mutex_;
  std::int64_t in_flight_ = 0;
  std::uint64_t next_id_ = 1;
  bool ending_long_running_ = false;
  std::unordered_map<std::uint64_t, std::pair<asio::any_io_executor, std::function<void()>>> long_running_;
};

}  // namespace kapi::server
