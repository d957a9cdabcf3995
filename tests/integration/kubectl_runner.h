#pragma once
// Runs the real kubectl against a started kapi. /usr/bin/kubectl is a dispatcher that asks /version first and
// runs the bundled kubectl matching the server's minor version (1.32 for kapi).
#include "tests/support/kapi_process.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <string>

namespace kapi::integration {

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// kubectl with the generated admin kubeconfig, a private HOME and cache dir (no discovery or OpenAPI cache
// leaks in from elsewhere) and a time bound (past it, the exit code is 124: how a `get -w` is ended).
inline CommandResult run_kubectl(const test_support::KapiProcess& kapi, const std::string& arguments,
                                 int timeout_seconds = 60) {
  const auto home = kapi.work_dir() / "kubectl-home";
  std::filesystem::create_directories(home);
  const std::string command = "env HOME='" + home.string() + "' KUBECACHEDIR='" + (home / "cache").string() +
                              "' KUBECONFIG= timeout " + std::to_string(timeout_seconds) +
                              " /usr/bin/kubectl --kubeconfig '" +
                              kapi.admin_kubeconfig().string() + "' " + arguments + " 2>&1";
  CommandResult result;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) {
    ADD_FAILURE() << "popen failed: " << command;
    return result;
  }
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) result.output.append(buffer, n);
  const int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

}  // namespace kapi::integration
