// CertificateSubjectRestriction (plugin/pkg/admission/certificates/subjectrestriction): no CSR for
// kubernetes.io/kube-apiserver-client may ask for the system:masters group; other signers and groups pass.
#include "tests/unit/server/admission/certificate_fixtures.h"
#include "tests/unit/server/admission/resource_plugin_fixture.h"

namespace kapi::admission {
std::unique_ptr<Plugin> make_certificate_subject_restriction(const PluginContext& context);

namespace certificate_subject_restriction_test {
namespace {

using testing::json::object;

class CertificateSubjectRestrictionTest : public testing::PluginFixture {
 protected:
  Attributes create(object& csr) {
    return attributes(Operation::Create, "certificates.k8s.io", "certificatesigningrequests",
                      "CertificateSigningRequest", "", &csr);
  }
};

TEST_F(CertificateSubjectRestrictionTest, MastersAreRefusedForTheClientSigner) {
  auto plugin = make_certificate_subject_restriction(context());
  object masters = testing::csr(testing::kMastersCsr, "kubernetes.io/kube-apiserver-client");
  Attributes request = create(masters);
  const apierrors::Status status = refusal(*plugin, request);
  EXPECT_EQ(status.code, 403);
  EXPECT_EQ(status.message,
            "certificatesigningrequests.certificates.k8s.io \"node-csr\" is forbidden: use of "
            "kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed");

  object other_signer = testing::csr(testing::kMastersCsr, "example.com/other");
  Attributes other = create(other_signer);
  EXPECT_NO_THROW(admit(*plugin, other));
  object nodes = testing::csr(testing::kKubeletCsr, "kubernetes.io/kube-apiserver-client");
  Attributes kubelet = create(nodes);
  EXPECT_NO_THROW(admit(*plugin, kubelet));
  // Updates are not looked at.
  const object old = masters;
  EXPECT_FALSE(plugin->handles(attributes(Operation::Update, "certificates.k8s.io", "certificatesigningrequests",
                                          "CertificateSigningRequest", "", &masters, &old)));
}

}  // namespace
}  // namespace certificate_subject_restriction_test
}  // namespace kapi::admission
