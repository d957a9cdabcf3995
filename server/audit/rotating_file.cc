#include "server/audit/rotating_file.h"

#include <asio/post.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <ctime>
#include <future>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

namespace kapi::audit {
namespace {

namespace fs = std::filesystem;
using WallClock = std::chrono::system_clock;

constexpr std::string_view kBackupTimeFormat = "YYYY-MM-DDTHH-MM-SS.mmm";

std::system_error os_error(const std::string& what) { return {errno, std::generic_category(), what}; }

std::string format_backup_time(WallClock::time_point time) {
  auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(time.time_since_epoch()).count();
  std::time_t seconds = static_cast<std::time_t>(millis / 1000);
  std::tm utc{};
  ::gmtime_r(&seconds, &utc);
  char buffer[96];
  std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02dT%02d-%02d-%02d.%03d", utc.tm_year + 1900, utc.tm_mon + 1,
                utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, static_cast<int>(millis % 1000));
  return buffer;
}

std::optional<WallClock::time_point> parse_backup_time(std::string_view text) {
  if (text.size() != kBackupTimeFormat.size()) return std::nullopt;
  std::tm utc{};
  int millis = 0;
  char tail = 0;
  std::string copy(text);
  if (std::sscanf(copy.c_str(), "%4d-%2d-%2dT%2d-%2d-%2d.%3d%c", &utc.tm_year, &utc.tm_mon, &utc.tm_mday,
                  &utc.tm_hour, &utc.tm_min, &utc.tm_sec, &millis, &tail) != 7)
    return std::nullopt;
  utc.tm_year -= 1900;
  utc.tm_mon -= 1;
  return WallClock::from_time_t(::timegm(&utc)) + std::chrono::milliseconds(millis);
}

constexpr std::string_view kCompressSuffix = ".gz";

// compressLogFile: `source` gzipped into `source`.gz with the same mode, then removed; a failed attempt leaves
// the backup as it was.
void compress_backup(const fs::path& source) {
  const fs::path target = source.string() + std::string(kCompressSuffix);
  const int in = ::open(source.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return;
  struct stat info{};
  ::fstat(in, &info);
  const int out = ::open(target.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, info.st_mode & 07777);
  gzFile gz = out < 0 ? nullptr : ::gzdopen(out, "wb");
  bool ok = gz != nullptr;
  char buffer[64 * 1024];
  for (ssize_t read = 0; ok && (read = ::read(in, buffer, sizeof buffer)) != 0;) {
    if (read < 0 && errno == EINTR) continue;
    ok = read > 0 && ::gzwrite(gz, buffer, static_cast<unsigned>(read)) == static_cast<int>(read);
  }
  ::close(in);
  if (gz) ok = ::gzclose(gz) == Z_OK && ok;  // closes `out` too
  else if (out >= 0) ::close(out);
  std::error_code ignored;
  fs::remove(ok ? source : target, ignored);
}

// lumberjack's millRunOnce: the backups beyond max_backups (a backup and its .gz counting once) and those older
// than max_age_days removed, the others compressed when asked.
void mill_backups(const RotationOptions& options) {
  std::string extension = options.path.extension().string();
  std::string prefix = options.path.filename().string();
  prefix.resize(prefix.size() - extension.size());
  prefix += "-";
  fs::path directory = options.path.parent_path().empty() ? fs::path(".") : options.path.parent_path();

  struct Backup {
    fs::path path;
    WallClock::time_point time;
    bool compressed;
  };
  std::vector<Backup> backups;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(directory, error)) {
    if (!entry.is_regular_file(error)) continue;
    const std::string filename = entry.path().filename().string();
    std::string_view name = filename;
    const bool compressed = name.ends_with(kCompressSuffix);
    if (compressed) name.remove_suffix(kCompressSuffix.size());
    if (!name.starts_with(prefix) || !name.ends_with(extension) || name.size() < prefix.size() + extension.size())
      continue;
    auto time = parse_backup_time(name.substr(prefix.size(), name.size() - prefix.size() - extension.size()));
    if (time) backups.push_back({entry.path(), *time, compressed});
  }
  std::sort(backups.begin(), backups.end(), [](const Backup& a, const Backup& b) { return a.time > b.time; });

  std::vector<Backup> kept;
  std::vector<fs::path> doomed;
  std::vector<std::string> preserved;  // uncompressed names seen, newest first
  // The clock is read only when needed: a test's clock is not shared with this thread otherwise.
  const auto cutoff = options.max_age_days > 0 ? options.now() - std::chrono::hours(24) * options.max_age_days
                                               : WallClock::time_point::min();
  for (const Backup& backup : backups) {
    std::string name = backup.path.filename().string();
    if (backup.compressed) name.resize(name.size() - kCompressSuffix.size());
    if (std::find(preserved.begin(), preserved.end(), name) == preserved.end()) preserved.push_back(name);
    const bool too_many = options.max_backups > 0 && preserved.size() > static_cast<std::size_t>(options.max_backups);
    const bool too_old = options.max_age_days > 0 && backup.time < cutoff;
    if (too_many || too_old) doomed.push_back(backup.path);
    else kept.push_back(backup);
  }
  for (const auto& path : doomed) fs::remove(path, error);
  if (!options.compress) return;
  for (const Backup& backup : kept)
    if (!backup.compressed) compress_backup(backup.path);
}

}  // namespace

RotatingFile::RotatingFile(RotationOptions options) : options_(std::move(options)) {}

RotatingFile::~RotatingFile() {
  miller_.join();
  if (fd_ >= 0) ::close(fd_);
}

fs::path RotatingFile::backup_name(const fs::path& path, WallClock::time_point time) {
  std::string extension = path.extension().string();
  std::string stem = path.filename().string();
  stem.resize(stem.size() - extension.size());
  return path.parent_path() / (stem + "-" + format_backup_time(time) + extension);
}

void RotatingFile::write(std::string_view data) {
  if (data.size() > options_.max_bytes)
    throw std::length_error("write length " + std::to_string(data.size()) + " exceeds maximum file size " +
                            std::to_string(options_.max_bytes));
  if (fd_ < 0) open_existing_or_new(data.size());
  if (size_ + data.size() > options_.max_bytes) rotate();
  while (!data.empty()) {
    ssize_t written = ::write(fd_, data.data(), data.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      throw os_error("write " + options_.path.string());
    }
    size_ += static_cast<std::uint64_t>(written);
    data.remove_prefix(static_cast<std::size_t>(written));
  }
}

void RotatingFile::open_existing_or_new(std::size_t next_write) {
  mill();
  struct stat info{};
  if (::stat(options_.path.c_str(), &info) != 0) {
    if (errno != ENOENT) throw os_error("error getting log file info");
    open_new();
    return;
  }
  if (static_cast<std::uint64_t>(info.st_size) + next_write >= options_.max_bytes) {
    rotate();
    return;
  }
  fd_ = ::open(options_.path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd_ < 0) {
    open_new();  // lumberjack starts a new file when the existing one cannot be opened
    return;
  }
  size_ = static_cast<std::uint64_t>(info.st_size);
}

void RotatingFile::open_new() {
  std::error_code ignored;
  fs::create_directories(options_.path.parent_path().empty() ? fs::path(".") : options_.path.parent_path(), ignored);
  mode_t mode = 0600;
  struct stat info{};
  if (::stat(options_.path.c_str(), &info) == 0) {
    mode = info.st_mode & 07777;  // the backup keeps the name's old mode, the new file gets it too
    fs::path backup = backup_name(options_.path, options_.now());
    if (::rename(options_.path.c_str(), backup.c_str()) != 0) throw os_error("can't rename log file");
  }
  fd_ = ::open(options_.path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd_ < 0) throw os_error("can't open new logfile");
  size_ = 0;
}

void RotatingFile::rotate() {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
  open_new();
  mill();
}

void RotatingFile::wait_for_backups() {
  std::promise<void> done;
  asio::post(miller_, [&done] { done.set_value(); });
  done.get_future().wait();
}

void RotatingFile::mill() {
  if (options_.max_backups == 0 && options_.max_age_days == 0 && !options_.compress) return;
  asio::post(miller_, [options = options_] { mill_backups(options); });
}

}  // namespace kapi::audit
