// Distributed claims as kube's JWT authenticator resolves them (claimResolver), against the test OIDC issuer over
// HTTPS: groups fetched from the endpoint an ID token names (with its access token), verified as a JWT of its
// issuer, only for a groups claim and only when the token lacks it; the first token of an issuer whose verifier is
// not yet started fails as in kube; and each failure kube defines, in kube's words. Also the JWT authenticator's
// latency metric.
#include "server/authentication/jwt_authenticator.h"
#include "server/metrics/families.h"
#include "tests/support/oidc_issuer.h"

#include <asio/co_spawn.hpp>
#include <asio/executor_work_guard.hpp>
#include <asio/io_context.hpp>
#include <asio/use_future.hpp>
#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <thread>

namespace kapi::authentication::distributed_claims_test {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;
using test_support::OidcIssuer;

constexpr std::string_view kAudience = "kapi";

class DistributedClaimsTest : public ::testing::Test {
 protected:
  DistributedClaimsTest() : work_(io_.get_executor()), thread_([this] { io_.run(); }) {}
  ~DistributedClaimsTest() override {
    authenticator_.reset();
    work_.reset();
    io_.stop();
    thread_.join();
  }

  // An authenticator of the issuer mapping "sub" and the groups claim (or a groups expression), ready.
  void start(bool groups_expression = false) {
    JwtAuthenticatorConfig config;
    config.issuer.url = issuer_.url();
    config.issuer.certificate_authority = issuer_.ca_pem();
    config.issuer.audiences = {std::string(kAudience)};
    config.claim_mappings.username.claim = "sub";
    config.claim_mappings.username.prefix = "";
    if (groups_expression) {
      config.claim_mappings.groups.expression = "has(claims.groups) ? claims.groups : []";
    } else {
      config.claim_mappings.groups.claim = "groups";
      config.claim_mappings.groups.prefix = "";
    }
    JwtTiming timing;
    timing.discovery_retry = 50ms;
    authenticator_ = JwtAuthenticator::start(config, io_.get_executor(), logger_, timing, &metrics_);
    for (int i = 0; i < 200 && !authenticator_->ready(); ++i) std::this_thread::sleep_for(10ms);
    ASSERT_TRUE(authenticator_->ready());
  }

  Result authenticate(const std::string& token) {
    return asio::co_spawn(io_, authenticator_->authenticate_token(token, {}), asio::use_future).get();
  }
  // The first token whose claims a new issuer signs fails until that issuer's verifier is ready (kube's too).
  Result authenticate_when_verifier_ready(const std::string& token) {
    Result result = authenticate(token);
    for (int i = 0; i < 200 && result.error.find("verifier not initialized") != std::string::npos; ++i) {
      std::this_thread::sleep_for(10ms);
      result = authenticate(token);
    }
    return result;
  }

  // The JWT the claims endpoint answers: the issuer's, for the audience, with `groups`.
  std::string claims_jwt(json::value groups, std::string audience = std::string(kAudience)) {
    json::object claims = issuer_.claims("alice", audience);
    if (!groups.is_null()) claims["groups"] = std::move(groups);
    return issuer_.mint(claims);
  }
  // An ID token for alice naming "groups" as distributed at `source`.
  std::string id_token(const std::string& source, const std::string& access_token = "") {
    return issuer_.mint(issuer_.distributed(issuer_.claims("alice", std::string(kAudience)), "groups", source,
                                            access_token));
  }
  std::string expand_error(const std::string& why) { return "oidc: could not expand distributed claims: " + why; }

  OidcIssuer issuer_;
  base::Logger logger_;
  metrics::AuthenticationFamilies metrics_;
  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  std::thread thread_;
  std::shared_ptr<JwtAuthenticator> authenticator_;
};

TEST_F(DistributedClaimsTest, GroupsComeFromTheEndpointWithTheAccessToken) {
  start();
  issuer_.serve_claims("alice-groups", claims_jwt(json::array{"auditors", "devs"}), "alice-access");
  const std::string token = id_token("alice-groups", "alice-access");
  // kube starts a verifier per issuer of distributed claims at first sight, and fails the token meanwhile.
  Result first = authenticate(token);
  EXPECT_EQ(first.outcome, Result::Outcome::Failed);
  EXPECT_EQ(first.error, expand_error("verifying untrusted issuer " + issuer_.url() +
                                      " failed: verifier not initialized for issuer: \"" + issuer_.url() + "\""));
  Result result = authenticate_when_verifier_ready(token);
  ASSERT_EQ(result.outcome, Result::Outcome::Authenticated) << result.error;
  EXPECT_EQ(result.user.name, "alice");
  EXPECT_EQ(result.user.groups, (std::vector<std::string>{"auditors", "devs"}));
  EXPECT_EQ(issuer_.last_claims_authorization("alice-groups"), "Bearer alice-access");
  // Nothing fetched is cached by the authenticator (kube's TODO): each token asks again.
  const std::uint64_t fetches = issuer_.claims_fetches("alice-groups");
  EXPECT_EQ(authenticate(token).outcome, Result::Outcome::Authenticated);
  EXPECT_EQ(issuer_.claims_fetches("alice-groups"), fetches + 1);

  // Without an access token, no Authorization header is sent.
  issuer_.serve_claims("open-groups", claims_jwt(json::array{"everyone"}));
  EXPECT_EQ(authenticate(id_token("open-groups")).user.groups, std::vector<std::string>{"everyone"});
  EXPECT_EQ(issuer_.last_claims_authorization("open-groups"), "");
}

TEST_F(DistributedClaimsTest, OnlyAGroupsClaimMissingFromTheTokenIsResolved) {
  start();
  issuer_.serve_claims("never", claims_jwt(json::array{"never"}));
  // The token's own groups win over its sources.
  json::object own = issuer_.distributed(issuer_.claims("alice", std::string(kAudience)), "groups", "never");
  own["groups"] = json::array{"own"};
  EXPECT_EQ(authenticate(issuer_.mint(own)).user.groups, std::vector<std::string>{"own"});
  // Another claim named distributed: not the groups claim, nothing to fetch.
  json::object other = issuer_.distributed(issuer_.claims("alice", std::string(kAudience)), "roles", "never");
  Result result = authenticate(issuer_.mint(other));
  EXPECT_EQ(result.outcome, Result::Outcome::Authenticated) << result.error;
  EXPECT_TRUE(result.user.groups.empty());
  EXPECT_EQ(issuer_.claims_fetches("never"), 0u);
}

TEST_F(DistributedClaimsTest, AGroupsExpressionHasNoResolver) {
  start(true);
  issuer_.serve_claims("never", claims_jwt(json::array{"never"}));
  Result result = authenticate(id_token("never"));
  EXPECT_EQ(result.outcome, Result::Outcome::Authenticated) << result.error;
  EXPECT_TRUE(result.user.groups.empty());
  EXPECT_EQ(issuer_.claims_fetches("never"), 0u);
}

TEST_F(DistributedClaimsTest, FailuresAreKubes) {
  start();
  // Make the issuer's verifier ready first, so that each case fails for its own reason.
  issuer_.serve_claims("good", claims_jwt(json::array{"g"}));
  ASSERT_EQ(authenticate_when_verifier_ready(id_token("good")).outcome, Result::Outcome::Authenticated);

  auto error_of = [&](json::object claims) { return authenticate(issuer_.mint(claims)).error; };
  const json::object base = issuer_.claims("alice", std::string(kAudience));

  json::object no_sources = base;
  no_sources["_claim_names"] = json::object{{"groups", "src"}};
  EXPECT_EQ(error_of(no_sources), expand_error("oidc: no claim sources"));

  json::object missing = no_sources;
  missing["_claim_sources"] = json::object{{"other", json::object{{"endpoint", issuer_.claims_url("good")}}}};
  EXPECT_EQ(error_of(missing), expand_error("id token _claim_names contained a source src missing in _claims_sources"));

  json::object bad_names = base;
  bad_names["_claim_names"] = "groups";
  EXPECT_EQ(error_of(bad_names), expand_error("oidc: error parsing distributed claim names: json: cannot unmarshal "
                                              "string into Go value of type map[string]string"));

  json::object bad_sources = no_sources;
  bad_sources["_claim_sources"] = json::array{};
  EXPECT_EQ(error_of(bad_sources), expand_error("oidc: could not parse claim sources: json: cannot unmarshal array "
                                                "into Go value of type map[string]oidc.endpoint"));

  // An aggregated claim (a JWT, no endpoint) is left alone.
  json::object aggregated = no_sources;
  aggregated["_claim_sources"] = json::object{{"src", json::object{{"JWT", "e30.e30.e30"}}}};
  EXPECT_EQ(authenticate(issuer_.mint(aggregated)).outcome, Result::Outcome::Authenticated);

  const std::string while_getting = "while getting distributed claim \"groups\": ";
  EXPECT_EQ(authenticate(id_token("unknown")).error,
            expand_error(while_getting + "error while getting distributed claim JWT: 404 Not Found"));
  issuer_.serve_claims("guarded", claims_jwt(json::array{"g"}), "right");
  EXPECT_EQ(authenticate(id_token("guarded", "wrong")).error,
            expand_error(while_getting + "error while getting distributed claim JWT: 401 Unauthorized"));
  issuer_.serve_claims("broken", "", "", 500);
  EXPECT_EQ(authenticate(id_token("broken")).error,
            expand_error(while_getting + "error while getting distributed claim JWT: 500 Internal Server Error"));

  issuer_.serve_claims("not-a-jwt", "{\"groups\":[\"x\"]}");
  EXPECT_EQ(authenticate(id_token("not-a-jwt")).error,
            expand_error("getting untrusted issuer from endpoint " + issuer_.claims_url("not-a-jwt") +
                         " failed for claim \"groups\": token is not compact JWT"));

  issuer_.serve_claims("no-groups", claims_jwt(nullptr));
  EXPECT_EQ(authenticate(id_token("no-groups")).error,
            expand_error("jwt returned by distributed claim endpoint \"" + issuer_.claims_url("no-groups") +
                         "\" did not contain claim: groups"));

  issuer_.serve_claims("wrong-audience", claims_jwt(json::array{"g"}, "someone-else"));
  EXPECT_EQ(authenticate(id_token("wrong-audience")).error,
            expand_error("verify distributed claim token: oidc: expected audience \"kapi\" got [\"someone-else\"]"));

  json::object expired = issuer_.claims("alice", std::string(kAudience));
  expired["groups"] = json::array{"g"};
  expired["exp"] = 1000;
  issuer_.serve_claims("expired", issuer_.mint(expired));
  EXPECT_EQ(authenticate(id_token("expired")).error,
            expand_error("verify distributed claim token: oidc: token is expired (Token Expiry: 1970-01-01 00:16:40 "
                         "+0000 UTC)"));

  json::object forged = issuer_.claims("alice", std::string(kAudience));
  forged["groups"] = json::array{"cluster-admins"};
  issuer_.serve_claims("forged", OidcIssuer::mint_with(OidcIssuer::unpublished_key("rsa-1", "RSA", "RS256"), forged));
  EXPECT_EQ(authenticate(id_token("forged")).error,
            expand_error("verify distributed claim token: failed to verify signature: failed to verify id token "
                         "signature"));
}

TEST_F(DistributedClaimsTest, EachTokenDecidedIsTimedByIssuerAndResult) {
  start();
  const std::string hash = metrics::sha256_label(issuer_.url());
  EXPECT_EQ(authenticate(issuer_.mint(issuer_.claims("alice", std::string(kAudience)))).outcome,
            Result::Outcome::Authenticated);
  EXPECT_EQ(authenticate(issuer_.mint(issuer_.claims("alice", "elsewhere"))).outcome, Result::Outcome::Failed);
  // Another issuer's token is not this authenticator's: not counted.
  json::object foreign = issuer_.claims("alice", std::string(kAudience));
  foreign["iss"] = "https://other.example.com";
  EXPECT_EQ(authenticate(issuer_.mint(foreign)).outcome, Result::Outcome::NotApplicable);
  EXPECT_EQ(metrics_.jwt_authenticator_latency.count({hash, "success"}), 1u);
  EXPECT_EQ(metrics_.jwt_authenticator_latency.count({hash, "failure"}), 1u);
  std::string rendered;
  metrics_.render(rendered);
  EXPECT_NE(rendered.find("apiserver_authentication_jwt_authenticator_latency_seconds_bucket{jwt_issuer_hash=\"" + hash +
                          "\",result=\"success\",le=\"0.001\"}"),
            std::string::npos)
      << rendered;
}

}  // namespace
}  // namespace kapi::authentication::distributed_claims_test
