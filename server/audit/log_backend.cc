#include "server/audit/log_backend.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace kapi::audit {
namespace {

// Creates the folder (0700) and the file (0600) if missing, as kube-apiserver's ensureLogFile.
void ensure_log_file(const std::filesystem::path& path) {
  std::error_code error;
  if (path.has_parent_path()) {
    std::filesystem::create_directories(path.parent_path(), error);
    if (error) throw std::system_error(error, "ensureLogFile: mkdir " + path.parent_path().string());
    std::filesystem::permissions(path.parent_path(), std::filesystem::perms::owner_all, error);
  }
  int fd = ::open(path.c_str(), O_CREAT | O_APPEND | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "ensureLogFile: open " + path.string());
  ::close(fd);
}

void write_stdout(std::string_view data) {
  while (!data.empty()) {
    ssize_t written = ::write(STDOUT_FILENO, data.data(), data.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      throw std::system_error(errno, std::generic_category(), "write /dev/stdout");
    }
    data.remove_prefix(static_cast<std::size_t>(written));
  }
}

}  // namespace

LogBackend::LogBackend(LogBackendOptions options, metrics::Registry& metrics, base::Logger& logger)
    : options_(std::move(options)), metrics_(metrics), logger_(logger) {
  if (options_.path == "-") return;
  ensure_log_file(options_.path);
  RotationOptions rotation;
  rotation.path = options_.path;
  if (options_.max_bytes) rotation.max_bytes = *options_.max_bytes;
  else if (options_.max_size_mb > 0) rotation.max_bytes = static_cast<std::uint64_t>(options_.max_size_mb) << 20;
  rotation.max_backups = options_.max_backups;
  rotation.max_age_days = options_.max_age_days;
  if (options_.now) rotation.now = options_.now;
  file_.emplace(std::move(rotation));
}

LogBackend::~LogBackend() { shutdown(); }

void LogBackend::process_event(Event event) {
  {
    std::lock_guard lock(mutex_);
    if (!stopping_ && queue_.size() < options_.buffer_size) {
      queue_.push_back(std::move(event));
      queued_.notify_one();
      return;
    }
  }
  // audit.HandlePluginError for the buffered backend.
  metrics_.audit_errors.inc({"buffered"});
  logger_.error("Error in audit plugin 'buffered' affecting 1 audit events: audit buffer queue blocked\nImpacted events:\n" +
                to_json(event));
}

void LogBackend::run() {
  std::lock_guard lock(mutex_);
  if (writer_.joinable() || stopping_) return;
  writer_ = std::thread([this] { write_loop(); });
}

void LogBackend::shutdown() {
  std::unique_lock lock(mutex_);
  stopping_ = true;
  queued_.notify_all();
  if (!writer_.joinable()) {
    // Never ran: write what was queued here, so nothing accepted is lost.
    std::deque<Event> batch;
    batch.swap(queue_);
    lock.unlock();
    write_batch(batch);
    return;
  }
  std::thread writer = std::move(writer_);
  lock.unlock();
  writer.join();
}

void LogBackend::write_loop() {
  std::unique_lock lock(mutex_);
  while (true) {
    queued_.wait(lock, [this] { return !queue_.empty() || stopping_; });
    if (queue_.empty()) return;  // stopping, and all written
    std::deque<Event> batch;
    batch.swap(queue_);
    lock.unlock();
    write_batch(batch);
    lock.lock();
  }
}

void LogBackend::write_batch(std::deque<Event>& batch) {
  for (const auto& event : batch) {
    std::string line = to_json(event);
    line.push_back('\n');
    try {
      if (file_) file_->write(line);
      else write_stdout(line);
    } catch (const std::exception& error) {
      metrics_.audit_errors.inc({"log"});
      logger_.error(std::string("Error in audit plugin 'log' affecting 1 audit events: ") + error.what() +
                    "\nImpacted events:\n" + line);
    }
  }
}

}  // namespace kapi::audit
