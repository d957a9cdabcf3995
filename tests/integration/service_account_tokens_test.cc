// Service account tokens against a running kapi with --authorization-mode=RBAC: `kubectl create token` (the
// TokenRequest API) and the token used by kubectl as that service account, revoked with what it is bound to (once
// kube's token cache lets go of it: a user found is kept 10 s); wrong audiences, expired and forged tokens refused;
// legacy Secret tokens; TokenReview as webhooks post it.
#include "server/authentication/service_account.h"
#include "tests/integration/kapi_suite.h"
#include "tests/integration/kubectl_runner.h"

#include <boost/json.hpp>

#include <thread>

namespace kapi::integration::service_account_tokens_test {
namespace {

using namespace std::chrono_literals;
namespace json = boost::json;

// The value at `path` in `value`; null, and a test failure naming what is there, when it is missing.
const json::value& field(const json::value& value, std::initializer_list<std::string_view> path) {
  static const json::value missing;
  const json::value* at = &value;
  for (std::string_view key : path) {
    const json::value* next = at->is_object() ? at->as_object().if_contains(key) : nullptr;
    if (!next) {
      ADD_FAILURE() << "no \"" << key << "\" in " << json::serialize(value);
      return missing;
    }
    at = next;
  }
  return *at;
}

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

class ServiceAccountTokensTest : public KapiSuite<ServiceAccountTokensTest> {
 public:
  static KapiOptions kapi_options() {
    KapiOptions options;
    options.extra_flags = {"--authorization-mode=RBAC"};
    return options;
  }

 protected:
  CommandResult kubectl(const std::string& arguments) { return run_kubectl(kapi(), arguments); }
  // kubectl with `token` as its only credential; `name` names its kubeconfig.
  CommandResult kubectl_with(const std::string& token, const std::string& name, const std::string& arguments) {
    return run_kubectl(kapi(), "--kubeconfig " + token_kubeconfig(kapi(), token, name) + " " + arguments);
  }
  std::string create_token(const std::string& arguments) {
    CommandResult result = kubectl("create token " + arguments);
    EXPECT_EQ(result.exit_code, 0) << result.output;
    return trimmed(result.output);
  }
  json::value token_review(const std::string& token, json::array audiences = {}) {
    json::object spec{{"token", token}};
    if (!audiences.empty()) spec["audiences"] = std::move(audiences);
    const json::object body{{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "TokenReview"}, {"spec", spec}};
    HttpResponse response = kapi().connect_admin().request("POST", "/apis/authentication.k8s.io/v1/tokenreviews",
                                                           {{"Content-Type", "application/json"}}, json::serialize(body));
    EXPECT_EQ(response.status, 201) << response.body;
    return json::parse(response.body);
  }
  // The signing key kapi generated, to make tokens kapi's TokenRequest would not (expired, legacy).
  authentication::TokenIssuer kapi_issuer() {
    return authentication::TokenIssuer("https://kubernetes.default.svc.cluster.local",
                                       authentication::jwt::read_private_key(kapi().cert_dir() / "sa.key"));
  }
  std::string uid_of(const std::string& what) {
    return trimmed(kubectl("get " + what + " -o jsonpath={.metadata.uid}").output);
  }
  // Retries until the answer has `exit_code` (a grant takes effect once the watch cache has seen it, a revocation
  // once the token cache has let go of the user: within its 10 s).
  CommandResult eventually(const std::string& token, const std::string& name, const std::string& arguments,
                           int exit_code) {
    CommandResult result;
    for (auto deadline = std::chrono::steady_clock::now() + 20s; std::chrono::steady_clock::now() < deadline;
         std::this_thread::sleep_for(50ms))
      if ((result = kubectl_with(token, name, arguments)).exit_code == exit_code) break;
    return result;
  }
  // A token revoked by a deletion, as kube-apiserver treats it (TokenSuccessCacheTTL: 10 s): still the service
  // account's while its user is cached, which is sure when the token was first used less than 7 s ago
  // (`first_used`: just before that), then refused within 10 s of its last accepted use (`last_used`: just after).
  void expect_revoked_once_uncached(const std::string& token, const std::string& name, const std::string& arguments,
                                    std::chrono::steady_clock::time_point first_used,
                                    std::chrono::steady_clock::time_point last_used) {
    if (std::chrono::steady_clock::now() - first_used < 7s) {
      EXPECT_EQ(kubectl_with(token, name, arguments).exit_code, 0) << "kube still knows the user from its cache";
    }
    CommandResult revoked = eventually(token, name, arguments, 1);
    EXPECT_NE(revoked.output.find("Unauthorized"), std::string::npos) << revoked.output;
    EXPECT_LT(std::chrono::steady_clock::now() - last_used, 14s) << "the cache keeps a user 10 s, no more";
  }
};

TEST_F(ServiceAccountTokensTest, KubectlActsAsTheServiceAccountWithItsRbac) {
  ASSERT_EQ(kubectl("create namespace sa-a").exit_code, 0);
  ASSERT_EQ(kubectl("create serviceaccount robot -n sa-a").exit_code, 0);
  const std::string token = create_token("robot -n sa-a");
  ASSERT_EQ(std::count(token.begin(), token.end(), '.'), 2) << token;
  const auto first_used = std::chrono::steady_clock::now();

  CommandResult whoami = kubectl_with(token, "robot", "auth whoami -o json");
  ASSERT_EQ(whoami.exit_code, 0) << whoami.output;
  json::value review = json::parse(whoami.output);
  EXPECT_EQ(field(review, {"status", "userInfo", "username"}), "system:serviceaccount:sa-a:robot");
  EXPECT_EQ(field(review, {"status", "userInfo", "uid"}).as_string(), uid_of("serviceaccount robot -n sa-a"));
  EXPECT_EQ(field(review, {"status", "userInfo", "groups"}),
            (json::array{"system:serviceaccounts", "system:serviceaccounts:sa-a", "system:authenticated"}));

  CommandResult denied = kubectl_with(token, "robot", "get configmaps -n sa-a");
  EXPECT_NE(denied.exit_code, 0);
  EXPECT_NE(denied.output.find("User \"system:serviceaccount:sa-a:robot\" cannot list resource \"configmaps\" in API "
                               "group \"\" in the namespace \"sa-a\""),
            std::string::npos)
      << denied.output;
  ASSERT_EQ(kubectl("create role cm-reader --verb=list --resource=configmaps -n sa-a").exit_code, 0);
  ASSERT_EQ(kubectl("create rolebinding robot-reads --role=cm-reader --serviceaccount=sa-a:robot -n sa-a").exit_code, 0);
  CommandResult allowed = eventually(token, "robot", "get configmaps -n sa-a", 0);
  EXPECT_EQ(allowed.exit_code, 0) << allowed.output;
  const auto last_used = std::chrono::steady_clock::now();

  ASSERT_EQ(kubectl("delete serviceaccount robot -n sa-a").exit_code, 0);
  expect_revoked_once_uncached(token, "robot", "get configmaps -n sa-a", first_used, last_used);
}

TEST_F(ServiceAccountTokensTest, APodBoundTokenDiesWithItsPod) {
  ASSERT_EQ(kubectl("create namespace sa-b").exit_code, 0);
  ASSERT_EQ(kubectl("create serviceaccount runner -n sa-b").exit_code, 0);
  const json::object pod{
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", json::object{{"name", "web"}}},
      {"spec", json::object{{"serviceAccountName", "runner"},
                            {"containers", json::array{json::object{{"name", "web"}, {"image", "nginx"}}}}}}};
  HttpResponse created = kapi().connect_admin().request("POST", "/api/v1/namespaces/sa-b/pods",
                                                        {{"Content-Type", "application/json"}}, json::serialize(pod));
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string token = create_token("runner -n sa-b --bound-object-kind Pod --bound-object-name web");
  const auto first_used = std::chrono::steady_clock::now();
  json::value review = token_review(token);
  EXPECT_EQ(field(review, {"status", "authenticated"}), true) << review;
  EXPECT_EQ(field(review, {"status", "user", "extra", "authentication.kubernetes.io/pod-name"}), json::array{"web"});
  EXPECT_EQ(field(review, {"status", "user", "extra", "authentication.kubernetes.io/pod-uid"}),
            json::array{json::string(uid_of("pod web -n sa-b"))});
  EXPECT_EQ(kubectl_with(token, "runner", "auth whoami").exit_code, 0);
  const auto last_used = std::chrono::steady_clock::now();

  ASSERT_EQ(kubectl("delete pod web -n sa-b --grace-period=0 --force").exit_code, 0);
  expect_revoked_once_uncached(token, "runner", "auth whoami", first_used, last_used);
  EXPECT_EQ(field(token_review(token), {"status", "error"}), "service account token has been invalidated");
}

TEST_F(ServiceAccountTokensTest, TokenRequestsAreCheckedAsKubeChecksThem) {
  ASSERT_EQ(kubectl("create namespace sa-c").exit_code, 0);
  ASSERT_EQ(kubectl("create serviceaccount robot -n sa-c").exit_code, 0);
  CommandResult short_lived = kubectl("create token robot -n sa-c --duration=5m");
  EXPECT_NE(short_lived.exit_code, 0);
  EXPECT_NE(short_lived.output.find("spec.expirationSeconds: Invalid value: 300: may not specify a duration less than "
                                    "10 minutes"),
            std::string::npos)
      << short_lived.output;
  CommandResult ghost = kubectl("create token ghost -n sa-c");
  EXPECT_NE(ghost.output.find("serviceaccounts \"ghost\" not found"), std::string::npos) << ghost.output;
  ASSERT_EQ(kubectl("run other --image=nginx -n sa-c").exit_code, 0);
  CommandResult wrong_pod = kubectl("create token robot -n sa-c --bound-object-kind Pod --bound-object-name other");
  EXPECT_NE(wrong_pod.output.find("cannot bind token for serviceaccount \"robot\" to pod running with different "
                                  "serviceaccount name."),
            std::string::npos)
      << wrong_pod.output;

  // The whole answer, as `kubectl create token -o json` would not show it.
  const json::object request{{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "TokenRequest"},
                             {"spec", json::object{{"expirationSeconds", 7200}}}};
  HttpResponse response = kapi().connect_admin().request(
      "POST", "/api/v1/namespaces/sa-c/serviceaccounts/robot/token", {{"Content-Type", "application/json"}},
      json::serialize(request));
  ASSERT_EQ(response.status, 201) << response.body;
  json::value answer = json::parse(response.body);
  EXPECT_EQ(field(answer, {"kind"}), "TokenRequest");
  EXPECT_EQ(field(answer, {"metadata", "name"}), "robot");
  EXPECT_EQ(field(answer, {"spec", "audiences"}), json::array{"https://kubernetes.default.svc.cluster.local"});
  EXPECT_EQ(field(answer, {"spec", "expirationSeconds"}), 7200);
  EXPECT_TRUE(field(answer, {"spec", "boundObjectRef"}).is_null());
  EXPECT_FALSE(field(answer, {"status", "expirationTimestamp"}).as_string().empty());
}

TEST_F(ServiceAccountTokensTest, WrongAudienceExpiredAndForgedTokensAreRefused) {
  ASSERT_EQ(kubectl("create namespace sa-d").exit_code, 0);
  ASSERT_EQ(kubectl("create serviceaccount robot -n sa-d").exit_code, 0);
  const std::string for_vault = create_token("robot -n sa-d --audience vault");
  CommandResult wrong_audience = kubectl_with(for_vault, "vault", "auth whoami");
  EXPECT_NE(wrong_audience.output.find("Unauthorized"), std::string::npos) << wrong_audience.output;
  json::value vault_review = token_review(for_vault, json::array{"vault"});
  EXPECT_EQ(field(vault_review, {"status", "authenticated"}), true) << vault_review;
  EXPECT_EQ(field(vault_review, {"status", "audiences"}), json::array{"vault"});

  authentication::BoundTokenClaims claims;
  claims.namespace_ = "sa-d";
  claims.service_account = {"robot", uid_of("serviceaccount robot -n sa-d")};
  claims.audiences = {"https://kubernetes.default.svc.cluster.local"};
  claims.expiration = 600s;
  const std::string expired = kapi_issuer().issue(claims, std::chrono::system_clock::now() - 1h).token;
  EXPECT_NE(kubectl_with(expired, "expired", "auth whoami").output.find("Unauthorized"), std::string::npos);
  EXPECT_EQ(field(token_review(expired), {"status", "error"}), "service account token has expired");
  const std::string fresh = kapi_issuer().issue(claims, std::chrono::system_clock::now()).token;
  EXPECT_EQ(kubectl_with(fresh, "fresh", "auth whoami").exit_code, 0) << "the same claims, in time";
  std::string forged = fresh;
  forged[forged.size() - 5] = forged[forged.size() - 5] == 'A' ? 'B' : 'A';
  EXPECT_NE(kubectl_with(forged, "forged", "auth whoami").output.find("Unauthorized"), std::string::npos);
  // As Go writes a TokenReviewStatus: `authenticated` is omitempty, `user` a struct, always there.
  json::value garbage = token_review("not-a-token");
  EXPECT_EQ(json::serialize(field(garbage, {"status"})), R"({"user":{},"error":"invalid bearer token"})");
}

TEST_F(ServiceAccountTokensTest, LegacySecretTokensWorkUntilTheSecretGoes) {
  ASSERT_EQ(kubectl("create namespace sa-e").exit_code, 0);
  ASSERT_EQ(kubectl("create serviceaccount old -n sa-e").exit_code, 0);
  const std::string token = kapi_issuer().issue_legacy("sa-e", {"old", uid_of("serviceaccount old -n sa-e")}, "old-token");
  ASSERT_EQ(kubectl("create secret generic old-token -n sa-e --type=kubernetes.io/service-account-token "
                    "--from-literal=token=" + token).exit_code,
            0);
  const auto first_used = std::chrono::steady_clock::now();
  CommandResult whoami = kubectl_with(token, "legacy", "auth whoami");
  EXPECT_EQ(whoami.exit_code, 0) << whoami.output;
  EXPECT_NE(whoami.output.find("system:serviceaccount:sa-e:old"), std::string::npos) << whoami.output;
  const auto last_used = std::chrono::steady_clock::now();
  ASSERT_EQ(kubectl("delete secret old-token -n sa-e").exit_code, 0);
  expect_revoked_once_uncached(token, "legacy", "auth whoami", first_used, last_used);
}

TEST_F(ServiceAccountTokensTest, DiscoveryNamesTheTokenApis) {
  CommandResult resources = kubectl("api-resources --api-group=authentication.k8s.io -o name");
  EXPECT_NE(resources.output.find("tokenreviews.authentication.k8s.io"), std::string::npos) << resources.output;
  HttpResponse core = kapi().connect_admin().request("GET", "/api/v1");
  ASSERT_EQ(core.status, 200);
  json::value list = json::parse(core.body);
  bool found = false;
  for (const auto& resource : field(list, {"resources"}).as_array())
    if (resource.at("name") == "serviceaccounts/token") {
      found = true;
      EXPECT_EQ(resource.at("kind"), "TokenRequest");
      EXPECT_EQ(resource.at("group"), "authentication.k8s.io");
      EXPECT_EQ(resource.at("verbs"), json::array{"create"});
    }
  EXPECT_TRUE(found) << core.body;
}

}  // namespace
}  // namespace kapi::integration::service_account_tokens_test
