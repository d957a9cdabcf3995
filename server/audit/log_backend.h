#pragma once
// The log backend behind --audit-log-path (k8s.io/apiserver/plugin/pkg/audit/log): one line per event, JSON
// (audit.k8s.io/v1, --audit-log-format=json) or the legacy text form, to the file (rotated as lumberjack rotates)
// or to standard output for "-". A failed write is apiserver_audit_error_total{plugin="log"}, logged, and answered
// false (which only a blocking-strict log passes on).
//
// Files are written on a thread of the backend's own, one batch after another, never on the reactor: the caller's
// coroutine waits for its batch without holding its thread.
#include "server/audit/backend.h"
#include "server/audit/rotating_file.h"

#include <asio/thread_pool.hpp>

#include <cstdint>
#include <functional>
#include <optional>

namespace kapi::audit {

enum class LogFormat { Json, Legacy };

struct LogBackendOptions {
  std::filesystem::path path;  // "-": standard output
  LogFormat format = LogFormat::Json;
  int max_size_mb = 0;  // 0: lumberjack's 100 MB
  int max_backups = 0;
  int max_age_days = 0;
  bool compress = false;
  // For tests: the maximum file size in bytes instead of max_size_mb, and the clock naming backups.
  std::optional<std::uint64_t> max_bytes;
  std::function<std::chrono::system_clock::time_point()> now;
};

class LogBackend final : public Backend {
 public:
  // Creates the file (and its folder) now, as kube's ensureLogFile does, so a bad path fails the start-up;
  // throws std::system_error naming the path.
  LogBackend(LogBackendOptions options, PluginErrors errors);
  ~LogBackend() override;

  asio::awaitable<bool> process_events(std::vector<Event> events) override;
  void run(asio::any_io_executor) override {}
  asio::awaitable<void> shutdown() override { co_return; }
  std::string name() const override { return "log"; }

 private:
  bool write(const std::vector<Event>& events);

  LogBackendOptions options_;
  PluginErrors errors_;
  std::optional<RotatingFile> file_;  // none: standard output
  asio::thread_pool writer_{1};
};

}  // namespace kapi::audit
