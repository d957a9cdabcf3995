#pragma once
// What a JWT authenticator does with the claims of a verified token (kube's oidc.go after Verify, and
// authentication/cel's compiler and mapper): required claims, claim validation rules in CEL, the username,
// groups, UID and extra taken from claims or computed by CEL expressions over `claims`, then user validation
// rules over `user`. Compiling is validating: validate_authentication_configuration reports the configuration's
// field errors as kube's ValidateAuthenticationConfiguration does.
#include "request/request_context.h"
#include "server/authentication/authentication_config.h"
#include "server/validation/field_error.h"

#include <boost/json/object.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kapi::authentication {

class ClaimMapper {
 public:
  // Validates and compiles one authenticator's rules and mappings; field errors go to `errors` under `path`
  // ("jwt[0]"; an empty path for an authenticator made from flags). Usable only when no error was added.
  static ClaimMapper compile(const JwtAuthenticatorConfig& config, const validation::Path& path,
                             validation::ErrorList& errors);

  struct Mapped {
    std::optional<request::UserInfo> user;
    std::string error;  // why not, in kube's words (for the log: clients only see 401)
  };
  // The user the verified `claims` name.
  Mapped map(const boost::json::object& claims) const;

  struct Compiled;

 private:
  std::shared_ptr<const Compiled> compiled_;
};

// kube's ValidateAuthenticationConfiguration; `disallowed_issuers` are the service account issuers.
validation::ErrorList validate_authentication_configuration(const AuthenticationConfiguration& config,
                                                            const std::vector<std::string>& disallowed_issuers);

// field.ErrorList.ToAggregate().Error(): one error as itself, several as "[a, b]".
std::string aggregate(const validation::ErrorList& errors);

}  // namespace kapi::authentication
