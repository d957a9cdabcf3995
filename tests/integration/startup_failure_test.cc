// A start-up that fails ends kapi with exit code 1 and says why, never a hang. Flags found wrong once the APIs and
// their watch caches exist (authorization, priority and fairness, the listener) used to leave kapi waiting in the
// caches' destructors for a reactor that had never run.
#include "tests/support/command.h"
#include "tests/support/kapi_process.h"
#include "tests/support/temp_dir.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace kapi::integration::startup_failure_test {
namespace {

using test_support::CommandResult;
using test_support::run_command;

// kapi with `flags` on a fresh data dir, given 60 s to exit (`timeout` answers 124 when it hangs).
CommandResult start_kapi(const std::vector<std::string>& flags) {
  test_support::TempDir dir("kapi-startup-failure");
  std::string command = "timeout 60 " + std::string(std::getenv("KAPI_BINARY")) + " --data-dir=" +
                        (dir.path() / "data").string();
  for (const std::string& flag : flags) command += " " + flag;
  return run_command(command);
}

std::string free_port_flag() { return "--secure-port=" + std::to_string(test_support::pick_free_port()); }

TEST(StartupFailureTest, AnUnknownAuthorizationModeExitsOne) {
  const CommandResult result = start_kapi({free_port_flag(), "--authorization-mode=Bogus"});
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("invalid authorization config"), std::string::npos) << result.output;
}

TEST(StartupFailureTest, NoSeatsForPriorityAndFairnessExitsOne) {
  const CommandResult result =
      start_kapi({free_port_flag(), "--max-requests-inflight=0", "--max-mutating-requests-inflight=0"});
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("must be positive"), std::string::npos) << result.output;
}

TEST(StartupFailureTest, APortInUseExitsOne) {
  // Another process's listener on the port kapi is told to use.
  const int taken = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(taken, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  ASSERT_EQ(::bind(taken, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(::listen(taken, 1), 0);
  socklen_t length = sizeof address;
  ASSERT_EQ(::getsockname(taken, reinterpret_cast<sockaddr*>(&address), &length), 0);

  const CommandResult result =
      start_kapi({"--bind-address=127.0.0.1", "--secure-port=" + std::to_string(ntohs(address.sin_port))});
  ::close(taken);
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("failed to listen"), std::string::npos) << result.output;
}

}  // namespace
}  // namespace kapi::integration::startup_failure_test
