#include "base/log.h"

#include <chrono>
#include <ctime>
#include <unistd.h>

namespace kapi::base {

void Logger::write(char severity, std::string_view message) {
  auto now = std::chrono::system_clock::now();
  std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  auto micros = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() % 1000000;
  std::tm tm{};
  localtime_r(&seconds, &tm);
  std::lock_guard lock(mutex_);
  std::fprintf(stderr, "%c%02d%02d %02d:%02d:%02d.%06lld %7d kapi] %.*s\n", severity, tm.tm_mon + 1, tm.tm_mday,
               tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<long long>(micros), static_cast<int>(getpid()),
               static_cast<int>(message.size()), message.data());
}

}  // namespace kapi::base
