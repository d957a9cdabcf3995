#include "server/authentication/request_authenticator.h"

#include "server/authentication/bearer_token.h"
#include "server/authentication/token_file.h"
#include "server/authentication/x509.h"

#include <algorithm>

namespace kapi::authentication {

std::shared_ptr<const RequestAuthenticator> RequestAuthenticator::build(const AuthenticationOptions& options,
                                                                         std::vector<std::string>* warnings) {
  std::vector<std::shared_ptr<const Authenticator>> authenticators;
  authenticators.push_back(std::make_shared<X509Authenticator>());
  std::vector<std::shared_ptr<const TokenAuthenticator>> tokens;
  if (!options.token_auth_file.empty())
    tokens.push_back(std::make_shared<TokenFileAuthenticator>(TokenFileAuthenticator::read(options.token_auth_file, warnings)));
  if (!tokens.empty()) authenticators.push_back(std::make_shared<BearerTokenAuthenticator>(std::move(tokens)));
  return std::make_shared<RequestAuthenticator>(std::move(authenticators), options.anonymous);
}

asio::awaitable<Result> RequestAuthenticator::authenticate(http::Request& request) const {
  std::string errors;
  for (const auto& authenticator : authenticators_) {
    Result result = co_await authenticator->authenticate(request);
    if (result.outcome == Result::Outcome::Authenticated) {
      // kube's AuthenticatedGroupAdder: unless the user already says whether it is authenticated.
      auto& groups = result.user.groups;
      if (std::find(groups.begin(), groups.end(), "system:authenticated") == groups.end() &&
          std::find(groups.begin(), groups.end(), "system:unauthenticated") == groups.end())
        groups.push_back("system:authenticated");
      co_return result;
    }
    if (result.outcome == Result::Outcome::Failed) errors += (errors.empty() ? "" : ", ") + result.error;
  }
  if (!errors.empty()) co_return Result::failed(std::move(errors));
  if (!anonymous_) co_return Result::not_applicable();
  UserInfo anonymous;
  anonymous.name = "system:anonymous";
  anonymous.groups = {"system:unauthenticated"};
  co_return Result::authenticated(std::move(anonymous));
}

}  // namespace kapi::authentication
