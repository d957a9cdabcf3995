#pragma once
// The request authenticator kube-apiserver builds from its flags (pkg/kubeapiserver/authenticator/config.go):
// client certificates and bearer tokens tried in order, the first user found wins; then, with
// --anonymous-auth, a request that carried no credential at all is system:anonymous. A credential that fails is
// a 401 even when anonymous requests are allowed (kube's union.NewFailOnError). Every authenticated user is in
// system:authenticated (AuthenticatedGroupAdder).
#include "server/authentication/authenticator.h"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace kapi::authentication {

struct AuthenticationOptions {
  bool anonymous = true;                   // --anonymous-auth
  std::filesystem::path token_auth_file;  // --token-auth-file
};

class RequestAuthenticator {
 public:
  // Reads what the options name (throws TokenFileError for a bad token file); `warnings` gets what kube logs.
  static std::shared_ptr<const RequestAuthenticator> build(const AuthenticationOptions& options,
                                                            std::vector<std::string>* warnings = nullptr);
  RequestAuthenticator(std::vector<std::shared_ptr<const Authenticator>> authenticators, bool anonymous)
      : authenticators_(std::move(authenticators)), anonymous_(anonymous) {}

  // The user, or Failed (answer 401) — NotApplicable only when anonymous requests are not allowed.
  asio::awaitable<Result> authenticate(http::Request& request) const;

 private:
  std::vector<std::shared_ptr<const Authenticator>> authenticators_;
  bool anonymous_;
};

}  // namespace kapi::authentication
