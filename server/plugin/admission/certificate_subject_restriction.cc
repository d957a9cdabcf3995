// CertificateSubjectRestriction (plugin/pkg/admission/certificates/subjectrestriction/admission.go): nobody may ask
// the kubernetes.io/kube-apiserver-client signer for a certificate in the system:masters group, whose holders
// every authorizer lets through.
#include "server/admission/errors.h"
#include "server/admission/plugin.h"
#include "server/apis/certificates/csr_validation.h"

#include <boost/json.hpp>

#include <algorithm>

namespace kapi::admission {
namespace {

namespace json = boost::json;

class CertificateSubjectRestriction final : public Plugin {
 public:
  bool handles(const Attributes& attributes) const override {
    return attributes.operation == Operation::Create && attributes.is_main_resource() && attributes.object &&
           is_resource(attributes, "certificates.k8s.io", "certificatesigningrequests");
  }
  bool validates() const override { return true; }

  asio::awaitable<void> validate(const Attributes& attributes) override {
    const json::value* spec_value = attributes.new_object().if_contains("spec");
    if (!spec_value || !spec_value->is_object()) co_return;
    const json::object& spec = spec_value->as_object();
    const json::value* signer = spec.if_contains("signerName");
    if (!signer || !signer->is_string() || signer->as_string() != apis::certificates::kKubeAPIServerClientSigner)
      co_return;
    const std::optional<std::vector<std::string>> organizations =
        apis::certificates::csr_organizations(apis::certificates::bytes_member(spec, "request").value_or(""));
    if (!organizations) throw forbidden(attributes, "failed to parse CSR: PEM block type must be CERTIFICATE REQUEST");
    if (std::ranges::find(*organizations, "system:masters") != organizations->end())
      throw forbidden(attributes, "use of " + std::string(apis::certificates::kKubeAPIServerClientSigner) +
                                      " signer with system:masters group is not allowed");
  }
};

}  // namespace

std::unique_ptr<Plugin> make_certificate_subject_restriction(const PluginContext& /*context*/) {
  return std::make_unique<CertificateSubjectRestriction>();
}

}  // namespace kapi::admission
