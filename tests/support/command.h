#pragma once
// Runs a shell command for a test (kubectl, etcdctl, openssl) and collects what it printed.
#include <sys/wait.h>

#include <cstdio>
#include <memory>
#include <string>

namespace kapi::test_support {

struct CommandResult {
  int exit_code = -1;  // -1 when the command could not run or was killed by a signal
  std::string output;  // stdout and stderr together
};

inline CommandResult run_command(const std::string& command) {
  CommandResult result;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen((command + " 2>&1").c_str(), "r"), ::pclose);
  if (!pipe) return result;
  char buffer[4096];
  while (std::size_t read = std::fread(buffer, 1, sizeof buffer, pipe.get())) result.output.append(buffer, read);
  const int status = ::pclose(pipe.release());
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

}  // namespace kapi::test_support
