#include "server/authentication/x509.h"

namespace kapi::authentication {

asio::awaitable<Result> X509Authenticator::authenticate(http::Request& request) const {
  const auto& certificate = request.peer_certificate;
  if (!certificate) co_return Result::not_applicable();
  if (!certificate->verified) co_return Result::failed("verifying certificate: " + certificate->verify_error);
  // kube's CommonNameUserConversion: no CN, no user from this certificate (the request may still be anonymous).
  if (certificate->common_name.empty()) co_return Result::not_applicable();
  UserInfo user;
  user.name = certificate->common_name;
  user.groups = certificate->organizations;
  co_return Result::authenticated(std::move(user));
}

}  // namespace kapi::authentication
