#pragma once
// Request authentication (k8s.io/apiserver/pkg/authentication): each authenticator looks at one kind of
// credential and says who sent the request, that it has nothing to say, or that the credential it understands
// is not valid. RequestAuthenticator::build (request_authenticator.h) puts them together as kube-apiserver does.
#include "request/request_context.h"
#include "server/http/request.h"

#include <asio/awaitable.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace kapi::authentication {

using request::UserInfo;

// kube's (response, ok, err) of authenticator.Request.
struct Result {
  enum class Outcome { NotApplicable, Authenticated, Failed };
  Outcome outcome = Outcome::NotApplicable;
  UserInfo user;      // Authenticated
  std::string error;  // Failed: why, for the log (the client only ever reads "Unauthorized")
  // Authenticated by a token: the audiences it is valid for among those asked (TokenReview's status.audiences).
  std::vector<std::string> audiences;

  static Result not_applicable() { return {}; }
  static Result authenticated(UserInfo user) { return {Outcome::Authenticated, std::move(user), {}, {}}; }
  static Result failed(std::string error) { return {Outcome::Failed, {}, std::move(error), {}}; }
};

// One kind of credential carried by a request (a client certificate, a bearer token, ...). An authenticator
// that accepts a credential removes it from the request, so it goes no further than the authentication stage.
class Authenticator {
 public:
  virtual ~Authenticator() = default;
  virtual asio::awaitable<Result> authenticate(http::Request& request) const = 0;
};

// Who a token must be meant for (kube's authenticator.Audiences).
using Audiences = std::vector<std::string>;

// A bearer token's meaning (kube's authenticator.Token): a token file, service account tokens, ...
class TokenAuthenticator {
 public:
  virtual ~TokenAuthenticator() = default;
  // `audiences`: those a TokenReview asks about; empty for a request to this server, whose own API audiences
  // then apply. Both arguments are referred to, not copied: the caller keeps them alive until the awaitable has
  // completed (a braced temporary in `auto a = x.authenticate_token(t, {}); co_await a;` dangles).
  virtual asio::awaitable<Result> authenticate_token(std::string_view token, const Audiences& audiences) const = 0;
};

}  // namespace kapi::authentication
