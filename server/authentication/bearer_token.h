#pragma once
// `Authorization: Bearer <token>` (pkg/authentication/request/bearertoken): the token goes to the token
// authenticators in order; the first that knows it names the user. A bearer token nobody knows is a failed
// credential ("invalid bearer token"), never anonymous.
#include "server/authentication/authenticator.h"

#include <memory>
#include <vector>

namespace kapi::authentication {

class BearerTokenAuthenticator final : public Authenticator {
 public:
  explicit BearerTokenAuthenticator(std::vector<std::shared_ptr<const TokenAuthenticator>> tokens)
      : tokens_(std::move(tokens)) {}
  asio::awaitable<Result> authenticate(http::Request& request) const override;

 private:
  std::vector<std::shared_ptr<const TokenAuthenticator>> tokens_;
};

}  // namespace kapi::authentication
