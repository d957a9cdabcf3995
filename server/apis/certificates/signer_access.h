#pragma once
// The CertificateApproval, CertificateSigning and ClusterTrustBundleAttest admission plugins' question
// (plugin/pkg/admission/certificates/util.go, IsAuthorizedForSignerName): may the user `approve` (or `sign`,
// `attest`) for a signer, asked of the authorizer as the verb on certificates.k8s.io "signers" named after the
// signer, or after its domain ("kubernetes.io/*").
#include "request/request_context.h"
#include "server/authorization/authorizer.h"

#include <string_view>

namespace kapi::apis::certificates {

bool authorized_for_signer(const authorization::Authorizer& authorizer, const request::UserInfo& user,
                           std::string_view verb, std::string_view signer_name);

}  // namespace kapi::apis::certificates
