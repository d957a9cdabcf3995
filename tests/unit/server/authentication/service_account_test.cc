// Service account tokens: the JWS form (RS256 and ES256, tampering, foreign keys, "none"), the claims kube writes,
// and what the authenticator accepts: issuer, audiences, time bounds, and objects that must still exist.
#include "base/base64.h"
#include "server/authentication/request_authenticator.h"
#include "server/authentication/service_account.h"
#include "server/authentication/token_union.h"
#include "server/pki/x509_builder.h"
#include "tests/unit/support/recording_writer.h"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <limits>

#include <map>

namespace kapi::authentication::service_account_test {
namespace {

using namespace std::chrono_literals;
using test_support::run_sync;
using Outcome = Result::Outcome;
namespace json = boost::json;

constexpr std::string_view kIssuer = "https://kubernetes.default.svc.cluster.local";

jwt::SharedKey shared(pki::EvpPkeyPtr key) { return jwt::SharedKey(key.release(), &EVP_PKEY_free); }

const jwt::SharedKey& rsa_key() {
  static const jwt::SharedKey key = shared(pki::generate_rsa_key(2048));
  return key;
}

// The objects of a small cluster, keyed "resource/namespace/name".
struct FakeCluster {
  std::map<std::string, json::object> objects;
  void add(const std::string& resource, const std::string& namespace_, const std::string& name, const std::string& uid,
           json::object extra = {}) {
    extra["metadata"] = json::object{{"name", name}, {"namespace", namespace_}, {"uid", uid}};
    objects[resource + "/" + namespace_ + "/" + name] = std::move(extra);
  }
  ObjectGetter getter() {
    return [this](std::string resource, std::string namespace_,
                  std::string name) -> asio::awaitable<std::optional<json::object>> {
      auto it = objects.find(resource + "/" + namespace_ + "/" + name);
      if (it == objects.end()) co_return std::nullopt;
      co_return it->second;
    };
  }
};

class ServiceAccountTokens : public ::testing::Test {
 protected:
  ServiceAccountTokens() {
    cluster.add("serviceaccounts", "default", "robot", "sa-uid");
    cluster.add("pods", "default", "web", "pod-uid");
    cluster.add("nodes", "", "node-1", "node-uid");
  }

  ServiceAccountTokenAuthenticator authenticator(jwt::SharedKey key = rsa_key()) {
    ServiceAccountTokenOptions options;
    options.issuers = {std::string(kIssuer)};
    options.keys = {std::move(key)};
    options.api_audiences = {std::string(kIssuer)};
    options.objects = cluster.getter();
    options.now = [this] { return now; };
    return ServiceAccountTokenAuthenticator(std::move(options));
  }

  BoundTokenClaims robot_claims() {
    BoundTokenClaims claims;
    claims.namespace_ = "default";
    claims.service_account = {"robot", "sa-uid"};
    claims.audiences = {std::string(kIssuer)};
    claims.expiration = 3600s;
    return claims;
  }

  Result check(const std::string& token, const Audiences& audiences = {}) {
    return run_sync(authenticator().authenticate_token(token, audiences));
  }

  FakeCluster cluster;
  TokenIssuer issuer{std::string(kIssuer), rsa_key()};
  std::chrono::system_clock::time_point now = std::chrono::system_clock::now();
};

TEST(Jwt, SignsAndVerifiesWithRsaAndEcdsaKeys) {
  for (const auto& key : {rsa_key(), shared(pki::generate_ecdsa_p256_key())}) {
    jwt::Signer signer(key);
    const std::string token = signer.sign(json::object{{"sub", "x"}});
    auto parsed = jwt::parse(token);
    ASSERT_TRUE(parsed);
    EXPECT_EQ(parsed->header.at("alg").as_string(), signer.algorithm());
    EXPECT_EQ(parsed->header.at("kid").as_string(), jwt::key_id(key.get()));
    EXPECT_EQ(parsed->claims.at("sub"), "x");
    EXPECT_TRUE(jwt::verify(*parsed, {key}));
    EXPECT_FALSE(jwt::verify(*parsed, {shared(pki::generate_ecdsa_p256_key())})) << "a foreign key";
    auto tampered = *parsed;
    tampered.signing_input[tampered.signing_input.size() - 2] ^= 1;
    EXPECT_FALSE(jwt::verify(tampered, {key}));
  }
  EXPECT_EQ(jwt::Signer(rsa_key()).algorithm(), "RS256");
  EXPECT_EQ(jwt::Signer(shared(pki::generate_ecdsa_p256_key())).algorithm(), "ES256");
}

TEST(Jwt, AlgorithmNoneAndMismatchedAlgorithmsNeverVerify) {
  auto parsed = jwt::parse(jwt::Signer(rsa_key()).sign(json::object{{"sub", "x"}}));
  ASSERT_TRUE(parsed);
  parsed->header["alg"] = "none";
  EXPECT_FALSE(jwt::verify(*parsed, {rsa_key()}));
  parsed->header["alg"] = "ES256";
  EXPECT_FALSE(jwt::verify(*parsed, {rsa_key()}));
  EXPECT_EQ(jwt::parse("opaque-token"), std::nullopt);
  EXPECT_EQ(jwt::parse("a.b.c.d"), std::nullopt);
}

TEST_F(ServiceAccountTokens, ClaimsAreKubesInKeyOrder) {
  auto claims = robot_claims();
  claims.pod = ObjectReference{"web", "pod-uid"};
  auto parsed = jwt::parse(issuer.issue(claims, now).token);
  ASSERT_TRUE(parsed);
  std::vector<std::string> keys;
  for (const auto& member : parsed->claims) keys.emplace_back(member.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"aud", "exp", "iat", "iss", "jti", "kubernetes.io", "nbf", "sub"}));
  EXPECT_EQ(parsed->claims.at("aud").as_string(), kIssuer) << "one audience is a plain string, as go-jose writes it";
  EXPECT_EQ(parsed->claims.at("sub"), "system:serviceaccount:default:robot");
  EXPECT_EQ(parsed->claims.at("exp").as_int64() - parsed->claims.at("iat").as_int64(), 3600);
  EXPECT_EQ(json::serialize(parsed->claims.at("kubernetes.io")),
            R"({"namespace":"default","pod":{"name":"web","uid":"pod-uid"},)"
            R"("serviceaccount":{"name":"robot","uid":"sa-uid"}})");
}

TEST_F(ServiceAccountTokens, ABoundTokenNamesItsServiceAccountAndPod) {
  auto claims = robot_claims();
  claims.pod = ObjectReference{"web", "pod-uid"};
  claims.node = ObjectReference{"node-1", "node-uid"};
  Result result = check(issuer.issue(claims, now).token);
  ASSERT_EQ(result.outcome, Outcome::Authenticated) << result.error;
  EXPECT_EQ(result.user.name, "system:serviceaccount:default:robot");
  EXPECT_EQ(result.user.uid, "sa-uid");
  EXPECT_EQ(result.user.groups, (std::vector<std::string>{"system:serviceaccounts", "system:serviceaccounts:default"}));
  EXPECT_EQ(result.user.extra.at("authentication.kubernetes.io/pod-name"), std::vector<std::string>{"web"});
  EXPECT_EQ(result.user.extra.at("authentication.kubernetes.io/node-name"), std::vector<std::string>{"node-1"});
  EXPECT_TRUE(result.user.extra.at("authentication.kubernetes.io/credential-id").front().starts_with("JTI="));
  EXPECT_EQ(result.audiences, Audiences{std::string(kIssuer)});
}

TEST_F(ServiceAccountTokens, TimeBoundsAllowAMinuteOfClockSkew) {
  const std::string token = issuer.issue(robot_claims(), now).token;
  now += 3600s + 59s;
  EXPECT_EQ(check(token).outcome, Outcome::Authenticated);
  now += 2s;
  EXPECT_EQ(check(token).error, "service account token has expired");
  now -= 3600s + 61s + 61s;
  EXPECT_EQ(check(token).outcome, Outcome::Failed) << "not valid yet";
}

// go-jose reads a NumericDate as a float64 and converts it as Go does on amd64: beyond int64's range it becomes
// int64's minimum, long expired; int64's maximum itself is far ahead, and adding the leeway must not overflow it.
TEST_F(ServiceAccountTokens, TimeClaimsOutOfRangeAreReadAsGoReadsThem) {
  auto parsed = jwt::parse(issuer.issue(robot_claims(), now).token);
  ASSERT_TRUE(parsed);
  auto expiring_at = [&](json::value exp) {
    json::object claims = parsed->claims;
    claims["exp"] = std::move(exp);
    return jwt::Signer(rsa_key()).sign(claims);
  };
  EXPECT_EQ(check(expiring_at(1e300)).error, "service account token has expired");
  EXPECT_EQ(check(expiring_at(-1e300)).error, "service account token has expired");
  EXPECT_EQ(check(expiring_at(std::numeric_limits<std::int64_t>::max())).outcome, Outcome::Authenticated);
}

TEST_F(ServiceAccountTokens, AudiencesMustMeetThoseAskedFor) {
  auto claims = robot_claims();
  claims.audiences = {"vault"};
  const std::string token = issuer.issue(claims, now).token;
  EXPECT_EQ(check(token).error, R"(token audiences ["vault"] is invalid for the target audiences [")" +
                                    std::string(kIssuer) + R"("])");
  Result for_vault = check(token, {"vault", "other"});
  ASSERT_EQ(for_vault.outcome, Outcome::Authenticated);
  EXPECT_EQ(for_vault.audiences, Audiences{"vault"});
}

TEST_F(ServiceAccountTokens, DeletedOrReplacedObjectsRevokeTheToken) {
  auto claims = robot_claims();
  claims.pod = ObjectReference{"web", "pod-uid"};
  const std::string token = issuer.issue(claims, now).token;
  ASSERT_EQ(check(token).outcome, Outcome::Authenticated);
  cluster.add("pods", "default", "web", "another-uid");
  EXPECT_EQ(check(token).error, "service account token has been invalidated") << "the pod was recreated";
  cluster.objects.erase("pods/default/web");
  EXPECT_EQ(check(token).outcome, Outcome::Failed);
  const std::string unbound = issuer.issue(robot_claims(), now).token;
  ASSERT_EQ(check(unbound).outcome, Outcome::Authenticated);
  cluster.objects.erase("serviceaccounts/default/robot");
  EXPECT_EQ(check(unbound).error, "service account token has been invalidated");
}

TEST_F(ServiceAccountTokens, OtherIssuersAndOpaqueTokensAreNotOurs) {
  TokenIssuer stranger("https://elsewhere", rsa_key());
  EXPECT_EQ(check(stranger.issue(robot_claims(), now).token).outcome, Outcome::NotApplicable);
  EXPECT_EQ(check("abc123").outcome, Outcome::NotApplicable);
  TokenIssuer forger(std::string(kIssuer), shared(pki::generate_rsa_key(2048)));
  EXPECT_EQ(check(forger.issue(robot_claims(), now).token).outcome, Outcome::Failed) << "signed by another key";
}

TEST_F(ServiceAccountTokens, LegacySecretTokensLiveAsLongAsTheirSecret) {
  const std::string token = issuer.issue_legacy("default", {"robot", "sa-uid"}, "robot-token");
  EXPECT_EQ(check(token).error, "token has been invalidated") << "no secret holds it";
  cluster.add("secrets", "default", "robot-token", "secret-uid",
              json::object{{"data", json::object{{"token", base::base64_encode(token)}}}});
  Result result = check(token);
  ASSERT_EQ(result.outcome, Outcome::Authenticated) << result.error;
  EXPECT_EQ(result.user.name, "system:serviceaccount:default:robot");
  cluster.add("secrets", "default", "robot-token", "secret-uid",
              json::object{{"data", json::object{{"token", base::base64_encode("other")}}}});
  EXPECT_EQ(check(token).error, "token does not match server's copy");
  cluster.objects.erase("secrets/default/robot-token");
  EXPECT_EQ(check(token).outcome, Outcome::Failed);
}

TEST_F(ServiceAccountTokens, TokenReviewUnionNamesTheFailure) {
  auto reviewer = std::make_shared<RequestAuthenticator>(
      std::vector<std::shared_ptr<const Authenticator>>{},
      std::make_shared<TokenUnion>(std::vector<std::shared_ptr<const TokenAuthenticator>>{
          std::make_shared<ServiceAccountTokenAuthenticator>(authenticator())}),
      false);
  EXPECT_EQ(run_sync(reviewer->review_token("opaque", {})).outcome, Outcome::NotApplicable);
  const std::string token = issuer.issue(robot_claims(), now).token;
  EXPECT_EQ(run_sync(reviewer->review_token(token, {})).outcome, Outcome::Authenticated);
  now += 2h;
  EXPECT_EQ(run_sync(reviewer->review_token(token, {})).error, "service account token has expired");
}

}  // namespace
}  // namespace kapi::authentication::service_account_test
