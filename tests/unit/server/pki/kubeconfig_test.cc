#include "server/pki/kubeconfig.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "server/pki/pki.h"
#include "server/pki/x509_builder.h"

namespace kapi::pki::kubeconfig_test {
namespace {

using ::testing::HasSubstr;

TEST(KubeconfigTest, RendersOneClusterUserAndCurrentContext) {
  const std::string kubeconfig = render_kubeconfig("https://127.0.0.1:6443", "ca", "cert", "key");
  EXPECT_EQ(kubeconfig,
            "apiVersion: v1\n"
            "kind: Config\n"
            "clusters:\n"
            "- cluster:\n"
            "    certificate-authority-data: Y2E=\n"
            "    server: https://127.0.0.1:6443\n"
            "  name: kapi\n"
            "contexts:\n"
            "- context:\n"
            "    cluster: kapi\n"
            "    user: kapi-admin\n"
            "  name: kapi\n"
            "current-context: kapi\n"
            "preferences: {}\n"
            "users:\n"
            "- name: kapi-admin\n"
            "  user:\n"
            "    client-certificate-data: Y2VydA==\n"
            "    client-key-data: a2V5\n");
}

TEST(KubeconfigTest, QuotesAServerUrlYamlWouldMisread) {
  EXPECT_THAT(render_kubeconfig("https://h:1/a b#c", "", "", ""), HasSubstr("server: \"https://h:1/a b#c\"\n"));
  EXPECT_THAT(render_kubeconfig("https://[::1]:6443", "", "", ""), HasSubstr("server: https://[::1]:6443\n"));
}

TEST(KubeconfigTest, HttpsUrlBracketsIpv6Hosts) {
  EXPECT_EQ(https_url("127.0.0.1", 6443), "https://127.0.0.1:6443");
  EXPECT_EQ(https_url("::1", 443), "https://[::1]:443");
  EXPECT_EQ(https_url("[fd00::1]", 6443), "https://[fd00::1]:6443");
  EXPECT_EQ(https_url("kapi.local", 8443), "https://kapi.local:8443");
}

TEST(SubjectAltNameTest, ClassifiesAddressesAndNames) {
  EXPECT_EQ(parse_subject_alt_name("10.0.0.1"), (SubjectAltName{SubjectAltName::Kind::ip, "10.0.0.1"}));
  EXPECT_EQ(parse_subject_alt_name("fd00::10"), (SubjectAltName{SubjectAltName::Kind::ip, "fd00::10"}));
  EXPECT_EQ(parse_subject_alt_name("kubernetes.default.svc"),
            (SubjectAltName{SubjectAltName::Kind::dns, "kubernetes.default.svc"}));
  EXPECT_EQ(parse_subject_alt_name("*.apps.example.com"),
            (SubjectAltName{SubjectAltName::Kind::dns, "*.apps.example.com"}));
  EXPECT_THROW(parse_subject_alt_name(""), std::invalid_argument);
  EXPECT_THROW(parse_subject_alt_name("bad name"), std::invalid_argument);
  EXPECT_THROW(parse_subject_alt_name("a..b"), std::invalid_argument);
  EXPECT_THROW(parse_subject_alt_name("-leading.dash"), std::invalid_argument);
  EXPECT_THROW(parse_subject_alt_name("DNS:x,IP:1.2.3.4"), std::invalid_argument);
}

}  // namespace
}  // namespace kapi::pki::kubeconfig_test
