// The real kubectl with the generated admin kubeconfig. /usr/bin/kubectl is a dispatcher that asks /version
// first and runs the bundled kubectl matching the server's minor version (1.32 for kapi).
#include "tests/integration/kapi_suite.h"

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>

namespace kapi::integration {
namespace {

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

class KubectlTest : public KapiSuite<KubectlTest> {
 protected:
  // Runs kubectl with a private HOME and cache dir (no discovery cache leaks between runs) and a time bound.
  CommandResult kubectl(const std::string& arguments) {
    const auto home = kapi().work_dir() / "kubectl-home";
    std::filesystem::create_directories(home);
    std::string command = "env HOME='" + home.string() + "' KUBECACHEDIR='" + (home / "cache").string() +
                          "' KUBECONFIG= timeout 60 /usr/bin/kubectl --kubeconfig '" +
                          kapi().admin_kubeconfig().string() + "' " + arguments + " 2>&1";
    CommandResult result;
    FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr) {
      ADD_FAILURE() << "popen failed: " << command;
      return result;
    }
    char buffer[4096];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) result.output.append(buffer, n);
    int status = ::pclose(pipe);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
  }

  void SetUp() override {
    KapiSuite::SetUp();
    ASSERT_TRUE(std::filesystem::exists("/usr/bin/kubectl")) << "kubectl is not installed (scripts/install-deps)";
    ASSERT_TRUE(std::filesystem::exists(kapi().admin_kubeconfig()));
  }
};

TEST_F(KubectlTest, VersionPrintsTheServerVersion) {
  CommandResult result = kubectl("version");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("Server Version: v1.32"), std::string::npos) << result.output;
}

TEST_F(KubectlTest, GetRawHealthz) {
  CommandResult result = kubectl("get --raw /healthz");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(result.output, "ok") << result.output;
}

}  // namespace
}  // namespace kapi::integration
