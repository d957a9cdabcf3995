// ClusterTrustBundleAttest (plugin/pkg/admission/certificates/ctbattest/admission.go): writing a
// ClusterTrustBundle that names a signer needs the `attest` verb on it. kapi does not serve
// certificates.k8s.io/v1alpha1 clustertrustbundles (off by default in 1.32, behind the ClusterTrustBundle gate and
// the v1alpha1 runtime-config), so the plugin is registered, as kube's default set has it, and handles nothing.
#include "server/admission/plugin.h"

namespace kapi::admission {
namespace {

class ClusterTrustBundleAttest final : public Plugin {
 public:
  bool handles(const Attributes& /*attributes*/) const override { return false; }
};

}  // namespace

std::unique_ptr<Plugin> make_cluster_trust_bundle_attest(const PluginContext& /*context*/) {
  return std::make_unique<ClusterTrustBundleAttest>();
}

}  // namespace kapi::admission
