#include "server/apis/certificates/signer_access.h"

#include "server/apis/certificates/csr_validation.h"

namespace kapi::apis::certificates {
namespace {

bool allowed(const authorization::Authorizer& authorizer, const request::UserInfo& user, std::string_view verb,
             std::string_view signer) {
  authorization::Attributes attributes{.user = user, .verb = std::string(verb), .resource_request = true,
                                       .api_group = std::string(kGroupName), .api_version = "*",
                                       .resource = "signers", .name = std::string(signer)};
  return authorizer.authorize(attributes).decision == authorization::Decision::Allow;
}

}  // namespace

bool authorized_for_signer(const authorization::Authorizer& authorizer, const request::UserInfo& user,
                           std::string_view verb, std::string_view signer_name) {
  if (allowed(authorizer, user, verb, signer_name)) return true;
  const std::string domain_wildcard = std::string(signer_name.substr(0, signer_name.find('/'))) + "/*";
  return allowed(authorizer, user, verb, domain_wildcard);
}

}  // namespace kapi::apis::certificates
