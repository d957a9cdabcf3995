// The kubeconfig of kube's GenericWebhook (client-go's clientcmd as LoadKubeconfig reads it for a webhook) and the
// URL split its calls dial.
#include "server/webhook/generic_webhook.h"

#include "base/base64.h"
#include "tests/support/temp_dir.h"

#include <gtest/gtest.h>

#include <fstream>

namespace kapi::webhook::generic_webhook_test {
namespace {

std::string error_of(const std::string& text, const std::filesystem::path& folder = {}) {
  try {
    parse_kubeconfig(text, folder);
  } catch (const KubeconfigError& error) {
    return error.what();
  }
  return "";
}

TEST(WebhookKubeconfigTest, TheCurrentContextsClusterAndUserAreRead) {
  test_support::TempDir dir("webhook-kubeconfig");
  std::ofstream(dir.path() / "ca.pem") << "CA PEM";
  std::ofstream(dir.path() / "token") << "file-token\n";
  const std::string text =
      "apiVersion: v1\nkind: Config\nclusters:\n- name: other\n  cluster:\n    server: https://other\n"
      "- name: authz\n  cluster:\n    server: https://authz.example.com:8443/authorize\n"
      "    certificate-authority: ca.pem\n    tls-server-name: authz.internal\n"
      "users:\n- name: apiserver\n  user:\n    client-certificate-data: " + base::base64_encode("CERT") +
      "\n    client-key-data: " + base::base64_encode("KEY") + "\n    tokenFile: token\n"
      "contexts:\n- name: webhook\n  context:\n    cluster: authz\n    user: apiserver\ncurrent-context: webhook\n";
  const WebhookTarget target = parse_kubeconfig(text, dir.path());
  EXPECT_EQ(target.server, "https://authz.example.com:8443/authorize");
  EXPECT_EQ(target.ca_pem, "CA PEM");  // relative to the file's folder
  EXPECT_EQ(target.tls_server_name, "authz.internal");
  EXPECT_EQ(target.client_cert_pem, "CERT");
  EXPECT_EQ(target.client_key_pem, "KEY");
  EXPECT_EQ(target.bearer_token, "file-token");
  EXPECT_FALSE(target.insecure_skip_tls_verify);
}

TEST(WebhookKubeconfigTest, AFileWithOneClusterNeedsNoContext) {
  const WebhookTarget target =
      parse_kubeconfig("clusters:\n- name: c\n  cluster:\n    server: https://h\n    insecure-skip-tls-verify: true\n"
                       "users:\n- name: u\n  user:\n    token: abc\n", {});
  EXPECT_EQ(target.server, "https://h");
  EXPECT_TRUE(target.insecure_skip_tls_verify);
  EXPECT_EQ(target.bearer_token, "abc");
}

TEST(WebhookKubeconfigTest, UnusableFilesAreRefusedAsClientcmdRefusesThem) {
  EXPECT_EQ(error_of("current-context: missing\n"),
            "invalid configuration: context was not found for specified context: missing");
  EXPECT_EQ(error_of("clusters:\n- name: c\n  cluster: {}\n"), "invalid configuration: no server found for cluster \"c\"");
  EXPECT_EQ(error_of("clusters:\n- name: c\n  cluster:\n    server: https://h\n    insecure-skip-tls-verify: true\n"
                     "    certificate-authority-data: " + base::base64_encode("CA") + "\n"),
            "invalid configuration: specifying a root certificates file with the insecure flag is not allowed");
  EXPECT_EQ(error_of("clusters:\n- name: c\n  cluster:\n    server: https://h\nusers:\n- name: u\n  user:\n"
                     "    client-certificate-data: " + base::base64_encode("CERT") + "\n"),
            "invalid configuration: client-cert-data and client-key-data must be specified for u to use the "
            "clientCert authentication method");
  EXPECT_EQ(error_of("clusters: []\n"), "invalid configuration: no configuration has been provided");
}

TEST(WebhookUrlTest, SplitsAsTheWebhookDialsIt) {
  const ParsedUrl url = parse_url("https://[::1]:8443/authorize?x=1");
  EXPECT_TRUE(url.tls);
  EXPECT_EQ(url.host, "::1");
  EXPECT_EQ(url.port, 8443);
  EXPECT_EQ(url.host_header, "[::1]:8443");
  EXPECT_EQ(url.path, "/authorize?x=1");
  const ParsedUrl plain = parse_url("http://collector");
  EXPECT_FALSE(plain.tls);
  EXPECT_EQ(plain.port, 80);
  EXPECT_EQ(plain.path, "/");
  EXPECT_THROW(parse_url("ftp://x"), std::invalid_argument);
}

}  // namespace
}  // namespace kapi::webhook::generic_webhook_test
