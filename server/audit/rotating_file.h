#pragma once
// The audit log file as kube-apiserver writes it through lumberjack: appended to, rotated when the next write
// would take it past its maximum size (the full file renamed to <name>-<UTC 2006-01-02T15-04-05.000>.<ext>), and
// old backups removed beyond --audit-log-maxbackup or older than --audit-log-maxage days, and with
// --audit-log-compress the backups gzipped (<backup>.gz). Blocking I/O: only the log backend's writer thread uses
// it. Removing and compressing backups (lumberjack's mill) runs on a thread of its own, as lumberjack's runs in a
// goroutine, so that compressing a large backup never holds up the writes.
#include <asio/thread_pool.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string_view>

namespace kapi::audit {

struct RotationOptions {
  std::filesystem::path path;
  std::uint64_t max_bytes = 100ull << 20;  // lumberjack's default when --audit-log-maxsize is 0
  int max_backups = 0;                     // 0: keep all
  int max_age_days = 0;                    // 0: keep all
  bool compress = false;                   // gzip the backups
  std::function<std::chrono::system_clock::time_point()> now = [] { return std::chrono::system_clock::now(); };
};

class RotatingFile {
 public:
  explicit RotatingFile(RotationOptions options);
  ~RotatingFile();
  RotatingFile(const RotatingFile&) = delete;
  RotatingFile& operator=(const RotatingFile&) = delete;

  // Throws std::system_error when the file cannot be opened, rotated or written, std::length_error when one
  // write alone is larger than the maximum size ("write length N exceeds maximum file size M").
  void write(std::string_view data);

  // For tests: returns once the removals and compressions asked for so far are done.
  void wait_for_backups();

  // The name a backup made at `time` gets.
  static std::filesystem::path backup_name(const std::filesystem::path& path, std::chrono::system_clock::time_point time);

 private:
  void open_existing_or_new(std::size_t next_write);
  void open_new();
  void rotate();
  void mill();  // after each rotation, and once at the first write

  RotationOptions options_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
  asio::thread_pool miller_{1};  // joined before the file closes: a backup is never left half compressed
};

}  // namespace kapi::audit
