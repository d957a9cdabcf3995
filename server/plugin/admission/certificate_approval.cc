// CertificateApproval (plugin/pkg/admission/certificates/approval/admission.go): approving or denying a
// CertificateSigningRequest (a write of its /approval subresource) needs the `approve` verb on its signer.
#include "base/go_quote.h"
#include "server/admission/errors.h"
#include "server/admission/plugin.h"
#include "server/apis/certificates/signer_access.h"

#include <boost/json.hpp>

namespace kapi::admission {
namespace {

std::string signer_of(const boost::json::object& csr) {
  const boost::json::value* spec = csr.if_contains("spec");
  const boost::json::value* signer = spec && spec->is_object() ? spec->as_object().if_contains("signerName") : nullptr;
  return signer && signer->is_string() ? std::string(signer->as_string()) : std::string();
}

class CertificateApproval final : public Plugin {
 public:
  explicit CertificateApproval(const authorization::Authorizer* authorizer) : authorizer_(authorizer) {}

  bool handles(const Attributes& attributes) const override {
    return attributes.operation == Operation::Update && attributes.subresource == "approval" && attributes.object &&
           is_resource(attributes, "certificates.k8s.io", "certificatesigningrequests");
  }
  bool validates() const override { return true; }

  asio::awaitable<void> validate(const Attributes& attributes) override {
    // The new object's signer: a change of signerName (refused by validation anyway) is asked about too.
    const std::string signer = signer_of(attributes.new_object());
    if (!authorizer_ || !attributes.user) co_return;
    if (!apis::certificates::authorized_for_signer(*authorizer_, *attributes.user, "approve", signer))
      throw forbidden(attributes, "user not permitted to approve requests with signerName " + base::go_quote(signer));
  }

 private:
  const authorization::Authorizer* authorizer_;
};

}  // namespace

std::unique_ptr<Plugin> make_certificate_approval(const PluginContext& context) {
  return std::make_unique<CertificateApproval>(context.authorizer);
}

}  // namespace kapi::admission
