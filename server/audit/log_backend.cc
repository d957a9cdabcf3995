#include "server/audit/log_backend.h"

#include "base/offload.h"

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

LogBackend::LogBackend(LogBackendOptions options, PluginErrors errors)
    : options_(std::move(options)), errors_(errors) {
  if (options_.path == "-") return;
  ensure_log_file(options_.path);
  RotationOptions rotation;
  rotation.path = options_.path;
  if (options_.max_bytes) rotation.max_bytes = *options_.max_bytes;
  else if (options_.max_size_mb > 0) rotation.max_bytes = static_cast<std::uint64_t>(options_.max_size_mb) << 20;
  rotation.max_backups = options_.max_backups;
  rotation.max_age_days = options_.max_age_days;
  rotation.compress = options_.compress;
  if (options_.now) rotation.now = options_.now;
  file_.emplace(std::move(rotation));
}

// Writes still queued on the thread finish before the file closes.
LogBackend::~LogBackend() { writer_.join(); }

asio::awaitable<bool> LogBackend::process_events(std::vector<Event> events) {
  auto writing = base::offload(writer_.get_executor(), [this, events = std::move(events)] { return write(events); });
  co_return co_await std::move(writing);
}

bool LogBackend::write(const std::vector<Event>& events) {
  bool written = true;
  for (const Event& event : events) {
    std::string line = options_.format == LogFormat::Legacy ? to_legacy_line(event) : to_json(event);
    line.push_back('\n');
    try {
      if (file_) file_->write(line);
      else write_stdout(line);
    } catch (const std::exception& error) {
      errors_.report("log", error.what(), {&event, 1});
      written = false;
    }
  }
  return written;
}

}  // namespace kapi::audit
