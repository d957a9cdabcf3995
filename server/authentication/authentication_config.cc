#include "server/authentication/authentication_config.h"

#include "server/pki/pem_io.h"
#include "server/schema/yaml_to_json.h"

#include <boost/json.hpp>

#include <algorithm>

namespace kapi::authentication {
namespace {

namespace json = boost::json;

constexpr std::string_view kGroup = "apiserver.config.k8s.io";

// A field of the wrong JSON type is what Go's decoder refuses: "json: cannot unmarshal <type> into Go struct
// field <Struct>.<path> of type <type>"; kapi names the field in the same words.
[[noreturn]] void wrong_type(std::string_view path, std::string_view go_type) {
  throw AuthenticationConfigError("json: cannot unmarshal into Go struct field AuthenticationConfiguration." +
                                  std::string(path) + " of type " + std::string(go_type));
}

std::string string_at(const json::object& object, std::string_view key, std::string_view path) {
  const json::value* value = object.if_contains(key);
  if (!value || value->is_null()) return {};
  if (!value->is_string()) wrong_type(std::string(path) + "." + std::string(key), "string");
  return std::string(value->as_string());
}

std::optional<std::string> optional_string_at(const json::object& object, std::string_view key, std::string_view path) {
  const json::value* value = object.if_contains(key);
  if (!value || value->is_null()) return std::nullopt;
  return string_at(object, key, path);
}

const json::object* object_at(const json::object& object, std::string_view key, std::string_view path) {
  const json::value* value = object.if_contains(key);
  if (!value || value->is_null()) return nullptr;
  if (!value->is_object()) wrong_type(std::string(path) + "." + std::string(key), "struct");
  return &value->as_object();
}

// Each element of the list at `key` as an object (an empty list when absent).
std::vector<const json::object*> objects_at(const json::object& object, std::string_view key, std::string_view path) {
  std::vector<const json::object*> out;
  const json::value* value = object.if_contains(key);
  if (!value || value->is_null()) return out;
  if (!value->is_array()) wrong_type(std::string(path) + "." + std::string(key), "[]struct");
  for (const auto& item : value->as_array()) {
    if (!item.is_object()) wrong_type(std::string(path) + "." + std::string(key), "struct");
    out.push_back(&item.as_object());
  }
  return out;
}

std::vector<std::string> strings_at(const json::object& object, std::string_view key, std::string_view path) {
  std::vector<std::string> out;
  const json::value* value = object.if_contains(key);
  if (!value || value->is_null()) return out;
  if (!value->is_array()) wrong_type(std::string(path) + "." + std::string(key), "[]string");
  for (const auto& item : value->as_array()) {
    if (!item.is_string()) wrong_type(std::string(path) + "." + std::string(key), "string");
    out.emplace_back(item.as_string());
  }
  return out;
}

PrefixedClaimOrExpression prefixed_mapping(const json::object* mapping, std::string_view path) {
  PrefixedClaimOrExpression out;
  if (!mapping) return out;
  out.claim = string_at(*mapping, "claim", path);
  out.prefix = optional_string_at(*mapping, "prefix", path);
  out.expression = string_at(*mapping, "expression", path);
  return out;
}

JwtAuthenticatorConfig jwt_authenticator(const json::object& object) {
  constexpr std::string_view path = "jwt";
  JwtAuthenticatorConfig out;
  // kube allows every algorithm it knows to the file's issuers ("any alg is fine as long it matches a public key").
  out.signing_algorithms = allowed_signing_algorithms();
  if (const json::object* issuer = object_at(object, "issuer", path)) {
    const std::string at = "jwt.issuer";
    out.issuer.url = string_at(*issuer, "url", at);
    out.issuer.discovery_url = string_at(*issuer, "discoveryURL", at);
    out.issuer.certificate_authority = string_at(*issuer, "certificateAuthority", at);
    out.issuer.audiences = strings_at(*issuer, "audiences", at);
    out.issuer.audience_match_policy = string_at(*issuer, "audienceMatchPolicy", at);
  }
  for (const json::object* rule : objects_at(object, "claimValidationRules", path)) {
    const std::string at = "jwt.claimValidationRules";
    out.claim_validation_rules.push_back({string_at(*rule, "claim", at), string_at(*rule, "requiredValue", at),
                                          string_at(*rule, "expression", at), string_at(*rule, "message", at)});
  }
  if (const json::object* mappings = object_at(object, "claimMappings", path)) {
    const std::string at = "jwt.claimMappings";
    out.claim_mappings.username = prefixed_mapping(object_at(*mappings, "username", at), at + ".username");
    out.claim_mappings.groups = prefixed_mapping(object_at(*mappings, "groups", at), at + ".groups");
    if (const json::object* uid = object_at(*mappings, "uid", at))
      out.claim_mappings.uid = {string_at(*uid, "claim", at + ".uid"), string_at(*uid, "expression", at + ".uid")};
    for (const json::object* extra : objects_at(*mappings, "extra", at))
      out.claim_mappings.extra.push_back({string_at(*extra, "key", at + ".extra"),
                                          string_at(*extra, "valueExpression", at + ".extra")});
  }
  for (const json::object* rule : objects_at(object, "userValidationRules", path)) {
    const std::string at = "jwt.userValidationRules";
    out.user_validation_rules.push_back({string_at(*rule, "expression", at), string_at(*rule, "message", at)});
  }
  return out;
}

}  // namespace

AuthenticationConfiguration parse_authentication_configuration(std::string_view data) {
  if (data.empty()) throw AuthenticationConfigError("empty config data");
  json::value document;
  try {
    document = schema::yaml_to_json(data).value;
  } catch (const schema::YamlError& error) {
    throw AuthenticationConfigError(std::string("couldn't get version/kind; json parse error: ") + error.what());
  }
  if (!document.is_object()) throw AuthenticationConfigError("couldn't get version/kind; json parse error: not an object");
  const json::object& object = document.as_object();
  const std::string api_version = string_at(object, "apiVersion", "TypeMeta");
  const std::string kind = string_at(object, "kind", "TypeMeta");
  // runtime.Decode's errors for what the scheme does not know.
  if (kind.empty()) throw AuthenticationConfigError("Object 'Kind' is missing in '" + std::string(data) + "'");
  const bool known_version =
      api_version == std::string(kGroup) + "/v1beta1" || api_version == std::string(kGroup) + "/v1alpha1";
  if (!known_version || kind != "AuthenticationConfiguration")
    throw AuthenticationConfigError("no kind \"" + kind + "\" is registered for version \"" + api_version +
                                    "\" in scheme \"pkg/kubeapiserver/options/authentication.go\"");
  AuthenticationConfiguration out;
  for (const json::object* jwt : objects_at(object, "jwt", "AuthenticationConfiguration"))
    out.jwt.push_back(jwt_authenticator(*jwt));
  if (const json::object* anonymous = object_at(object, "anonymous", "AuthenticationConfiguration")) {
    AnonymousConfig config;
    if (const json::value* enabled = anonymous->if_contains("enabled"); enabled && !enabled->is_null()) {
      if (!enabled->is_bool()) wrong_type("anonymous.enabled", "bool");
      config.enabled = enabled->as_bool();
    }
    for (const json::object* condition : objects_at(*anonymous, "conditions", "anonymous"))
      config.condition_paths.push_back(string_at(*condition, "path", "anonymous.conditions"));
    out.anonymous = std::move(config);
  }
  return out;
}

bool OidcFlags::any_given() const {
  return !issuer_url.empty() || !client_id.empty() || !ca_file.empty() || username_claim || username_prefix ||
         !groups_claim.empty() || groups_prefix || !required_claims.empty() || !signing_algs.empty();
}

std::vector<std::string> validate_oidc_flags(const OidcFlags& flags, bool authentication_config_given) {
  std::vector<std::string> errors;
  if (!authentication_config_given) {
    if (flags.any_given() && (flags.issuer_url.empty() || flags.client_id.empty()))
      errors.push_back("oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags are set");
    return errors;
  }
  if (flags.any_given()) errors.push_back("authentication-config file and oidc-* flags are mutually exclusive");
  return errors;
}

const std::vector<std::string>& allowed_signing_algorithms() {
  static const std::vector<std::string> algorithms = {"ES256", "ES384", "ES512", "PS256", "PS384",
                                                      "PS512", "RS256", "RS384", "RS512"};
  return algorithms;
}

JwtAuthenticatorConfig to_jwt_authenticator(const OidcFlags& flags) {
  JwtAuthenticatorConfig out;
  out.issuer.url = flags.issuer_url;
  out.issuer.audiences = {flags.client_id};
  if (!flags.ca_file.empty()) {
    try {
      out.issuer.certificate_authority = pki::read_file(flags.ca_file);
    } catch (const std::exception& error) {
      throw AuthenticationConfigError("failed to read the OIDC CA file: " + std::string(error.what()));
    }
  }
  const std::string username_claim = flags.username_claim.value_or("sub");
  std::string username_prefix = flags.username_prefix.value_or("");
  // Legacy flag behaviour (kubernetes#31380): without a prefix, every claim but "email" is prefixed with the
  // issuer, so that users of two issuers never collide; "-" asks for no prefix at all.
  if (username_prefix.empty() && username_claim != "email") username_prefix = flags.issuer_url + "#";
  if (username_prefix == "-") username_prefix.clear();
  out.claim_mappings.username = {username_claim, username_prefix, ""};
  if (!flags.groups_claim.empty())
    out.claim_mappings.groups = {flags.groups_claim, flags.groups_prefix.value_or(""), ""};
  for (const auto& [claim, value] : flags.required_claims) out.claim_validation_rules.push_back({claim, value, "", ""});
  if (!flags.signing_algs.empty()) out.signing_algorithms = flags.signing_algs;
  return out;
}

}  // namespace kapi::authentication
