#pragma once
// What the OIDC tests share: a test issuer started before kapi (kapi fetches its keys at start), a directory for
// its CA and config files that lives as long as the test program, and kubectl run as a token's user, with --token
// or through a kubeconfig `exec` credential plugin (a script printing an ExecCredential, as kubelogin does).
#include "tests/integration/kapi_suite.h"
#include "tests/integration/kubectl_runner.h"
#include "tests/support/oidc_issuer.h"

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

namespace kapi::integration {

using test_support::OidcIssuer;

// A directory named after `suite` for the program's lifetime.
inline const std::filesystem::path& oidc_suite_dir(const std::string& suite) {
  static std::vector<std::unique_ptr<test_support::TempDir>> dirs;
  return dirs.emplace_back(std::make_unique<test_support::TempDir>("kapi-" + suite))->path();
}

// GET `target` with `token` as bearer token.
inline HttpResponse get_with_token(const KapiProcess& kapi, const std::string& token,
                                   const std::string& target = "/api/v1/namespaces/default/configmaps") {
  return kapi.connect_anonymous().request("GET", target, {{"Authorization", "Bearer " + token}});
}

// kubectl with `--token` (and kapi's CA, no other credential).
inline CommandResult kubectl_with_token(const KapiProcess& kapi, const std::string& token, const std::string& name,
                                        const std::string& arguments) {
  return run_kubectl(kapi, "--kubeconfig " + token_kubeconfig(kapi, "unused", name + "-base") + " --token=" + token +
                               " " + arguments);
}

// kubectl whose kubeconfig user runs an exec credential plugin that prints `token` in an ExecCredential.
inline CommandResult kubectl_with_exec_plugin(const KapiProcess& kapi, const std::string& token,
                                              const std::string& name, const std::string& arguments) {
  const auto plugin = kapi.work_dir() / (name + "-credential-plugin.sh");
  std::ofstream(plugin) << "#!/bin/sh\ncat <<'EOF'\n"
                        << "{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
                        << "\"status\":{\"token\":\"" << token << "\"}}\nEOF\n";
  std::filesystem::permissions(plugin, std::filesystem::perms::owner_all);
  const auto kubeconfig = kapi.work_dir() / (name + "-exec.kubeconfig");
  std::ofstream(kubeconfig) << "apiVersion: v1\nkind: Config\nclusters:\n- name: kapi\n  cluster:\n"
                            << "    server: https://127.0.0.1:" << kapi.port() << "\n"
                            << "    certificate-authority: " << kapi.ca_cert().string() << "\n"
                            << "users:\n- name: oidc\n  user:\n    exec:\n"
                            << "      apiVersion: client.authentication.k8s.io/v1\n"
                            << "      command: " << plugin.string() << "\n"
                            << "      interactiveMode: Never\n"
                            << "contexts:\n- name: c\n  context:\n    cluster: kapi\n    user: oidc\n"
                            << "current-context: c\n";
  return run_kubectl(kapi, "--kubeconfig " + kubeconfig.string() + " " + arguments);
}

// The user kapi sees for `token` (a SelfSubjectReview, as `kubectl auth whoami` asks), as JSON; empty when the
// token is refused.
inline boost::json::object who_am_i(const KapiProcess& kapi, const std::string& token) {
  const std::string review = R"({"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"})";
  HttpResponse response = kapi.connect_anonymous().request(
      "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
      {{"Authorization", "Bearer " + token}, {"Content-Type", "application/json"}}, review);
  if (response.status != 201) return {};
  auto object = json_object(response.body);
  const auto* status = object.if_contains("status");
  const auto* user = status && status->is_object() ? status->as_object().if_contains("userInfo") : nullptr;
  return user && user->is_object() ? user->as_object() : boost::json::object{};
}

}  // namespace kapi::integration

namespace kapi::integration {

// The username kapi sees for `token`, empty when it is refused.
inline std::string username_of(const KapiProcess& kapi, const std::string& token) {
  const boost::json::object user = who_am_i(kapi, token);
  const auto* name = user.if_contains("username");
  return name && name->is_string() ? std::string(name->as_string()) : "";
}

}  // namespace kapi::integration
