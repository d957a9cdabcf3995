#include "server/apis/certificates/signer_access.h"

#include "base/go_quote.h"
#include "server/apierrors/errors.h"
#include "server/apis/certificates/csr_validation.h"

namespace kapi::apis::certificates {

bool SignerAccess::allowed(const request::UserInfo& user, std::string_view verb, std::string_view signer) const {
  authorization::Attributes attributes{.user = user, .verb = std::string(verb), .resource_request = true,
                                       .api_group = std::string(kGroupName), .api_version = "*",
                                       .resource = "signers", .name = std::string(signer)};
  return authorizer_->authorize(attributes).decision == authorization::Decision::Allow;
}

void SignerAccess::require(const request::UserInfo& user, std::string_view verb, std::string_view signer_name,
                           std::string_view csr_name) const {
  if (!authorizer_) return;
  if (allowed(user, verb, signer_name)) return;
  const std::string domain_wildcard = std::string(signer_name.substr(0, signer_name.find('/'))) + "/*";
  if (allowed(user, verb, domain_wildcard)) return;
  throw apierrors::ApiError(apierrors::forbidden(kGroupName, "certificatesigningrequests", csr_name,
                                                 "user not permitted to " + std::string(verb) +
                                                     " requests with signerName " + base::go_quote(signer_name)));
}

}  // namespace kapi::apis::certificates
