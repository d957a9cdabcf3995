// CertificateSigning (plugin/pkg/admission/certificates/signing): a /status write that changes the certificate
// needs `sign` on the stored request's signer; one that leaves it alone does not ask.
#include "tests/unit/server/admission/certificate_fixtures.h"

namespace kapi::admission {
std::unique_ptr<Plugin> make_certificate_signing(const PluginContext& context);

namespace certificate_signing_test {
namespace {

using testing::json::object;

class CertificateSigningTest : public testing::CsrWriteFixture {
 protected:
  Attributes status_write(object& csr, const object& old) { return csr_write("status", csr, old); }
};

TEST_F(CertificateSigningTest, IssuingNeedsTheSignVerb) {
  const object approved = testing::csr(testing::kKubeletCsr);
  object issued = approved;
  issued["status"].as_object()["certificate"] = base::base64_encode(testing::kCertificate);

  testing::SignersAuthorizer approver("approve", "kubernetes.io/*");
  auto refusing = make_certificate_signing(context(&approver));
  Attributes request = status_write(issued, approved);
  const apierrors::Status status = refusal(*refusing, request);
  EXPECT_EQ(status.code, 403);
  EXPECT_EQ(status.message,
            "certificatesigningrequests.certificates.k8s.io \"node-csr\" is forbidden: user not permitted to sign "
            "requests with signerName \"kubernetes.io/kube-apiserver-client-kubelet\"");

  testing::SignersAuthorizer signer("sign", "kubernetes.io/kube-apiserver-client-kubelet");
  auto allowing = make_certificate_signing(context(&signer));
  EXPECT_NO_THROW(admit(*allowing, request));

  // A status write that keeps the certificate as it is asks nothing.
  object same = approved;
  Attributes unchanged = status_write(same, approved);
  EXPECT_NO_THROW(admit(*refusing, unchanged));
}

}  // namespace
}  // namespace certificate_signing_test
}  // namespace kapi::admission
