#pragma once
// The CertificateApproval and CertificateSigning admission plugins' question (plugin/pkg/admission/certificates,
// IsAuthorizedForSignerName): may the user `approve` (or `sign`) requests for a signer, asked of the authorizer as
// the verb on certificates.k8s.io "signers" named after the signer, or after its domain ("kubernetes.io/*").
#include "request/request_context.h"
#include "server/authorization/authorizer.h"

#include <memory>
#include <string_view>

namespace kapi::apis::certificates {

class SignerAccess {
 public:
  // Set once, before serving; unconfigured, every user may (as with no authorizer).
  void configure(std::shared_ptr<const authorization::Authorizer> authorizer) { authorizer_ = std::move(authorizer); }

  // Throws kube's 403 for `csr_name` ("user not permitted to approve requests with signerName ...") unless `user`
  // may `verb` the signer.
  void require(const request::UserInfo& user, std::string_view verb, std::string_view signer_name,
               std::string_view csr_name) const;

 private:
  bool allowed(const request::UserInfo& user, std::string_view verb, std::string_view signer) const;

  std::shared_ptr<const authorization::Authorizer> authorizer_;
};

}  // namespace kapi::apis::certificates
