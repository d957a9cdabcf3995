// kapi-bench's kubeconfig reading: the credentials client-go takes from a user entry (certificate and key, token,
// tokenFile, an exec plugin), so the bench can load any cluster people reach with kubectl.
#include "bench/client/kubeconfig.h"
#include "tests/support/temp_dir.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace kapi::bench::kubeconfig_test {
namespace {

class BenchKubeconfigTest : public ::testing::Test {
 protected:
  // A kubeconfig whose one user is `user` (YAML, indented under "user:"), against a cluster that skips TLS checks.
  std::string kubeconfig(const std::string& user) {
    const auto path = dir_.path() / "config";
    std::ofstream(path) << "apiVersion: v1\nkind: Config\ncurrent-context: bench\n"
                           "clusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:6443\n"
                           "    insecure-skip-tls-verify: true\n"
                           "contexts:\n- name: bench\n  context:\n    cluster: c\n    user: u\n"
                           "users:\n- name: u\n  user:\n" << user;
    return path.string();
  }
  void write(const std::string& name, const std::string& text) { std::ofstream(dir_.path() / name) << text; }

  test_support::TempDir dir_{"kapi-bench-kubeconfig"};
};

TEST_F(BenchKubeconfigTest, ABearerTokenIsSentAsIs) {
  const auto credentials = load_kubeconfig(kubeconfig("    token: abc.def\n"));
  EXPECT_EQ(credentials.server, "https://127.0.0.1:6443");
  EXPECT_EQ(credentials.token, "abc.def");
  EXPECT_TRUE(credentials.ca_pem.empty());
  EXPECT_TRUE(credentials.client_cert_pem.empty());
}

TEST_F(BenchKubeconfigTest, ATokenFileIsReadRelativeToTheKubeconfigWithoutItsNewline) {
  write("token", "from-file\n");
  EXPECT_EQ(load_kubeconfig(kubeconfig("    tokenFile: token\n")).token, "from-file");
}

// As kubectl runs it: args and env added, KUBERNETES_EXEC_INFO set, the ExecCredential read from standard output.
TEST_F(BenchKubeconfigTest, AnExecPluginsTokenIsUsed) {
  write("plugin.sh",
        "#!/bin/sh\n"
        "case \"$KUBERNETES_EXEC_INFO\" in *'\"kind\":\"ExecCredential\"'*) ;; *) exit 3 ;; esac\n"
        "printf '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",'\n"
        "printf '\"status\":{\"token\":\"%s-%s\"}}' \"$1\" \"$BENCH_SUFFIX\"\n");
  std::filesystem::permissions(dir_.path() / "plugin.sh", std::filesystem::perms::owner_all);
  const auto credentials = load_kubeconfig(kubeconfig(
      "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: ./plugin.sh\n"
      "      args: [minted]\n      env:\n      - name: BENCH_SUFFIX\n        value: here\n"
      "      interactiveMode: Never\n"));
  EXPECT_EQ(credentials.token, "minted-here");
}

TEST_F(BenchKubeconfigTest, AFailingExecPluginIsAnError) {
  EXPECT_THROW(load_kubeconfig(kubeconfig("    exec:\n      command: /bin/false\n")), std::runtime_error);
}

TEST_F(BenchKubeconfigTest, AUserWithoutCredentialsIsAnError) {
  EXPECT_THROW(load_kubeconfig(kubeconfig("    username: nobody\n")), std::runtime_error);
}

}  // namespace
}  // namespace kapi::bench::kubeconfig_test
