#pragma once
// What the token-review and authorization webhook suites share: the sample webhook (tests/support/sample_webhook)
// started before kapi, whose flags must name it, and the kubeconfig-format files kube-apiserver's
// --authentication-token-webhook-config-file and --authorization-webhook-config-file read.
#include "tests/integration/kapi_suite.h"
#include "tests/integration/kubectl_runner.h"
#include "tests/support/sample_webhook_process.h"

#include <boost/json.hpp>

#include <algorithm>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

namespace kapi::integration {

using test_support::SampleWebhookProcess;

// A kubeconfig naming `server_url`, trusting the sample webhook's CA by certificate-authority-data, written into a
// directory that lives as long as the test program.
inline std::string webhook_kubeconfig(const std::string& name, const std::string& server_url,
                                      const std::string& ca_base64) {
  static std::vector<std::unique_ptr<test_support::TempDir>> dirs;
  const auto& dir = dirs.emplace_back(std::make_unique<test_support::TempDir>("kapi-" + name + "-webhook"));
  const auto path = dir->path() / "webhook.kubeconfig";
  std::ofstream(path) << "apiVersion: v1\nkind: Config\nclusters:\n- name: webhook\n  cluster:\n"
                      << "    server: " << server_url << "\n"
                      << "    certificate-authority-data: " << ca_base64 << "\n"
                      << "users:\n- name: apiserver\n  user: {}\n"
                      << "contexts:\n- name: webhook\n  context:\n    cluster: webhook\n    user: apiserver\n"
                      << "current-context: webhook\n";
  return path.string();
}

// The sample webhook the suite's kapi calls, started once (before kapi, whose flags name it).
inline SampleWebhookProcess& shared_sample_webhook() {
  static std::unique_ptr<SampleWebhookProcess> server = std::make_unique<SampleWebhookProcess>();
  return *server;
}

inline std::string webhook_config_for(const std::string& name, const std::string& path) {
  SampleWebhookProcess& server = shared_sample_webhook();
  return webhook_kubeconfig(name, server.url(path), server.ca_bundle_base64());
}

// The reviews the sample webhook received on `path` whose body satisfies `match`.
template <typename Match>
std::size_t reviews_received(std::string_view path, Match match) {
  std::size_t count = 0;
  for (const auto& request : shared_sample_webhook().requests_for(path))
    if (const auto* review = request.if_contains("review"); review && review->is_object() && match(review->as_object()))
      ++count;
  return count;
}

// kubectl as the bearer token's user (a kubeconfig with only the token and kapi's CA).
inline CommandResult kubectl_with_token(const test_support::KapiProcess& kapi, const std::string& token,
                                        const std::string& arguments) {
  return run_kubectl(kapi, "--kubeconfig " + token_kubeconfig(kapi, token) + " " + arguments);
}

}  // namespace kapi::integration
