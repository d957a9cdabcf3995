#pragma once
// `Authorization: Bearer <token>` (pkg/authentication/request/bearertoken): the token goes to the token
// authenticator (kube-apiserver's: the cached union of them all); a user found consumes the header. A bearer token
// nobody knows is a failed credential ("invalid bearer token"), never anonymous.
#include "server/authentication/authenticator.h"

#include <memory>

namespace kapi::authentication {

class BearerTokenAuthenticator final : public Authenticator {
 public:
  explicit BearerTokenAuthenticator(std::shared_ptr<const TokenAuthenticator> token) : token_(std::move(token)) {}
  asio::awaitable<Result> authenticate(http::Request& request) const override;

 private:
  std::shared_ptr<const TokenAuthenticator> token_;
};

}  // namespace kapi::authentication
