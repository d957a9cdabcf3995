#pragma once
// kube's JWT authenticator configuration (k8s.io/apiserver/pkg/apis/apiserver: AuthenticationConfiguration and
// JWTAuthenticator), read from --authentication-config (apiserver.config.k8s.io/v1beta1 or v1alpha1, as
// kube-apiserver 1.32 accepts) or made from the --oidc-* flags as kube's OIDCAuthenticationOptions make it, and
// validated as kube's ValidateAuthenticationConfiguration validates it, with its field paths and wording.
#include "server/validation/field_error.h"

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::authentication {

struct PrefixedClaimOrExpression {
  std::string claim;
  std::optional<std::string> prefix;  // unset differs from "": a claim needs a prefix, "" meaning none
  std::string expression;
};

struct ClaimOrExpression {
  std::string claim;
  std::string expression;
};

struct ExtraMapping {
  std::string key;
  std::string value_expression;
};

struct ClaimMappings {
  PrefixedClaimOrExpression username;
  PrefixedClaimOrExpression groups;
  ClaimOrExpression uid;
  std::vector<ExtraMapping> extra;
};

struct ClaimValidationRule {
  std::string claim;
  std::string required_value;
  std::string expression;
  std::string message;
};

struct UserValidationRule {
  std::string expression;
  std::string message;
};

struct JwtIssuer {
  std::string url;
  std::string discovery_url;
  std::string certificate_authority;  // PEM; the host's roots when empty
  std::vector<std::string> audiences;
  std::string audience_match_policy;  // "" or "MatchAny"
};

struct JwtAuthenticatorConfig {
  JwtIssuer issuer;
  std::vector<ClaimValidationRule> claim_validation_rules;
  ClaimMappings claim_mappings;
  std::vector<UserValidationRule> user_validation_rules;
  // Only from --oidc-signing-algs; the file has no such field and kube accepts RS256 alone for it.
  std::vector<std::string> signing_algorithms = {"RS256"};
};

// kube's AnonymousAuthConfig (AnonymousAuthConfigurableEndpoints, beta and on in 1.32): anonymous requests on or
// off whatever --anonymous-auth would say, and, when conditions are given, only for those exact paths.
struct AnonymousConfig {
  bool enabled = false;
  std::vector<std::string> condition_paths;
  friend bool operator==(const AnonymousConfig&, const AnonymousConfig&) = default;
};

struct AuthenticationConfiguration {
  std::vector<JwtAuthenticatorConfig> jwt;
  std::optional<AnonymousConfig> anonymous;
};

// The file cannot be read or decoded; what() is kube's error.
class AuthenticationConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// kube's loadAuthenticationConfigFromData: YAML or JSON of kind AuthenticationConfiguration in
// apiserver.config.k8s.io/v1beta1 or v1alpha1. Not validated.
AuthenticationConfiguration parse_authentication_configuration(std::string_view data);

// The --oidc-* flags (kube's OIDCAuthenticationOptions).
struct OidcFlags {
  std::string issuer_url;
  std::string client_id;
  std::string ca_file;
  std::optional<std::string> username_claim;   // kube's default: "sub"
  std::optional<std::string> username_prefix;  // unset: see to_jwt_authenticator
  std::string groups_claim;
  std::optional<std::string> groups_prefix;
  std::vector<std::pair<std::string, std::string>> required_claims;  // --oidc-required-claim key=value, in order
  std::vector<std::string> signing_algs;       // kube's default: RS256

  // kube's areFlagsConfigured: any --oidc-* flag given.
  bool any_given() const;
};

// kube's validateOIDCOptions: errors for flags that cannot go together (with or without --authentication-config).
std::vector<std::string> validate_oidc_flags(const OidcFlags& flags, bool authentication_config_given);

// The flags as one JWT authenticator, as kube's OIDCAuthenticationOptions.ToAuthenticationConfig builds it: the
// username prefix defaults to "<issuer-url>#" unless the username claim is "email", and "-" means none. Reads
// --oidc-ca-file (throws AuthenticationConfigError when it cannot).
JwtAuthenticatorConfig to_jwt_authenticator(const OidcFlags& flags);

// The signing algorithms kube's oidc authenticator allows.
const std::vector<std::string>& allowed_signing_algorithms();

}  // namespace kapi::authentication
