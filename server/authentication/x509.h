#pragma once
// Client certificate authentication (pkg/authentication/request/x509): the TLS layer has verified the chain
// against --client-ca-file; the user is the subject's CN, the groups its O values. A certificate that did not
// verify is a failed credential (401), as in kube-apiserver, never a fall back to anonymous.
#include "server/authentication/authenticator.h"

namespace kapi::authentication {

class X509Authenticator final : public Authenticator {
 public:
  asio::awaitable<Result> authenticate(http::Request& request) const override;
};

}  // namespace kapi::authentication
