// CertificateSigning (plugin/pkg/admission/certificates/signing/admission.go): issuing a certificate (a write of a
// CertificateSigningRequest's /status that changes status.certificate) needs the `sign` verb on its signer.
#include "base/go_quote.h"
#include "server/admission/errors.h"
#include "server/admission/plugin.h"
#include "server/apis/certificates/signer_access.h"

#include <boost/json.hpp>

namespace kapi::admission {
namespace {

namespace json = boost::json;

const json::value* member(const json::object& object, std::string_view outer, std::string_view inner) {
  const json::value* parent = object.if_contains(outer);
  return parent && parent->is_object() ? parent->as_object().if_contains(inner) : nullptr;
}

bool same(const json::value* a, const json::value* b) {
  if (!a || a->is_null()) return !b || b->is_null();
  return b && *a == *b;
}

class CertificateSigning final : public Plugin {
 public:
  explicit CertificateSigning(const authorization::Authorizer* authorizer) : authorizer_(authorizer) {}

  bool handles(const Attributes& attributes) const override {
    return attributes.operation == Operation::Update && attributes.subresource == "status" && attributes.object &&
           attributes.old_object && is_resource(attributes, "certificates.k8s.io", "certificatesigningrequests");
  }
  bool validates() const override { return true; }

  asio::awaitable<void> validate(const Attributes& attributes) override {
    const json::object& old = *attributes.old_object;
    if (same(member(attributes.new_object(), "status", "certificate"), member(old, "status", "certificate"))) co_return;
    // The stored request's signer is the one asked about.
    const json::value* signer_value = member(old, "spec", "signerName");
    const std::string signer = signer_value && signer_value->is_string() ? std::string(signer_value->as_string()) : "";
    if (!authorizer_ || !attributes.user) co_return;
    if (!apis::certificates::authorized_for_signer(*authorizer_, *attributes.user, "sign", signer))
      throw forbidden(attributes, "user not permitted to sign requests with signerName " + base::go_quote(signer));
  }

 private:
  const authorization::Authorizer* authorizer_;
};

}  // namespace

std::unique_ptr<Plugin> make_certificate_signing(const PluginContext& context) {
  return std::make_unique<CertificateSigning>(context.authorizer);
}

}  // namespace kapi::admission
