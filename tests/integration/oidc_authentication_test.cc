// JWT authentication from the --oidc-* flags against a test OIDC issuer: kubectl logs in with an ID token, by
// --token and through an exec credential plugin, and RBAC authorizes the mapped user and groups; every bad token
// is 401 with nothing said about why; rotated keys are picked up; a dead issuer holds up nobody else.
#include "tests/integration/oidc_suite.h"

#include "base/base64.h"
#include "server/metrics/families.h"
#include "tests/support/command.h"

#include <boost/json.hpp>

#include <cstdlib>
#include <fstream>
#include <thread>

namespace kapi::integration::oidc_authentication_test {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

constexpr std::string_view kClientId = "kapi-test";

class OidcFlagsTest : public KapiSuite<OidcFlagsTest> {
 public:
  static KapiOptions kapi_options() {
    issuer_ = std::make_unique<OidcIssuer>();
    const auto& dir = oidc_suite_dir("oidc-flags");
    KapiOptions options;
    options.extra_flags = {"--oidc-issuer-url=" + issuer_->url(),
                           "--oidc-client-id=" + std::string(kClientId),
                           "--oidc-ca-file=" + issuer_->write_ca(dir / "issuer-ca.crt"),
                           "--oidc-username-claim=email",
                           "--oidc-groups-claim=groups",
                           "--oidc-groups-prefix=oidc:",
                           "--oidc-required-claim=hd=example.com",
                           "--oidc-signing-algs=RS256,ES256,PS256,RS512"};
    return options;
  }
  static void TearDownTestSuite() {
    KapiSuite<OidcFlagsTest>::TearDownTestSuite();
    issuer_.reset();
  }

 protected:
  static OidcIssuer& issuer() { return *issuer_; }

  // A valid token's claims for `email` in `groups`.
  static json::object claims_of(const std::string& email, json::array groups = {}) {
    json::object claims = issuer().claims("subject-of-" + email, std::string(kClientId));
    claims["email"] = email;
    claims["email_verified"] = true;
    claims["hd"] = "example.com";
    claims["groups"] = std::move(groups);
    return claims;
  }

  // 401 with kube's Status and nothing about why.
  static ::testing::AssertionResult refused(const std::string& token) {
    HttpResponse response = get_with_token(kapi(), token);
    if (!is_status(response, 401, "Unauthorized")) return is_status(response, 401, "Unauthorized");
    if (status_message(response) != "Unauthorized")
      return ::testing::AssertionFailure() << "the 401 says more than Unauthorized: " << response.body;
    return ::testing::AssertionSuccess();
  }

  void bind(const std::string& manifest_name, const std::string& manifest) {
    CommandResult applied = run_kubectl(kapi(), "apply -f " + write_manifest(kapi(), manifest_name, manifest));
    ASSERT_EQ(applied.exit_code, 0) << applied.output;
  }

 private:
  static inline std::unique_ptr<OidcIssuer> issuer_;
};

TEST_F(OidcFlagsTest, KubectlWithAnIdTokenIsTheMappedUserAuthorizedByRbac) {
  bind("alice-view.yaml", R"(apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: alice-view, namespace: default}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: alice@example.com}
)");
  const std::string token = issuer().mint(claims_of("alice@example.com"));
  // RBAC reads its policy from the watch cache: the binding may take a moment to apply.
  ASSERT_TRUE(eventually([&] { return get_with_token(kapi(), token).status == 200; }));
  CommandResult listed = kubectl_with_token(kapi(), token, "alice", "get configmaps -n default -o name");
  EXPECT_EQ(listed.exit_code, 0) << listed.output;
  EXPECT_NE(listed.output.find("configmap/kube-root-ca.crt"), std::string::npos) << listed.output;
  CommandResult created = kubectl_with_token(kapi(), token, "alice", "create configmap alice-was-here -n default");
  EXPECT_NE(created.exit_code, 0);
  EXPECT_NE(created.output.find("error: failed to create configmap: configmaps is forbidden: User \"alice@example.com\" "
                                "cannot create resource \"configmaps\" in API group \"\" in the namespace \"default\""),
            std::string::npos)
      << created.output;
  CommandResult elsewhere = kubectl_with_token(kapi(), token, "alice", "get configmaps -n kube-system");
  EXPECT_NE(elsewhere.exit_code, 0);
  EXPECT_NE(elsewhere.output.find("(Forbidden)"), std::string::npos) << elsewhere.output;
}

TEST_F(OidcFlagsTest, AnExecCredentialPluginLogsInAndGroupsArePrefixed) {
  bind("editors.yaml", R"(apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: oidc-editors, namespace: default}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: edit}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: Group, name: "oidc:editors"}
)");
  const std::string token = issuer().mint(claims_of("bob@example.com", {"editors", "viewers"}), "ec-1");
  const json::object user = who_am_i(kapi(), token);
  ASSERT_FALSE(user.empty()) << "the token was refused";
  EXPECT_EQ(user.at("username"), "bob@example.com");
  EXPECT_EQ(user.at("groups"), (json::array{"oidc:editors", "oidc:viewers", "system:authenticated"}));
  ASSERT_TRUE(eventually([&] {
    return kapi().connect_anonymous().request("POST", "/api/v1/namespaces/default/configmaps",
                                              {{"Authorization", "Bearer " + token}, {"Content-Type", "application/json"}},
                                              R"({"metadata":{"name":"bob-probe"}})").status == 201;
  }));
  CommandResult created = kubectl_with_exec_plugin(kapi(), token, "bob", "create configmap bob-was-here -n default");
  EXPECT_EQ(created.exit_code, 0) << created.output;
  EXPECT_EQ(created.output, "configmap/bob-was-here created\n");
  CommandResult whoami = kubectl_with_exec_plugin(kapi(), token, "bob", "auth whoami -o jsonpath={.status.userInfo.username}");
  EXPECT_EQ(whoami.exit_code, 0) << whoami.output;
  EXPECT_EQ(whoami.output, "bob@example.com");
  CommandResult forbidden = kubectl_with_exec_plugin(kapi(), token, "bob", "get nodes");
  EXPECT_NE(forbidden.exit_code, 0);
  EXPECT_NE(forbidden.output.find("(Forbidden)"), std::string::npos) << forbidden.output;
}

TEST_F(OidcFlagsTest, EverySigningAlgorithmAllowedVerifies) {
  issuer().add_key("pss-1", "RSA", "PS256");
  issuer().add_key("rsa512-1", "RSA", "RS512");
  for (const std::string key_id : {"rsa-1", "ec-1", "pss-1", "rsa512-1"}) {
    EXPECT_EQ(username_of(kapi(), issuer().mint(claims_of("carol@example.com"), key_id)), "carol@example.com") << key_id;
  }
  // Allowed by the issuer's key but not by --oidc-signing-algs.
  issuer().add_key("rsa384-1", "RSA", "RS384");
  EXPECT_TRUE(refused(issuer().mint(claims_of("carol@example.com"), "rsa384-1")));
}

TEST_F(OidcFlagsTest, BadTokensAre401WithNoDetail) {
  const auto now = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  auto changed = [&](const std::string& key, json::value value) {
    json::object claims = claims_of("mallory@example.com");
    if (value.is_null()) claims.erase(key);
    else claims[key] = std::move(value);
    return issuer().mint(claims);
  };
  const std::string good = issuer().mint(claims_of("mallory@example.com"));
  ASSERT_EQ(get_with_token(kapi(), good).status, 403);  // authenticated, but nobody bound mallory

  EXPECT_TRUE(refused(changed("exp", now - 120))) << "expired";
  EXPECT_TRUE(refused(changed("exp", nullptr))) << "without exp";
  EXPECT_TRUE(refused(changed("nbf", now + 3600))) << "not yet valid";
  EXPECT_TRUE(refused(changed("aud", "someone-else"))) << "wrong audience";
  EXPECT_TRUE(refused(changed("iss", "https://evil.example.com"))) << "another issuer";
  EXPECT_TRUE(refused(changed("hd", "evil.example.com"))) << "required claim with another value";
  EXPECT_TRUE(refused(changed("hd", nullptr))) << "required claim missing";
  EXPECT_TRUE(refused(changed("email_verified", false))) << "email not verified";

  // Unsigned: alg none and an empty signature.
  const std::string header = base::base64_encode(R"({"alg":"none","kid":"rsa-1"})", base::Base64::kRawUrl);
  const std::string payload = base::base64_encode(json::serialize(claims_of("mallory@example.com")), base::Base64::kRawUrl);
  EXPECT_TRUE(refused(header + "." + payload + ".")) << "alg none";
  // Signed by a key the issuer never published, under a published key's ID and under a new one.
  EXPECT_TRUE(refused(OidcIssuer::mint_with(OidcIssuer::unpublished_key("rsa-1", "RSA", "RS256"), claims_of("mallory@example.com"))));
  EXPECT_TRUE(refused(OidcIssuer::mint_with(OidcIssuer::unpublished_key("forged", "EC", "ES256"), claims_of("mallory@example.com"))));
  // The good token's claims with a signature from another token.
  const std::string other = issuer().mint(claims_of("eve@example.com"));
  EXPECT_TRUE(refused(good.substr(0, good.rfind('.')) + other.substr(other.rfind('.')))) << "swapped signature";
  // Oversized: kube sets no bound of its own on a token, only on the request's headers (1 MiB, then 431); a large
  // token whose signature is not the issuer's is refused like any other.
  json::object big = claims_of("mallory@example.com");
  big["padding"] = std::string(600 * 1024, 'x');
  const std::string big_token = issuer().mint(big);
  EXPECT_TRUE(refused(big_token.substr(0, big_token.rfind('.')) + other.substr(other.rfind('.')))) << "oversized";
  big["padding"] = std::string(1100 * 1024, 'x');
  EXPECT_EQ(get_with_token(kapi(), issuer().mint(big)).status, 431) << "beyond the header limit";
  const std::vector<std::string> malformed_tokens = {"a.b.c", "not-a-jwt", good + ".extra",
                                                     good.substr(0, good.rfind('.')), "..", "{}"};
  for (const std::string& malformed : malformed_tokens)
    EXPECT_TRUE(refused(malformed)) << malformed;
}

TEST_F(OidcFlagsTest, RotatedKeysAreFetchedAndDroppedKeysStopVerifying) {
  const std::string before = issuer().mint(claims_of("dave@example.com"), "rsa-1");
  const auto first_used = std::chrono::steady_clock::now();
  ASSERT_EQ(username_of(kapi(), before), "dave@example.com");
  const auto last_used = std::chrono::steady_clock::now();
  // The issuer rotates: a new key is published, the old one withdrawn.
  issuer().add_key("rsa-2", "RSA", "RS256");
  const std::uint64_t fetches = issuer().key_set_fetches();
  const std::string after = issuer().mint(claims_of("dave@example.com"), "rsa-2");
  issuer().remove_key("rsa-1");
  EXPECT_EQ(username_of(kapi(), after), "dave@example.com");
  EXPECT_GT(issuer().key_set_fetches(), fetches) << "an unknown key ID fetches the key set again";
  // kube's token cache knows the user of `before` for 10 s (TokenSuccessCacheTTL); after that the withdrawn key no
  // longer verifies it.
  if (std::chrono::steady_clock::now() - first_used < 7s) {
    EXPECT_EQ(username_of(kapi(), before), "dave@example.com") << "still cached";
  }
  EXPECT_TRUE(eventually([&] { return static_cast<bool>(refused(before)); }, 15s, 100ms))
      << "a token of the withdrawn key";
  EXPECT_LT(std::chrono::steady_clock::now() - last_used, 14s);
  issuer().add_key("rsa-1", "RSA", "RS256");  // the other tests sign with rsa-1
}

// Distributed claims (OIDC Core 1.0 §5.6.2), as an IdP names the groups of a user in too many of them: carol's ID
// token names the endpoint of her groups, kapi fetches them with her access token and verifies the answer as a JWT
// of the issuer, and RBAC authorizes her through them. The first such JWT of an issuer is refused while kapi starts
// its verifier for that issuer, as kube's claim resolver does.
TEST_F(OidcFlagsTest, GroupsFromADistributedClaimsEndpointAreAuthorizedByRbac) {
  bind("auditors-view.yaml", R"(apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: auditors-view, namespace: kube-public}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: Group, name: "oidc:auditors"}
)");
  json::object groups = issuer().claims("subject-of-carol@example.com", std::string(kClientId));
  groups["groups"] = json::array{"auditors"};
  issuer().serve_claims("carol-groups", issuer().mint(groups), "carol-access-token");
  json::object claims = claims_of("carol@example.com");
  claims.erase("groups");
  const std::string token = issuer().mint(issuer().distributed(claims, "groups", "carol-groups", "carol-access-token"));

  // The verifier's first discovery may fail on a loaded machine and is retried 10 s later, as kube's is.
  ASSERT_TRUE(eventually([&] { return get_with_token(kapi(), token, "/api/v1/namespaces/kube-public/configmaps").status == 200; },
                         60s, 100ms))
      << kapi().logs();
  EXPECT_NE(kapi().logs().find("verifier not initialized for issuer"), std::string::npos)
      << "the first JWT of an issuer of distributed claims waits for its verifier";
  EXPECT_EQ(who_am_i(kapi(), token).at("groups"), (json::array{"oidc:auditors", "system:authenticated"}));
  EXPECT_EQ(issuer().last_claims_authorization("carol-groups"), "Bearer carol-access-token");
  CommandResult listed = kubectl_with_exec_plugin(kapi(), token, "carol", "get configmaps -n kube-public -o name");
  EXPECT_EQ(listed.exit_code, 0) << listed.output;
  CommandResult elsewhere = kubectl_with_exec_plugin(kapi(), token, "carol", "get configmaps -n default");
  EXPECT_NE(elsewhere.output.find("User \"carol@example.com\" cannot list resource \"configmaps\""), std::string::npos)
      << elsewhere.output;
}

// Claims that cannot be resolved refuse the token (401, the reason only in the log): no endpoint, the wrong access
// token, a JWT for another audience.
TEST_F(OidcFlagsTest, UnresolvableDistributedClaimsAreUnauthorized) {
  auto naming = [&](const std::string& source, const std::string& access_token) {
    json::object claims = claims_of("dan@example.com");
    claims.erase("groups");
    return issuer().mint(issuer().distributed(claims, "groups", source, access_token));
  };
  EXPECT_TRUE(refused(naming("nowhere", "")));
  EXPECT_TRUE(eventually([&] {
    return kapi().logs().find("could not expand distributed claims: while getting distributed claim \\\"groups\\\": "
                              "error while getting distributed claim JWT: 404 Not Found") != std::string::npos;
  })) << kapi().logs();

  json::object groups = issuer().claims("subject-of-dan@example.com", std::string(kClientId));
  groups["groups"] = json::array{"auditors"};
  issuer().serve_claims("dan-groups", issuer().mint(groups), "dan-access-token");
  EXPECT_TRUE(refused(naming("dan-groups", "stolen-token")));
  EXPECT_EQ(issuer().last_claims_authorization("dan-groups"), "Bearer stolen-token");

  json::object elsewhere = issuer().claims("subject-of-dan@example.com", "another-client");
  elsewhere["groups"] = json::array{"auditors"};
  issuer().serve_claims("dan-foreign-groups", issuer().mint(elsewhere));
  const std::string foreign = naming("dan-foreign-groups", "");
  EXPECT_TRUE(eventually([&] {
    return refused(foreign) &&
           kapi().logs().find("verify distributed claim token: oidc: expected audience") != std::string::npos;
  })) << kapi().logs();
}

// kube's metrics of JWT authentication: each token an issuer's authenticator decides, timed by issuer (hashed) and
// result, and the token cache's lookups (the second use of a token is a hit).
TEST_F(OidcFlagsTest, TheJwtAuthenticatorAndTheTokenCacheAreMeasured) {
  const std::string token = issuer().mint(claims_of("frank@example.com"));
  ASSERT_EQ(username_of(kapi(), token), "frank@example.com");
  ASSERT_EQ(username_of(kapi(), token), "frank@example.com");
  json::object wrong = claims_of("frank@example.com");
  wrong["aud"] = "someone-else";
  EXPECT_TRUE(refused(issuer().mint(wrong)));
  const std::string metrics = kapi().connect_admin().request("GET", "/metrics").body;
  const std::string issuer_hash = kapi::metrics::sha256_label(issuer().url());
  for (const std::string result : {"success", "failure"})
    EXPECT_NE(metrics.find("apiserver_authentication_jwt_authenticator_latency_seconds_bucket{jwt_issuer_hash=\"" +
                           issuer_hash + "\",result=\"" + result + "\",le=\"0.001\"}"),
              std::string::npos)
        << result << "\n" << metrics;
  EXPECT_NE(metrics.find("# TYPE apiserver_authentication_jwt_authenticator_latency_seconds histogram\n"),
            std::string::npos);
  EXPECT_NE(metrics.find("authentication_token_cache_request_total{status=\"hit\"} "), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("authentication_token_cache_request_total{status=\"miss\"} "), std::string::npos);
  EXPECT_NE(metrics.find("authentication_token_cache_request_duration_seconds_bucket{status=\"hit\",le=\"0.005\"} "),
            std::string::npos);
  EXPECT_NE(metrics.find("authentication_token_cache_fetch_total{status=\"ok\"} "), std::string::npos);
  EXPECT_NE(metrics.find("authentication_token_cache_active_fetch_count{status=\"blocked\"} 0\n"), std::string::npos);
}

// A JWT of another issuer is not the OIDC authenticator's: the service account authenticator still reads its own.
TEST_F(OidcFlagsTest, ServiceAccountTokensStillAuthenticate) {
  HttpResponse token = kapi().connect_admin().request(
      "POST", "/api/v1/namespaces/default/serviceaccounts/default/token", {{"Content-Type", "application/json"}},
      R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{}})");
  ASSERT_EQ(token.status, 201) << token.body;
  const std::string jwt(json_object(token.body)["status"].as_object()["token"].as_string());
  EXPECT_EQ(username_of(kapi(), jwt), "system:serviceaccount:default:default");
}

// An issuer that accepts connections and never answers: kapi never learns its keys, so its tokens are 401 at once,
// and requests with other credentials do not wait for it.
class OidcDeadIssuerTest : public KapiSuite<OidcDeadIssuerTest> {
 public:
  static KapiOptions kapi_options() {
    issuer_ = std::make_unique<OidcIssuer>();
    issuer_->stall(true);
    const auto& dir = oidc_suite_dir("oidc-dead");
    KapiOptions options;
    options.extra_flags = {"--oidc-issuer-url=" + issuer_->url(), "--oidc-client-id=" + std::string(kClientId),
                           "--oidc-ca-file=" + issuer_->write_ca(dir / "issuer-ca.crt")};
    return options;
  }
  static void TearDownTestSuite() {
    KapiSuite<OidcDeadIssuerTest>::TearDownTestSuite();
    issuer_.reset();
  }

 protected:
  static inline std::unique_ptr<OidcIssuer> issuer_;
};

TEST_F(OidcDeadIssuerTest, OtherCredentialsAreServedAtOnceAndItsTokensFail) {
  const std::string token = issuer_->mint(issuer_->claims("zoe", std::string(kClientId)));
  for (int i = 0; i < 5; ++i) {
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(kapi().connect_admin().request("GET", "/api/v1/namespaces/default").status, 200);
    EXPECT_LT(seconds_since(start), 1.0);
    const auto token_start = std::chrono::steady_clock::now();
    HttpResponse refused = get_with_token(kapi(), token);
    EXPECT_TRUE(is_status(refused, 401, "Unauthorized")) << refused.body;
    EXPECT_LT(seconds_since(token_start), 1.0) << "a token of an issuer whose keys are unknown fails at once";
  }
}

// An issuer that is down when kapi starts: its tokens fail until kapi's next try of the discovery (every 10 s, as
// kube's), then work.
class OidcLateIssuerTest : public KapiSuite<OidcLateIssuerTest> {
 public:
  static KapiOptions kapi_options() {
    issuer_ = std::make_unique<OidcIssuer>();
    issuer_->refuse(true);
    const auto& dir = oidc_suite_dir("oidc-late");
    KapiOptions options;
    options.extra_flags = {"--oidc-issuer-url=" + issuer_->url(), "--oidc-client-id=" + std::string(kClientId),
                           "--oidc-username-prefix=-", "--oidc-ca-file=" + issuer_->write_ca(dir / "issuer-ca.crt")};
    return options;
  }
  static void TearDownTestSuite() {
    KapiSuite<OidcLateIssuerTest>::TearDownTestSuite();
    issuer_.reset();
  }

 protected:
  static inline std::unique_ptr<OidcIssuer> issuer_;
};

TEST_F(OidcLateIssuerTest, TokensFailUntilTheIssuerIsReachedThenWork) {
  const std::string token = issuer_->mint(issuer_->claims("late-user", std::string(kClientId)));
  HttpResponse refused = get_with_token(kapi(), token);
  EXPECT_TRUE(is_status(refused, 401, "Unauthorized")) << refused.body;
  EXPECT_TRUE(eventually([&] { return kapi().logs().find("oidc authenticator: initializing plugin") != std::string::npos; }))
      << "the failed discovery is logged";
  issuer_->refuse(false);
  EXPECT_TRUE(eventually([&] { return username_of(kapi(), token) == "late-user"; }, 25s, 250ms)) << kapi().logs();

  // A TokenReview finds the same user, for the API's audiences and not for others (kube's
  // WrapAudienceAgnosticToken around the JWT authenticators).
  const std::string review = R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":")" +
                             token + R"("}})";
  HttpResponse reviewed = kapi().connect_admin().request(
      "POST", "/apis/authentication.k8s.io/v1/tokenreviews", {{"Content-Type", "application/json"}}, review);
  ASSERT_EQ(reviewed.status, 201) << reviewed.body;
  const json::object status = json_object(reviewed.body)["status"].as_object();
  EXPECT_EQ(status.at("authenticated"), true) << reviewed.body;
  EXPECT_EQ(status.at("user").as_object().at("username"), "late-user");
  const std::string other = R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":")" +
                            token + R"(","audiences":["vault"]}})";
  HttpResponse elsewhere = kapi().connect_admin().request(
      "POST", "/apis/authentication.k8s.io/v1/tokenreviews", {{"Content-Type", "application/json"}}, other);
  ASSERT_EQ(elsewhere.status, 201) << elsewhere.body;
  EXPECT_EQ(json_object(elsewhere.body)["status"].as_object().if_contains("authenticated"), nullptr) << elsewhere.body;
}

// kapi with `flags` on a fresh data dir, given 60 s to exit; what it printed.
test_support::CommandResult start_kapi_expecting_failure(const std::vector<std::string>& flags) {
  test_support::TempDir dir("kapi-oidc-startup");
  std::string command = "timeout 60 " + std::string(std::getenv("KAPI_BINARY")) + " --data-dir=" +
                        (dir.path() / "data").string() + " --secure-port=" +
                        std::to_string(test_support::pick_free_port());
  for (const std::string& flag : flags) command += " '" + flag + "'";
  return test_support::run_command(command);
}

TEST(OidcStartupTest, ConfigurationsKubeRefusesStopTheStartWithItsReason) {
  // Flags that do not go together are refused with the usage (kapi's exit code 2 for any flag error); files and
  // values found wrong while building the server end it with 1.
  struct Case {
    std::vector<std::string> flags;
    std::string reason;
    int exit_code = 1;
  };
  const auto& dir = oidc_suite_dir("oidc-startup");
  std::ofstream(dir / "bad-cel.yaml") << "apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthenticationConfiguration\n"
                                      << "jwt:\n- issuer: {url: \"https://idp.example.com\", audiences: [k]}\n"
                                      << "  claimMappings: {username: {expression: \"claims.sub +\"}}\n";
  const std::vector<Case> cases = {
      {{"--oidc-issuer-url=http://idp.example.com", "--oidc-client-id=k"},
       "jwt[0].issuer.url: Invalid value: \"http://idp.example.com\": URL scheme must be https"},
      {{"--oidc-issuer-url=https://idp.example.com", "--oidc-client-id=k", "--oidc-signing-algs=HS256"},
       "oidc: unsupported signing alg: \"HS256\""},
      {{"--oidc-issuer-url=https://idp.example.com", "--oidc-client-id=k", "--oidc-ca-file=/nonexistent/ca.crt"},
       "/nonexistent/ca.crt"},
      {{"--oidc-client-id=k"},
       "oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags are set", 2},
      {{"--authentication-config=" + (dir / "bad-cel.yaml").string(), "--oidc-username-claim=email"},
       "authentication-config file and oidc-* flags are mutually exclusive", 2},
      {{"--authentication-config=" + (dir / "bad-cel.yaml").string()},
       "invalid authentication configuration: jwt[0].claimMappings.username.expression: Invalid value: "
       "\"claims.sub +\": compilation failed: ERROR: <input>:1:13: Syntax error"},
      {{"--authentication-config=" + (dir / "missing.yaml").string()},
       "failed to load authentication configuration from file"},
  };
  for (const auto& c : cases) {
    const test_support::CommandResult result = start_kapi_expecting_failure(c.flags);
    EXPECT_EQ(result.exit_code, c.exit_code) << c.flags.front() << "\n" << result.output;
    EXPECT_NE(result.output.find(c.reason), std::string::npos) << c.flags.front() << "\n" << result.output;
  }
}

}  // namespace
}  // namespace kapi::integration::oidc_authentication_test
