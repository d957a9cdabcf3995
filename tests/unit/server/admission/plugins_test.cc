// kube's ordered plugin table and the admission flags: the default set, --enable/--disable, kube's refusals, and
// the AdmissionConfiguration file.
#include "server/admission/config.h"
#include "server/plugin/admission/plugins.h"
#include "tests/support/temp_dir.h"

#include <gtest/gtest.h>

#include <fstream>

namespace kapi::admission::plugins_test {
namespace {

TEST(AdmissionPluginsTest, TheDefaultSetIsKubes) {
  const std::vector<std::string> expected{
      "NamespaceLifecycle", "LimitRanger", "ServiceAccount", "TaintNodesByCondition", "PodSecurity", "Priority",
      "DefaultTolerationSeconds", "DefaultStorageClass", "StorageObjectInUseProtection",
      "PersistentVolumeClaimResize", "RuntimeClass", "CertificateApproval", "CertificateSigning",
      "ClusterTrustBundleAttest", "CertificateSubjectRestriction", "DefaultIngressClass", "MutatingAdmissionPolicy",
      "MutatingAdmissionWebhook", "ValidatingAdmissionPolicy", "ValidatingAdmissionWebhook", "ResourceQuota"};
  EXPECT_EQ(enabled_plugin_names({}, {}), expected);
}

TEST(AdmissionPluginsTest, EnableAndDisableKeepKubesOrder) {
  auto names = enabled_plugin_names({"NodeRestriction", "AlwaysPullImages"}, {"ResourceQuota", "PodSecurity"});
  auto at = [&](std::string_view name) { return std::find(names.begin(), names.end(), name) - names.begin(); };
  EXPECT_LT(at("ServiceAccount"), at("NodeRestriction"));
  EXPECT_LT(at("NodeRestriction"), at("TaintNodesByCondition"));
  EXPECT_LT(at("TaintNodesByCondition"), at("AlwaysPullImages"));
  EXPECT_EQ(std::count(names.begin(), names.end(), "ResourceQuota"), 0);
  EXPECT_EQ(std::count(names.begin(), names.end(), "PodSecurity"), 0);
}

TEST(AdmissionPluginsTest, UnknownAndOverlappingNamesAreRefusedWithKubesWording) {
  try {
    enabled_plugin_names({"NoSuchPlugin"}, {});
    FAIL();
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(), "enable-admission-plugins plugin \"NoSuchPlugin\" is unknown");
  }
  try {
    enabled_plugin_names({"Priority", "LimitRanger"}, {"Priority", "LimitRanger"});
    FAIL();
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(),
                 "map[LimitRanger:{} Priority:{}] in enable-admission-plugins and disable-admission-plugins overlapped");
  }
}

TEST(AdmissionPluginsTest, ConfigurationComesInlineOrFromAFileRelativeToTheConfiguration) {
  test_support::TempDir dir("admission-config");
  std::ofstream(dir.path() / "podsecurity.yaml") << "apiVersion: pod-security.admission.config.k8s.io/v1\n"
                                                    "kind: PodSecurityConfiguration\ndefaults:\n  enforce: baseline\n";
  std::ofstream(dir.path() / "admission.yaml")
      << "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n"
         "- name: PodSecurity\n  path: podsecurity.yaml\n"
         "- name: EventRateLimit\n  configuration:\n    kind: Configuration\n";
  auto configurations = read_admission_configuration((dir.path() / "admission.yaml").string());
  ASSERT_EQ(configurations.size(), 2u);
  EXPECT_EQ(configurations.at("PodSecurity").at("defaults").at("enforce"), "baseline");
  EXPECT_EQ(configurations.at("EventRateLimit").at("kind"), "Configuration");
  EXPECT_TRUE(read_admission_configuration("").empty());
  EXPECT_THROW(read_admission_configuration((dir.path() / "missing.yaml").string()), std::runtime_error);
}

}  // namespace
}  // namespace kapi::admission::plugins_test
