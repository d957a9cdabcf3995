#pragma once
// Runs the real kubectl against a started kapi. /usr/bin/kubectl is a dispatcher that asks /version first and
// runs the bundled kubectl matching the server's minor version (1.32 for kapi).
#include "tests/support/command.h"
#include "tests/support/kapi_process.h"

#include <filesystem>
#include <string>

namespace kapi::integration {

using test_support::CommandResult;

// kubectl with the generated admin kubeconfig, a private HOME and cache dir (no discovery or OpenAPI cache
// leaks in from elsewhere) and a time bound (past it, the exit code is 124: how a `get -w` is ended).
inline CommandResult run_kubectl(const test_support::KapiProcess& kapi, const std::string& arguments,
                                 int timeout_seconds = 60) {
  const auto home = kapi.work_dir() / "kubectl-home";
  std::filesystem::create_directories(home);
  const std::string command = "env HOME='" + home.string() + "' KUBECACHEDIR='" + (home / "cache").string() +
                              "' KUBECONFIG= timeout " + std::to_string(timeout_seconds) +
                              " /usr/bin/kubectl --kubeconfig '" +
                              kapi.admin_kubeconfig().string() + "' " + arguments;
  return test_support::run_command(command);
}

}  // namespace kapi::integration
