// Webhook token authentication (--authentication-token-webhook-*) against the sample webhook: kubectl with
// `--token` is the webhook's user and RBAC authorizes it; refused and unknown tokens are kube's 401; answers are
// cached by token and audiences (errors are not); TokenReview through kapi's own API asks the webhook too; a slow or
// unreachable webhook never delays requests that do not carry a token, and concurrent requests with one token share
// one review.
#include "tests/integration/auth_webhook_support.h"

#include <future>

namespace kapi::integration::webhook_authentication_test {
namespace {

namespace json = boost::json;

bool has_token(const json::object& review, std::string_view token) {
  const auto* spec = review.if_contains("spec");
  const auto* found = spec && spec->is_object() ? spec->as_object().if_contains("token") : nullptr;
  return found && found->is_string() && found->as_string() == token;
}

HttpResponse get_with_token(KapiProcess& kapi, std::string_view target, const std::string& token) {
  return kapi.connect_anonymous().request("GET", target, {{"Authorization", "Bearer " + token}});
}

class WebhookAuthenticationTest : public KapiSuite<WebhookAuthenticationTest> {
 public:
  static KapiOptions kapi_options() {
    KapiOptions options;
    options.extra_flags = {"--authentication-token-webhook-config-file=" + webhook_config_for("authn", "/authenticate")};
    return options;
  }
};

TEST_F(WebhookAuthenticationTest, KubectlWithAWebhookTokenIsTheWebhooksUserAuthorizedByRbac) {
  const CommandResult whoami = kubectl_with_token(kapi(), "alice-token", "auth whoami -o json");
  ASSERT_EQ(whoami.exit_code, 0) << whoami.output;
  const json::object review = json_object(whoami.output);
  const json::value& user = review.at("status").at("userInfo");
  EXPECT_EQ(user.at("username"), "alice");
  EXPECT_EQ(user.at("uid"), "42");
  EXPECT_EQ(user.at("groups"), (json::array{"webhook-users", "system:authenticated"}));
  EXPECT_EQ(user.at("extra").at("team"), json::array{"blue"});

  const CommandResult before = kubectl_with_token(kapi(), "alice-token", "get pods -n default");
  EXPECT_NE(before.exit_code, 0);
  EXPECT_NE(before.output.find("Error from server (Forbidden): pods is forbidden: User \"alice\" cannot list resource "
                               "\"pods\" in API group \"\" in the namespace \"default\""),
            std::string::npos)
      << before.output;
  const CommandResult bound = run_kubectl(kapi(), "create rolebinding alice-view --clusterrole=view --user=alice -n default");
  ASSERT_EQ(bound.exit_code, 0) << bound.output;
  EXPECT_TRUE(eventually([&] { return kubectl_with_token(kapi(), "alice-token", "get pods -n default").exit_code == 0; }));
}

TEST_F(WebhookAuthenticationTest, TheTokenReviewSentIsKubesV1WithTheApiAudiences) {
  ASSERT_EQ(get_with_token(kapi(), "/version", "alice-token").status, 200);
  bool found = false;
  for (const auto& request : shared_sample_webhook().requests_for("/authenticate")) {
    const json::object& review = request.at("review").as_object();
    if (!has_token(review, "alice-token")) continue;
    found = true;
    EXPECT_EQ(review.at("apiVersion"), "authentication.k8s.io/v1");
    EXPECT_EQ(review.at("kind"), "TokenReview");
    EXPECT_EQ(review.at("spec").at("audiences"), json::array{"https://kubernetes.default.svc.cluster.local"});
  }
  EXPECT_TRUE(found);
}

TEST_F(WebhookAuthenticationTest, RefusedAndUnknownTokensAreUnauthorized) {
  for (const std::string token : {"revoked-token", "nobody-knows-this-token"}) {
    HttpResponse response = get_with_token(kapi(), "/api/v1/namespaces/default/pods", token);
    EXPECT_TRUE(is_status(response, 401, "Unauthorized")) << token << ": " << response.body;
    EXPECT_EQ(status_message(response), "Unauthorized");
  }
  const CommandResult kubectl = kubectl_with_token(kapi(), "revoked-token", "get pods");
  EXPECT_NE(kubectl.exit_code, 0);
  EXPECT_NE(kubectl.output.find("You must be logged in to the server"), std::string::npos) << kubectl.output;
}

TEST_F(WebhookAuthenticationTest, AnswersAreCachedButErrorsAreNot) {
  // A user found: asked once, then served from the cache for the TTL (2m).
  ASSERT_EQ(get_with_token(kapi(), "/version", "alice-token").status, 200);
  const auto alice = [](const json::object& review) { return has_token(review, "alice-token"); };
  const std::size_t asked = reviews_received("/authenticate", alice);
  for (int i = 0; i < 3; ++i) ASSERT_EQ(get_with_token(kapi(), "/version", "alice-token").status, 200);
  EXPECT_EQ(reviews_received("/authenticate", alice), asked);

  // A token not authenticated, without an error: cached too.
  const auto unknown = [](const json::object& review) { return has_token(review, "cached-unknown-token"); };
  for (int i = 0; i < 3; ++i) EXPECT_EQ(get_with_token(kapi(), "/version", "cached-unknown-token").status, 401);
  EXPECT_EQ(reviews_received("/authenticate", unknown), 1u);

  // Refused with status.error: kube's cache leaves errors out, so each request asks again.
  const auto revoked = [](const json::object& review) { return has_token(review, "revoked-token"); };
  const std::size_t revoked_before = reviews_received("/authenticate", revoked);
  for (int i = 0; i < 2; ++i) EXPECT_EQ(get_with_token(kapi(), "/version", "revoked-token").status, 401);
  EXPECT_EQ(reviews_received("/authenticate", revoked), revoked_before + 2);
}

TEST_F(WebhookAuthenticationTest, TokenReviewThroughTheApiAsksTheWebhook) {
  const std::string body = R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview",)"
                           R"("spec":{"token":"alice-token","audiences":["review-audience"]}})";
  HttpResponse response = kapi().connect_admin().request(
      "POST", "/apis/authentication.k8s.io/v1/tokenreviews", {{"Content-Type", "application/json"}}, body);
  ASSERT_EQ(response.status, 201) << response.body;
  // The webhook named no audiences, so the token is good for the API audiences only: not for this one.
  const json::object refused = json_object(response.body);
  ASSERT_TRUE(refused.contains("status")) << response.body;
  EXPECT_FALSE(refused.at("status").as_object().contains("authenticated")) << response.body;  // false, omitted
  EXPECT_EQ(reviews_received("/authenticate", [](const json::object& review) {
              return has_token(review, "alice-token") &&
                     review.at("spec").at("audiences") == json::array{"review-audience"};
            }),
            1u);

  const std::string api_body = R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview",)"
                               R"("spec":{"token":"alice-token"}})";
  HttpResponse api = kapi().connect_admin().request(
      "POST", "/apis/authentication.k8s.io/v1/tokenreviews", {{"Content-Type", "application/json"}}, api_body);
  ASSERT_EQ(api.status, 201) << api.body;
  const json::object accepted = json_object(api.body);
  ASSERT_TRUE(accepted.contains("status")) << api.body;
  const json::object& status = accepted.at("status").as_object();
  EXPECT_EQ(status.at("authenticated"), true) << api.body;
  EXPECT_EQ(status.at("user").at("username"), "alice");
  EXPECT_EQ(status.at("audiences"), json::array{"https://kubernetes.default.svc.cluster.local"});
}

// A webhook that answers after 5 s: token requests wait for it, certificate requests never do.
class SlowWebhookAuthenticationTest : public KapiSuite<SlowWebhookAuthenticationTest> {
 public:
  static KapiOptions kapi_options() {
    KapiOptions options;
    options.extra_flags = {"--authentication-token-webhook-config-file=" +
                           webhook_config_for("authn-slow", "/authenticate-slow")};
    return options;
  }
};

TEST_F(SlowWebhookAuthenticationTest, CertificateRequestsDoNotWaitForTheWebhook) {
  auto waiting = std::async(std::launch::async, [&] {
    const auto start = std::chrono::steady_clock::now();
    HttpResponse response = get_with_token(kapi(), "/version", "alice-token");
    return std::pair{response.status, seconds_since(start)};
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  for (int i = 0; i < 5; ++i) {
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(kapi().connect_admin().request("GET", "/api/v1/namespaces/default/pods").status, 200);
    EXPECT_LT(seconds_since(start), 1.0);
  }
  const auto [status, seconds] = waiting.get();
  EXPECT_EQ(status, 200);
  EXPECT_GE(seconds, 4.5);
}

// kube's token cache shares one lookup among concurrent requests with the same token: one TokenReview for all.
TEST_F(SlowWebhookAuthenticationTest, ConcurrentRequestsWithOneTokenShareOneReview) {
  std::vector<std::future<int>> requests;
  for (int i = 0; i < 4; ++i)
    requests.push_back(std::async(std::launch::async, [&] {
      return get_with_token(kapi(), "/version", "shared-unknown-token").status;
    }));
  for (auto& request : requests) EXPECT_EQ(request.get(), 401);
  EXPECT_EQ(reviews_received("/authenticate-slow",
                             [](const json::object& review) { return has_token(review, "shared-unknown-token"); }),
            1u);
}

// A webhook nobody listens for: a token is not authenticated (401) at once, as kube's connection refused is not
// retried; certificates still work.
class UnreachableWebhookAuthenticationTest : public KapiSuite<UnreachableWebhookAuthenticationTest> {
 public:
  static KapiOptions kapi_options() {
    KapiOptions options;
    options.extra_flags = {"--authentication-token-webhook-config-file=" +
                           webhook_kubeconfig("authn-unreachable", "https://127.0.0.1:1/authenticate",
                                              shared_sample_webhook().ca_bundle_base64())};
    return options;
  }
};

TEST_F(UnreachableWebhookAuthenticationTest, TokensAreUnauthorizedAndTheErrorIsLogged) {
  const auto start = std::chrono::steady_clock::now();
  HttpResponse response = get_with_token(kapi(), "/version", "alice-token");
  EXPECT_TRUE(is_status(response, 401, "Unauthorized")) << response.body;
  EXPECT_LT(seconds_since(start), 2.0);
  EXPECT_EQ(kapi().connect_admin().request("GET", "/version").status, 200);
  EXPECT_TRUE(eventually([&] {
    return kapi().logs().find("Failed to make webhook authenticator request: Post \"https://127.0.0.1:1/authenticate\": "
                              "dial tcp 127.0.0.1:1: connect: connection refused") != std::string::npos;
  })) << kapi().logs();
}

}  // namespace
}  // namespace kapi::integration::webhook_authentication_test
