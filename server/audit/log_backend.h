#pragma once
// Where audit events go (kube's audit.Sink) and the log backend behind --audit-log-path, buffered as kube's
// batch mode is: a request only queues its event into a bounded buffer and never waits; a full buffer drops the
// event (counted in apiserver_audit_error_total{plugin="buffered"} and logged, as "audit buffer queue blocked").
// One writer thread of its own takes whatever has queued and writes it, one JSON line per event, to the file (with
// rotation) or to standard output for "-"; a failed write is apiserver_audit_error_total{plugin="log"}.
#include "base/log.h"
#include "server/audit/event.h"
#include "server/audit/rotating_file.h"
#include "server/metrics/registry.h"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

namespace kapi::audit {

class Sink {
 public:
  virtual ~Sink() = default;
  // Takes the event for writing; must not block.
  virtual void process_event(Event event) = 0;
};

struct LogBackendOptions {
  std::filesystem::path path;  // "-": standard output
  int max_size_mb = 0;         // 0: lumberjack's 100 MB
  int max_backups = 0;
  int max_age_days = 0;
  std::size_t buffer_size = 10000;
  // For tests: the maximum file size in bytes instead of max_size_mb, and the clock naming backups.
  std::optional<std::uint64_t> max_bytes;
  std::function<std::chrono::system_clock::time_point()> now;
};

class LogBackend final : public Sink {
 public:
  // Creates the file (and its folder) now, as kube's ensureLogFile does, so a bad path fails the start-up;
  // throws std::system_error naming the path.
  LogBackend(LogBackendOptions options, metrics::Registry& metrics, base::Logger& logger);
  ~LogBackend() override;  // shutdown()
  LogBackend(const LogBackend&) = delete;
  LogBackend& operator=(const LogBackend&) = delete;

  void process_event(Event event) override;

  // Starts the writer (kube's Backend.Run). Events queued before are kept.
  void run();
  // Writes everything queued, then stops the writer; later events are dropped. Idempotent.
  void shutdown();

 private:
  void write_loop();
  void write_batch(std::deque<Event>& batch);

  LogBackendOptions options_;
  metrics::Registry& metrics_;
  base::Logger& logger_;
  std::optional<RotatingFile> file_;  // none: standard output

  std::mutex mutex_;
  std::condition_variable queued_;
  std::deque<Event> queue_;
  bool stopping_ = false;
  std::thread writer_;
};

}  // namespace kapi::audit
