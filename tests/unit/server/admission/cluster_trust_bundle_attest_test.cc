// ClusterTrustBundleAttest (plugin/pkg/admission/certificates/ctbattest): kapi serves no clustertrustbundles, so
// the plugin is in the default chain and handles nothing.
#include "tests/unit/server/admission/resource_plugin_fixture.h"

namespace kapi::admission {
std::unique_ptr<Plugin> make_cluster_trust_bundle_attest(const PluginContext& context);

namespace cluster_trust_bundle_attest_test {
namespace {

using testing::json::object;

class ClusterTrustBundleAttestTest : public testing::PluginFixture {};

TEST_F(ClusterTrustBundleAttestTest, HandlesNothing) {
  auto plugin = make_cluster_trust_bundle_attest(context());
  object bundle{{"metadata", object{{"name", "example.com:signer:a"}}},
                {"spec", object{{"signerName", "example.com/signer"}, {"trustBundle", "x"}}}};
  EXPECT_FALSE(plugin->handles(attributes(Operation::Create, "certificates.k8s.io", "clustertrustbundles",
                                          "ClusterTrustBundle", "", &bundle)));
  EXPECT_FALSE(plugin->mutates());
  EXPECT_FALSE(plugin->validates());
}

}  // namespace
}  // namespace cluster_trust_bundle_attest_test
}  // namespace kapi::admission
