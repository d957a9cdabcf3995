// CertificateApproval (plugin/pkg/admission/certificates/approval): every write of a CSR's /approval needs
// `approve` on its signer, or on the signer's domain ("kubernetes.io/*").
#include "tests/unit/server/admission/certificate_fixtures.h"

namespace kapi::admission {
std::unique_ptr<Plugin> make_certificate_approval(const PluginContext& context);

namespace certificate_approval_test {
namespace {

using testing::json::object;

class CertificateApprovalTest : public testing::CsrWriteFixture {
 protected:
  Attributes approval(object& csr, const object& old) { return csr_write("approval", csr, old); }
};

TEST_F(CertificateApprovalTest, ApprovingNeedsTheApproveVerbOnTheSignerOrItsDomain) {
  const object pending = testing::csr(testing::kKubeletCsr);
  object approved = pending;
  approved["status"] = object{{"conditions", boost::json::array{object{{"type", "Approved"}, {"status", "True"}}}}};

  testing::SignersAuthorizer wildcard("approve", "kubernetes.io/*");
  auto by_domain = make_certificate_approval(context(&wildcard));
  Attributes request = approval(approved, pending);
  EXPECT_NO_THROW(admit(*by_domain, request));

  testing::SignersAuthorizer exact("approve", "kubernetes.io/kube-apiserver-client-kubelet");
  auto by_name = make_certificate_approval(context(&exact));
  EXPECT_NO_THROW(admit(*by_name, request));

  testing::SignersAuthorizer signer_only("sign", "kubernetes.io/*");
  auto refusing = make_certificate_approval(context(&signer_only));
  const apierrors::Status status = refusal(*refusing, request);
  EXPECT_EQ(status.code, 403);
  EXPECT_EQ(status.message,
            "certificatesigningrequests.certificates.k8s.io \"node-csr\" is forbidden: user not permitted to approve "
            "requests with signerName \"kubernetes.io/kube-apiserver-client-kubelet\"");
  // Even a write that changes nothing asks.
  object unchanged = pending;
  Attributes noop = approval(unchanged, pending);
  EXPECT_EQ(refusal(*refusing, noop).code, 403);
}

TEST_F(CertificateApprovalTest, OtherWritesAreNotHandled) {
  testing::SignersAuthorizer nobody("none", "none");
  auto plugin = make_certificate_approval(context(&nobody));
  object csr = testing::csr(testing::kKubeletCsr);
  const object old = csr;
  Attributes main = approval(csr, old);
  main.subresource = "";
  EXPECT_FALSE(plugin->handles(main));
  Attributes status = approval(csr, old);
  status.subresource = "status";
  EXPECT_FALSE(plugin->handles(status));
}

}  // namespace
}  // namespace certificate_approval_test
}  // namespace kapi::admission
