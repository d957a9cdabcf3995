#pragma once
// Waiting for a child process a test started (kapi, the sample extension API server): its exit code as a shell
// reports it, after it ends on its own or is killed.
#include <sys/types.h>
#include <sys/wait.h>

#include <cerrno>
#include <chrono>
#include <optional>
#include <system_error>
#include <thread>

namespace kapi::test_support {

// The exit code, or 128 + the signal that ended it.
inline int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

// Waits for `pid` to end (it has been told to: SIGKILL) and returns its exit code.
inline int reap(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return exit_code_of(status);
}

// Waits up to `bound` for `pid` to end; its exit code, or std::nullopt while it still runs.
inline std::optional<int> reap_within(pid_t pid, std::chrono::milliseconds bound) {
  const auto deadline = std::chrono::steady_clock::now() + bound;
  for (;;) {
    int status = 0;
    const pid_t reaped = ::waitpid(pid, &status, WNOHANG);
    if (reaped == pid) return exit_code_of(status);
    if (reaped < 0 && errno != EINTR) throw std::system_error(errno, std::system_category(), "waitpid");
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace kapi::test_support
