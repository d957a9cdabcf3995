#pragma once
// klog-style leveled logging to stderr: "I1129 17:10:49.123456 <tid> file] message". One Logger per process,
// passed to what logs (no global logger); lines from concurrent threads never interleave.
#include <cstdio>
#include <mutex>
#include <string_view>

namespace kapi::base {

class Logger {
 public:
  explicit Logger(int verbosity = 0) : verbosity_(verbosity) {}
  int verbosity() const { return verbosity_; }
  bool enabled(int level) const { return level <= verbosity_; }
  void info(std::string_view message) { write('I', message); }
  void warning(std::string_view message) { write('W', message); }
  void error(std::string_view message) { write('E', message); }
  // Logs at info severity when the verbosity is at least `level` (klog's V(level)).
  void v(int level, std::string_view message) {
    if (enabled(level)) write('I', message);
  }

 private:
  void write(char severity, std::string_view message);
  int verbosity_;
  std::mutex mutex_;
};

}  // namespace kapi::base
