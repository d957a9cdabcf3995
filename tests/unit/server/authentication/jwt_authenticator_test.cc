// The JWT authenticator's parts without a network: JWS algorithms and JWKs, the --oidc-* flags as kube turns them
// into a JWT authenticator, the AuthenticationConfiguration file's decoding and validation errors (kube's field
// paths and words), and claims mapped to users by claims and by CEL, with kube's reasons for refusing.
#include "server/authentication/claim_mapper.h"
#include "server/authentication/jwk.h"
#include "server/authentication/jwt.h"
#include "server/authentication/jwt_authenticator.h"
#include "server/options.h"
#include "server/authentication/request_authenticator.h"
#include "server/pki/x509_builder.h"
#include "tests/support/temp_dir.h"

#include <asio/io_context.hpp>

#include <boost/json.hpp>
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <fstream>

namespace kapi::authentication::jwt_authenticator_test {
namespace {

namespace json = boost::json;

jwt::SharedKey rsa() {
  static const jwt::SharedKey key(pki::generate_rsa_key(2048).release(), &EVP_PKEY_free);
  return key;
}

jwt::SharedKey ec(const char* curve) { return jwt::SharedKey(EVP_EC_gen(curve), &EVP_PKEY_free); }

TEST(JwtAlgorithms, EveryAlgorithmKubeAllowsSignsAndVerifiesThroughItsJwk) {
  struct Case {
    jwt::SharedKey key;
    std::string algorithm;
  };
  const std::vector<Case> cases = {{rsa(), "RS256"}, {rsa(), "RS384"},      {rsa(), "RS512"},
                                   {rsa(), "PS256"}, {rsa(), "PS384"},      {rsa(), "PS512"},
                                   {ec("P-256"), "ES256"}, {ec("P-384"), "ES384"}, {ec("P-521"), "ES512"}};
  for (const auto& c : cases) {
    const std::string token = jwt::Signer(c.key, c.algorithm, "k1").sign({{"sub", "x"}});
    const std::string set = json::serialize(json::object{{"keys", json::array{jwk::to_jwk(c.key.get(), "k1", c.algorithm)}}});
    const std::vector<jwk::Key> keys = jwk::parse_key_set(set);
    ASSERT_EQ(keys.size(), 1u);
    EXPECT_EQ(keys[0].key_id, "k1");
    auto parsed = jwt::parse(token);
    ASSERT_TRUE(parsed) << c.algorithm;
    EXPECT_TRUE(jwt::verify(*parsed, {keys[0].key})) << c.algorithm;
    // Tampered claims no longer verify.
    parsed->signing_input[parsed->signing_input.size() - 2] ^= 1;
    EXPECT_FALSE(jwt::verify(*parsed, {keys[0].key})) << c.algorithm;
  }
  // A key of another type, and RS256 claimed for a PS256 signature, do not verify.
  auto pss = jwt::parse(jwt::Signer(rsa(), "PS256", "k").sign({{"sub", "x"}}));
  pss->header["alg"] = "RS256";
  EXPECT_FALSE(jwt::verify(*pss, {rsa()}));
  EXPECT_THROW(jwt::Signer(ec("P-256"), "RS256", "k"), std::invalid_argument);
}

TEST(JwtAlgorithms, KeySetsGoJoseCannotReadAreRefusedWhole) {
  EXPECT_THROW(jwk::parse_key_set("not json"), std::runtime_error);
  EXPECT_THROW(jwk::parse_key_set(R"({"keys":[{"kty":"oct","k":"AAAA"}]})"), std::runtime_error);
  EXPECT_THROW(jwk::parse_key_set(R"({"keys":[{"kty":"EC","crv":"P-192","x":"AA","y":"AA"}]})"), std::runtime_error);
  EXPECT_THROW(jwk::parse_key_set(R"({"keys":[{"kty":"RSA","n":"","e":"AQAB"}]})"), std::runtime_error);
  EXPECT_TRUE(jwk::parse_key_set(R"({"keys":[]})").empty());
}

TEST(JwtAuthenticatorIssuer, TheUnverifiedIssuerIsReadAsKubeReadsIt) {
  const std::string token = jwt::Signer(rsa()).sign({{"iss", "https://idp.example.com"}});
  EXPECT_EQ(jwt::untrusted_issuer(token), "https://idp.example.com");
  EXPECT_EQ(jwt::untrusted_issuer(jwt::Signer(rsa()).sign({{"iss", "accounts.google.com"}})), "https://accounts.google.com");
  EXPECT_EQ(jwt::untrusted_issuer(jwt::Signer(rsa()).sign({{"iss", 5}})), "");
  EXPECT_EQ(jwt::untrusted_issuer("a.b"), "");
  EXPECT_EQ(jwt::untrusted_issuer(token + ".x"), "");
  EXPECT_EQ(jwt::untrusted_issuer("{\"iss\":1}"), "");
}

TEST(OidcFlags, KubeDefaultsTheUsernamePrefixByTheClaim) {
  OidcFlags flags;
  flags.issuer_url = "https://idp.example.com";
  flags.client_id = "kapi";
  JwtAuthenticatorConfig config = to_jwt_authenticator(flags);
  EXPECT_EQ(config.claim_mappings.username.claim, "sub");
  EXPECT_EQ(config.claim_mappings.username.prefix, "https://idp.example.com#");
  EXPECT_EQ(config.issuer.audiences, std::vector<std::string>{"kapi"});
  EXPECT_EQ(config.signing_algorithms, std::vector<std::string>{"RS256"});
  flags.username_claim = "email";
  EXPECT_EQ(to_jwt_authenticator(flags).claim_mappings.username.prefix, "");
  flags.username_claim = "name";
  flags.username_prefix = "-";
  EXPECT_EQ(to_jwt_authenticator(flags).claim_mappings.username.prefix, "");
  flags.username_prefix = "oidc:";
  flags.groups_claim = "groups";
  flags.required_claims = {{"hd", "example.com"}};
  config = to_jwt_authenticator(flags);
  EXPECT_EQ(config.claim_mappings.username.prefix, "oidc:");
  EXPECT_EQ(config.claim_mappings.groups.prefix, "");
  ASSERT_EQ(config.claim_validation_rules.size(), 1u);
  EXPECT_EQ(config.claim_validation_rules[0].required_value, "example.com");
}

std::string parse_error(std::vector<const char*> args) {
  args.insert(args.begin(), "kapi-apiserver");
  try {
    server::parse_options(static_cast<int>(args.size()), args.data());
  } catch (const server::OptionsError& error) {
    return error.what();
  }
  return "";
}

TEST(OidcFlags, FlagsAreRefusedAsKubeRefusesThem) {
  EXPECT_EQ(parse_error({"--oidc-client-id=kapi"}),
            "oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags are set");
  EXPECT_EQ(parse_error({"--oidc-username-claim=email"}),
            "oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags are set");
  EXPECT_EQ(parse_error({"--authentication-config=/c.yaml", "--oidc-issuer-url=https://a", "--oidc-client-id=k"}),
            "authentication-config file and oidc-* flags are mutually exclusive");
  EXPECT_EQ(parse_error({"--authentication-config=/c.yaml", "--oidc-groups-prefix="}),
            "authentication-config file and oidc-* flags are mutually exclusive");
  EXPECT_EQ(parse_error({"--oidc-required-claim=novalue"}), "invalid argument \"novalue\" for \"--oidc-required-claim\" flag");
  EXPECT_EQ(parse_error({"--oidc-issuer-url=https://a", "--oidc-client-id=k", "--oidc-required-claim=a=b=c"}), "");
}

std::string validation_errors(std::string_view yaml, std::vector<std::string> disallowed = {}) {
  return aggregate(validate_authentication_configuration(parse_authentication_configuration(yaml), disallowed));
}

constexpr std::string_view kHeader = "apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthenticationConfiguration\n";

TEST(AuthenticationConfigurationFile, DecodingErrorsAreKubes) {
  EXPECT_THROW(parse_authentication_configuration(""), AuthenticationConfigError);
  try {
    parse_authentication_configuration("apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\n");
    ADD_FAILURE();
  } catch (const AuthenticationConfigError& error) {
    EXPECT_EQ(std::string(error.what()).substr(0, 80),
              std::string("no kind \"AuthenticationConfiguration\" is registered for version \"apiserver.config.k8s.io/v1\"")
                  .substr(0, 80));
  }
  EXPECT_EQ(parse_authentication_configuration("apiVersion: apiserver.config.k8s.io/v1alpha1\nkind: AuthenticationConfiguration\n")
                .jwt.size(), 0u);
  EXPECT_EQ(validation_errors(std::string(kHeader)), "");
}

TEST(AuthenticationConfigurationFile, IssuerErrorsNameTheirFields) {
  EXPECT_EQ(validation_errors(std::string(kHeader) + R"(jwt:
- issuer: {url: "http://idp.example.com?x=1#f", audiences: []}
  claimMappings: {username: {claim: sub, prefix: ""}}
)"),
            "[jwt[0].issuer.url: Invalid value: \"http://idp.example.com?x=1#f\": URL scheme must be https, "
            "jwt[0].issuer.url: Invalid value: \"http://idp.example.com?x=1#f\": URL must not contain a query, "
            "jwt[0].issuer.url: Invalid value: \"http://idp.example.com?x=1#f\": URL must not contain a fragment, "
            "jwt[0].issuer.audiences: Required value: at least one jwt[0].issuer.audiences is required]");
  EXPECT_EQ(validation_errors(std::string(kHeader) + R"(jwt:
- issuer: {url: "https://kubernetes.default.svc", audiences: [a, b], discoveryURL: "https://kubernetes.default.svc/"}
  claimMappings: {username: {claim: sub}}
- issuer: {url: "https://kubernetes.default.svc", audiences: [a], certificateAuthority: "not a certificate"}
  claimMappings: {username: {claim: sub, prefix: ""}}
)", {"https://kubernetes.default.svc"}),
            "[jwt[0].issuer.url: Invalid value: \"https://kubernetes.default.svc\": URL must not overlap with disallowed "
            "issuers: [https://kubernetes.default.svc], "
            "jwt[0].issuer.discoveryURL: Invalid value: \"https://kubernetes.default.svc/\": discoveryURL must be "
            "different from URL, "
            "jwt[0].issuer.audienceMatchPolicy: Invalid value: \"\": audienceMatchPolicy must be MatchAny for multiple "
            "audiences, "
            "jwt[0].claimMappings.username.prefix: Required value: prefix is required when claim is set. It can be set "
            "to an empty string to disable prefixing, "
            "jwt[1].issuer.url: Invalid value: \"https://kubernetes.default.svc\": URL must not overlap with disallowed "
            "issuers: [https://kubernetes.default.svc], "
            "jwt[1].issuer.certificateAuthority: Invalid value: \"<omitted>\": data does not contain any valid RSA or "
            "ECDSA certificates, "
            "jwt[1].issuer.url: Duplicate value: \"https://kubernetes.default.svc\"]");
}

TEST(AuthenticationConfigurationFile, RuleAndMappingErrorsNameTheirFields) {
  EXPECT_EQ(validation_errors(std::string(kHeader) + R"(jwt:
- issuer: {url: "https://idp.example.com", audiences: [a]}
  claimValidationRules:
  - {claim: hd, expression: "true"}
  - {}
  - {claim: hd, message: nope}
  - {expression: "claims.hd", requiredValue: x}
  - {expression: "claims.hd =="}
  claimMappings:
    username: {expression: "claims.email"}
    groups: {claim: groups, expression: "claims.groups"}
    uid: {claim: uid, expression: "claims.uid"}
    extra:
    - {key: "example.com/Tier", valueExpression: "claims.tier"}
    - {key: "kubernetes.io/x", valueExpression: "claims.x"}
    - {key: "example.com/none"}
  userValidationRules:
  - {expression: "user.username"}
  - {expression: ""}
)"),
            "[jwt[0].claimValidationRules[0]: Invalid value: \"hd\": claim and expression can't both be set, "
            "jwt[0].claimValidationRules[1]: Required value: claim or expression is required, "
            "jwt[0].claimValidationRules[2].message: Invalid value: \"nope\": may not be specified when claim is set, "
            "jwt[0].claimValidationRules[3].requiredValue: Invalid value: \"x\": may not be specified when expression is set, "
            "jwt[0].claimValidationRules[3].expression: Invalid value: \"claims.hd\": must evaluate to bool, "
            "jwt[0].claimValidationRules[4].expression: Invalid value: \"claims.hd ==\": compilation failed: "
            "ERROR: <input>:1:13: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', "
            "'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | claims.hd ==\n"
            " | ............^, "
            "jwt[0].claimMappings.groups: Invalid value: \"\": claim and expression can't both be set, "
            "jwt[0].claimMappings.uid: Invalid value: \"\": claim and expression can't both be set, "
            "jwt[0].claimMappings.extra[0].key: Invalid value: \"example.com/Tier\": must be lowercase, "
            "jwt[0].claimMappings.extra[1].key: Invalid value: \"kubernetes.io/x\": k8s.io, kubernetes.io and their "
            "subdomains are reserved for Kubernetes use, "
            "jwt[0].claimMappings.extra[2].valueExpression: Required value, "
            "jwt[0].claimMappings.username.expression: Invalid value: \"claims.email\": claims.email_verified must be "
            "used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or "
            "claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression, "
            "jwt[0].userValidationRules[0].expression: Invalid value: \"user.username\": must evaluate to bool, "
            "jwt[0].userValidationRules[1].expression: Required value]");
}

TEST(AuthenticationConfigurationFile, AnonymousIsReadValidatedAndExclusiveWithTheFlag) {
  const auto config = parse_authentication_configuration(std::string(kHeader) +
                                                         "anonymous: {enabled: true, conditions: [{path: /livez}]}\n");
  ASSERT_TRUE(config.anonymous);
  EXPECT_TRUE(config.anonymous->enabled);
  EXPECT_EQ(config.anonymous->condition_paths, std::vector<std::string>{"/livez"});
  EXPECT_EQ(validation_errors(std::string(kHeader) + "anonymous: {enabled: false, conditions: [{path: /livez}]}\n"),
            "anonymous.conditions: Invalid value: []apiserver.AnonymousAuthCondition{apiserver.AnonymousAuthCondition"
            "{Path:\"/livez\"}}: enabled should be set to true when conditions are defined");

  test_support::TempDir dir;
  std::ofstream(dir.path() / "config.yaml") << kHeader << "anonymous: {enabled: false}\n";
  asio::io_context io;  // never run: nothing is fetched
  base::Logger logger;
  AuthenticationOptions options;
  options.authentication_config_file = dir.path() / "config.yaml";
  options.executor = io.get_executor();
  options.logger = &logger;
  options.anonymous_flag_given = true;
  try {
    RequestAuthenticator::build(options);
    ADD_FAILURE() << "--anonymous-auth with the file's anonymous was accepted";
  } catch (const AuthenticationConfigError& error) {
    EXPECT_STREQ(error.what(), "anonymous: Forbidden: --anonymous-auth flag cannot be set when anonymous field is "
                               "configured in authentication configuration file");
  }
  options.anonymous_flag_given = false;
  EXPECT_NO_THROW(RequestAuthenticator::build(options));
}

ClaimMapper::Mapped mapped(const JwtAuthenticatorConfig& config, const json::object& claims) {
  validation::ErrorList errors;
  ClaimMapper mapper = ClaimMapper::compile(config, validation::Path("jwt[0]"), errors);
  EXPECT_TRUE(errors.empty()) << aggregate(errors);
  return mapper.map(claims);
}

JwtAuthenticatorConfig from_flags() {
  OidcFlags flags;
  flags.issuer_url = "https://idp.example.com";
  flags.client_id = "kapi";
  flags.username_claim = "email";
  flags.groups_claim = "groups";
  flags.groups_prefix = "oidc:";
  flags.required_claims = {{"hd", "example.com"}};
  return to_jwt_authenticator(flags);
}

TEST(ClaimMapping, ClaimsBecomeTheUserWithKubesReasonsForRefusing) {
  const JwtAuthenticatorConfig config = from_flags();
  json::object claims{{"email", "a@example.com"}, {"email_verified", true}, {"groups", json::array{"x", "y"}},
                      {"hd", "example.com"}};
  auto user = mapped(config, claims);
  ASSERT_TRUE(user.user) << user.error;
  EXPECT_EQ(user.user->name, "a@example.com");
  EXPECT_EQ(user.user->groups, (std::vector<std::string>{"oidc:x", "oidc:y"}));
  claims["groups"] = "single";  // a string claim is one group (kubernetes#33290)
  EXPECT_EQ(mapped(config, claims).user->groups, std::vector<std::string>{"oidc:single"});

  auto refused = [&](json::object changed) { return mapped(config, changed).error; };
  json::object c = claims;
  c["email_verified"] = false;
  EXPECT_EQ(refused(c), "oidc: email not verified");
  c["email_verified"] = "yes";
  EXPECT_EQ(refused(c), "oidc: parse 'email_verified' claim: json: cannot unmarshal string into Go value of type bool");
  c = claims;
  c.erase("email");
  EXPECT_EQ(refused(c), "oidc: parse username claims \"email\": claim not present");
  c = claims;
  c["hd"] = "evil.com";
  EXPECT_EQ(refused(c), "oidc: required claim hd value does not match. Got = evil.com, want = example.com");
  c.erase("hd");
  EXPECT_EQ(refused(c), "oidc: required claim hd not present in ID token");
  c = claims;
  c["groups"] = json::array{1};
  EXPECT_EQ(refused(c), "oidc: parse groups claim \"groups\": json: cannot unmarshal array into Go value of type string");
}

TEST(ClaimMapping, CelExpressionsMapAndValidate) {
  JwtAuthenticatorConfig config;
  config.issuer = {"https://idp.example.com", "", "", {"kapi"}, ""};
  config.claim_mappings.username.expression = "claims.?preferred_username.orValue(claims.sub)";
  config.claim_mappings.groups.expression = "claims.roles";
  config.claim_mappings.uid.expression = "claims.sub";
  config.claim_mappings.extra = {{"example.com/team", "claims.team"}, {"example.com/empty", "''"}};
  config.claim_validation_rules = {{"", "", "claims.exp - claims.iat <= 86400", "tokens live a day at most"}};
  config.user_validation_rules = {{"!('banned' in user.groups)", "banned"}};
  json::object claims{{"sub", "s-1"}, {"roles", json::array{"dev", ""}}, {"team", "blue"}, {"iat", 0}, {"exp", 3600}};
  auto user = mapped(config, claims);
  ASSERT_TRUE(user.user) << user.error;
  EXPECT_EQ(user.user->name, "s-1");
  EXPECT_EQ(user.user->uid, "s-1");
  EXPECT_EQ(user.user->groups, std::vector<std::string>{"dev"});
  EXPECT_EQ(user.user->extra, (std::map<std::string, std::vector<std::string>>{{"example.com/team", {"blue"}}}));
  claims["preferred_username"] = "pat";
  EXPECT_EQ(mapped(config, claims).user->name, "pat");

  json::object c = claims;
  c["exp"] = 200000;
  EXPECT_EQ(mapped(config, c).error, "oidc: error evaluating claim validation expression: validation expression "
                                     "'claims.exp - claims.iat <= 86400' failed: tokens live a day at most");
  c = claims;
  c["roles"] = json::array{"banned"};
  EXPECT_EQ(mapped(config, c).error, "oidc: error evaluating user info validation rule: validation expression "
                                     "'!('banned' in user.groups)' failed: banned");
  c = claims;
  c["roles"] = 5;
  EXPECT_EQ(mapped(config, c).error,
            "oidc: error evaluating group claim expression: expression must return a string or a list of strings");
  c = claims;
  c["preferred_username"] = 7;
  EXPECT_EQ(mapped(config, c).error,
            "oidc: error evaluating username claim expression: username claim expression must return a string");
  c = claims;
  c.erase("team");
  EXPECT_NE(mapped(config, c).error.find("expression 'claims.team' resulted in error: no such key: team"),
            std::string::npos)
      << mapped(config, c).error;
}

}  // namespace
}  // namespace kapi::authentication::jwt_authenticator_test
