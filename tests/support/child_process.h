#pragma once
// Starting a server a test needs as a child process (the sample extension API server, the sample webhook): its
// own process group (a terminal's Ctrl-C is for the test runner), killed when the test process dies, stdout
// written afresh to a file (so a "serving on" line read is this start's) and stderr appended to another.
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

namespace kapi::test_support {

// Whether a start keeps the stderr of earlier starts (the sample servers restart within one test) or begins afresh.
enum class StderrFile { kAppend, kTruncate };

// Starts `arguments` (the program first); returns its pid. Throws std::system_error naming `what`.
inline pid_t spawn_child(std::vector<std::string> arguments, const std::filesystem::path& out_path,
                         const std::filesystem::path& err_path, const std::string& what,
                         StderrFile stderr_file = StderrFile::kAppend) {
  std::vector<char*> argv;
  for (auto& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  // Prepared before fork: between fork and exec only async-signal-safe calls.
  int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const int err_mode = stderr_file == StderrFile::kAppend ? O_APPEND : O_TRUNC;
  int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | err_mode | O_CLOEXEC, 0644);
  if (out < 0 || err < 0) {
    int error = errno;
    if (out >= 0) ::close(out);
    if (err >= 0) ::close(err);
    throw std::system_error(error, std::system_category(), "open " + what + " output files");
  }
  const pid_t parent = ::getpid();
  const pid_t child = ::fork();
  if (child == 0) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // no server outlives a crashed test
    if (::getppid() != parent) ::_exit(1);
    ::dup2(out, STDOUT_FILENO);
    ::dup2(err, STDERR_FILENO);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  int fork_error = errno;
  ::close(out);
  ::close(err);
  if (child < 0) throw std::system_error(fork_error, std::system_category(), "fork");
  ::setpgid(child, child);  // whichever of parent and child runs first, the group exists
  return child;
}

// The port of the first "<serving_line><host>:<port>" line of `out`, or 0 while there is none.
inline int serving_port(const std::string& out, std::string_view serving_line) {
  const auto at = out.find(serving_line);
  if (at == std::string::npos) return 0;
  const auto end = out.find('\n', at);
  const auto colon = end == std::string::npos ? std::string::npos : out.rfind(':', end);
  if (colon == std::string::npos || colon < at) return 0;
  return std::stoi(out.substr(colon + 1, end - colon - 1));
}

// The whole of a file a child wrote ("" while it does not exist).
inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

// The executable that `variable` names: meson test sets it to the build's own.
inline std::filesystem::path binary_from_environment(const char* variable) {
  const char* binary = std::getenv(variable);
  if (binary == nullptr || *binary == '\0')
    throw std::runtime_error(std::string(variable) + " is not set: run the integration tests through meson test");
  return binary;
}

}  // namespace kapi::test_support
