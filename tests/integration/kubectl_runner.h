#pragma once
// Runs the real kubectl against a started kapi. /usr/bin/kubectl is a dispatcher that asks /version first and
// runs the bundled kubectl matching the server's minor version (1.32 for kapi).
#include "tests/support/command.h"
#include "tests/support/kapi_process.h"

#include <filesystem>
#include <fstream>
#include <string>

namespace kapi::integration {

using test_support::CommandResult;

// kubectl with the generated admin kubeconfig, a private HOME and cache dir (no discovery or OpenAPI cache
// leaks in from elsewhere) and a time bound (past it, the exit code is 124: how a `get -w` is ended).
// `environment`: more NAME='value' words for env (KUBE_EDITOR for `kubectl edit`).
inline CommandResult run_kubectl(const test_support::KapiProcess& kapi, const std::string& arguments,
                                 int timeout_seconds = 60, const std::string& environment = "") {
  const auto home = kapi.work_dir() / "kubectl-home";
  std::filesystem::create_directories(home);
  const std::string command = "env HOME='" + home.string() + "' KUBECACHEDIR='" + (home / "cache").string() +
                              "' KUBECONFIG= " + environment + " timeout " + std::to_string(timeout_seconds) +
                              " /usr/bin/kubectl --kubeconfig '" +
                              kapi.admin_kubeconfig().string() + "' " + arguments;
  return test_support::run_command(command);
}

// Writes `text` as file `name` in kapi's work dir (a manifest for `kubectl apply -f`); returns its path.
inline std::string write_manifest(const test_support::KapiProcess& kapi, const std::string& name,
                                  const std::string& text) {
  const auto path = kapi.work_dir() / name;
  std::ofstream(path) << text;
  return path.string();
}

// A kubeconfig (in kapi's work dir) that trusts kapi's CA and authenticates with a bearer token only, for running
// kubectl as a --token-auth-file user or a service account: pass it as `--kubeconfig <path>` after run_kubectl's
// own. `name` names the file (by default the token, too long for a file name when it is a JWT).
inline std::string token_kubeconfig(const test_support::KapiProcess& kapi, const std::string& token,
                                    const std::string& name = "") {
  const auto path = kapi.work_dir() / ("token-" + (name.empty() ? token : name) + ".kubeconfig");
  std::ofstream(path) << "apiVersion: v1\nkind: Config\nclusters:\n- name: kapi\n  cluster:\n"
                      << "    server: https://127.0.0.1:" << kapi.port() << "\n"
                      << "    certificate-authority: " << kapi.ca_cert().string() << "\n"
                      << "users:\n- name: u\n  user:\n    token: " << token << "\n"
                      << "contexts:\n- name: c\n  context:\n    cluster: kapi\n    user: u\ncurrent-context: c\n";
  return path.string();
}

}  // namespace kapi::integration
