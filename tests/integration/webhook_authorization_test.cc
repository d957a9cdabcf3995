// The Webhook authorizer (--authorization-mode=...,Webhook with --authorization-webhook-*) against the sample
// webhook: a user the token webhook authenticates is allowed or denied by the authorization webhook (its reason in
// kube's 403), and its no opinion falls through to RBAC; the SubjectAccessReview sent is kube's (v1beta1 by
// default, the label selector's requirements included); answers are cached; a 500 is retried; a webhook that
// cannot be reached gives kube's 500 unless RBAC allows, and never delays what system:masters do. Round-trips,
// failures that fail open and each authorizer's decisions are counted in kube's metrics.
#include "tests/integration/auth_webhook_support.h"

namespace kapi::integration::webhook_authorization_test {
namespace {

namespace json = boost::json;

bool string_is(const json::object& object, std::string_view key, std::string_view expected) {
  const auto* found = object.if_contains(key);
  return found && found->is_string() && found->as_string() == expected;
}

bool asks_about(const json::object& review, std::string_view user, std::string_view resource) {
  const auto* spec = review.if_contains("spec");
  if (!spec || !spec->is_object() || !string_is(spec->as_object(), "user", user)) return false;
  const auto* attributes = spec->as_object().if_contains("resourceAttributes");
  return attributes && attributes->is_object() && string_is(attributes->as_object(), "resource", resource);
}

class WebhookAuthorizationTest : public KapiSuite<WebhookAuthorizationTest> {
 public:
  static KapiOptions kapi_options() {
    KapiOptions options;
    options.extra_flags = {
        "--authentication-token-webhook-config-file=" + webhook_config_for("authz-authn", "/authenticate"),
        "--authorization-mode=Webhook,RBAC",
        "--authorization-webhook-config-file=" + webhook_config_for("authz", "/authorize")};
    return options;
  }
};

TEST_F(WebhookAuthorizationTest, TheWebhookAllowsAndDeniesWithItsReason) {
  const CommandResult configmaps = kubectl_with_token(kapi(), "alice-token", "get configmaps -n default");
  EXPECT_EQ(configmaps.exit_code, 0) << configmaps.output;

  const CommandResult secrets = kubectl_with_token(kapi(), "alice-token", "get secrets -n default");
  EXPECT_NE(secrets.exit_code, 0);
  EXPECT_NE(secrets.output.find("Error from server (Forbidden): secrets is forbidden: User \"alice\" cannot list "
                                "resource \"secrets\" in API group \"\" in the namespace \"default\": secrets are off "
                                "limits for alice"),
            std::string::npos)
      << secrets.output;
}

TEST_F(WebhookAuthorizationTest, NoOpinionFallsThroughToRbac) {
  const CommandResult before = kubectl_with_token(kapi(), "alice-token", "get services -n default");
  EXPECT_NE(before.exit_code, 0);
  EXPECT_NE(before.output.find("services is forbidden: User \"alice\" cannot list resource \"services\" in API group "
                               "\"\" in the namespace \"default\": no opinion on this"),
            std::string::npos)
      << before.output;
  const CommandResult bound = run_kubectl(kapi(), "create rolebinding alice-services --clusterrole=view --user=alice -n default");
  ASSERT_EQ(bound.exit_code, 0) << bound.output;
  EXPECT_TRUE(eventually([&] { return kubectl_with_token(kapi(), "alice-token", "get services -n default").exit_code == 0; }));
  // RBAC's view role does not reach past a webhook that denies.
  EXPECT_NE(kubectl_with_token(kapi(), "alice-token", "get secrets -n default").exit_code, 0);
}

TEST_F(WebhookAuthorizationTest, TheReviewSentIsKubesV1beta1WithTheSelectorsRequirements) {
  const CommandResult listed = kubectl_with_token(kapi(), "alice-token", "get configmaps -n default -l app=web,tier!=db");
  ASSERT_EQ(listed.exit_code, 0) << listed.output;
  bool found = false;
  for (const auto& request : shared_sample_webhook().requests_for("/authorize")) {
    const json::object& review = request.at("review").as_object();
    if (!asks_about(review, "alice", "configmaps")) continue;
    const json::object& spec = review.at("spec").as_object();
    const json::object& attributes = spec.at("resourceAttributes").as_object();
    if (!attributes.contains("labelSelector")) continue;
    found = true;
    EXPECT_EQ(review.at("apiVersion"), "authorization.k8s.io/v1beta1");
    EXPECT_EQ(review.at("kind"), "SubjectAccessReview");
    EXPECT_EQ(attributes.at("namespace"), "default");
    EXPECT_EQ(attributes.at("verb"), "list");
    EXPECT_EQ(attributes.at("version"), "v1");
    EXPECT_FALSE(attributes.contains("group"));
    EXPECT_EQ(attributes.at("labelSelector"),
              json::parse(R"({"requirements":[{"key":"app","operator":"In","values":["web"]},)"
                          R"({"key":"tier","operator":"NotIn","values":["db"]}]})"));
    EXPECT_EQ(spec.at("group"), (json::array{"webhook-users", "system:authenticated"}));  // v1beta1's name
    EXPECT_EQ(spec.at("uid"), "42");
    EXPECT_EQ(spec.at("extra"), json::parse(R"({"team":["blue"]})"));
  }
  EXPECT_TRUE(found);
}

TEST_F(WebhookAuthorizationTest, AnswersAreCached) {
  const auto raw_get = [&](std::string_view target) {
    return kapi().connect_anonymous().request("GET", target, {{"Authorization", "Bearer alice-token"}});
  };
  const auto asked = [](std::string_view name) {
    return reviews_received("/authorize", [&](const json::object& review) {
      const auto* attributes = review.at("spec").as_object().if_contains("resourceAttributes");
      return attributes && attributes->is_object() && string_is(attributes->as_object(), "name", name);
    });
  };
  // Allowed (5m) and denied (30s) answers alike.
  for (int i = 0; i < 3; ++i) EXPECT_EQ(raw_get("/api/v1/namespaces/default/configmaps/cached-one").status, 404);
  EXPECT_EQ(asked("cached-one"), 1u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(raw_get("/api/v1/namespaces/default/secrets/cached-two").status, 403);
  EXPECT_EQ(asked("cached-two"), 1u);
}

TEST_F(WebhookAuthorizationTest, SystemMastersNeverReachTheWebhook) {
  const auto before = shared_sample_webhook().requests_for("/authorize").size();
  EXPECT_EQ(kapi().connect_admin().request("GET", "/api/v1/namespaces/default/secrets").status, 200);
  EXPECT_EQ(shared_sample_webhook().requests_for("/authorize").size(), before);
}

TEST_F(WebhookAuthorizationTest, SubjectAccessReviewsAskTheWebhook) {
  const std::string body = R"({"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{)"
                           R"("user":"alice","resourceAttributes":{"namespace":"default","verb":"get","resource":"secrets"}}})";
  HttpResponse response = kapi().connect_admin().request(
      "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", {{"Content-Type", "application/json"}}, body);
  ASSERT_EQ(response.status, 201) << response.body;
  const json::object status = json_object(response.body).at("status").as_object();
  EXPECT_EQ(status.at("allowed"), false);
  EXPECT_EQ(status.at("denied"), true);
  EXPECT_EQ(status.at("reason"), "secrets are off limits for alice");
}

// A webhook that answers 500 to a review it has not seen: the client tries again (kube's DefaultShouldRetry).
// kube-apiserver names the flags' webhook "default" and each mode its lower-cased name in the metrics.
TEST_F(WebhookAuthorizationTest, RoundTripsAndDecisionsAreMeasured) {
  const CommandResult configmaps = kubectl_with_token(kapi(), "alice-token", "get configmaps -n default");
  ASSERT_EQ(configmaps.exit_code, 0) << configmaps.output;
  const std::string metrics = kapi().connect_admin().request("GET", "/metrics").body;
  EXPECT_NE(metrics.find("apiserver_authorization_webhook_evaluations_total{name=\"default\",result=\"success\"} "),
            std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("apiserver_authorization_webhook_duration_seconds_bucket{name=\"default\",result=\"success\","
                         "le=\"0.005\"} "),
            std::string::npos);
  EXPECT_NE(metrics.find("# TYPE apiserver_authorization_webhook_evaluations_fail_open_total counter\n"),
            std::string::npos);
  EXPECT_NE(metrics.find("apiserver_authorization_decisions_total{decision=\"allowed\",name=\"default\","
                         "type=\"Webhook\"} "),
            std::string::npos);
  // RBAC decides what the webhook has no opinion on (discovery, for one).
  EXPECT_NE(metrics.find("apiserver_authorization_decisions_total{decision=\"allowed\",name=\"rbac\",type=\"RBAC\"} "),
            std::string::npos);
}

class FlakyWebhookAuthorizationTest : public KapiSuite<FlakyWebhookAuthorizationTest> {
 public:
  static KapiOptions kapi_options() {
    return with_token_users("authz-flaky", "alice-token,alice,42\n",
                            {"--authorization-mode=Webhook,RBAC",
                             "--authorization-webhook-version=v1",
                             "--authorization-webhook-config-file=" + webhook_config_for("authz-flaky", "/authorize-flaky")});
  }
};

TEST_F(FlakyWebhookAuthorizationTest, AServerErrorIsRetried) {
  HttpResponse response = kapi().connect_anonymous().request("GET", "/api/v1/namespaces/default/configmaps/flaky",
                                                             {{"Authorization", "Bearer alice-token"}});
  EXPECT_EQ(response.status, 404) << response.body;  // allowed, and not found
  const auto reviews = reviews_received("/authorize-flaky", [](const json::object& review) {
    return review.at("apiVersion") == "authorization.k8s.io/v1" && asks_about(review, "alice", "configmaps") &&
           review.at("spec").at("groups") == json::array{"system:authenticated"};
  });
  EXPECT_EQ(reviews, 2u);
}

// A webhook nobody listens for, with the flags' failure policy (no opinion): RBAC may still allow; otherwise the
// error is kube's 500; system:masters are not delayed.
class UnreachableWebhookAuthorizationTest : public KapiSuite<UnreachableWebhookAuthorizationTest> {
 public:
  static KapiOptions kapi_options() {
    return with_token_users("authz-unreachable", "jane-token,jane,1001\n",
                            {"--authorization-mode=Webhook,RBAC",
                             "--authorization-webhook-config-file=" +
                                 webhook_kubeconfig("authz-unreachable", "https://127.0.0.1:1/authorize",
                                                    shared_sample_webhook().ca_bundle_base64())});
  }
};

TEST_F(UnreachableWebhookAuthorizationTest, ErrorsAreInternalErrorsUnlessRbacAllows) {
  HttpResponse pods = kapi().connect_anonymous().request("GET", "/api/v1/namespaces/default/pods",
                                                         {{"Authorization", "Bearer jane-token"}});
  EXPECT_EQ(pods.status, 500);
  EXPECT_EQ(pods.body, "Internal Server Error: \"/api/v1/namespaces/default/pods\": Post "
                       "\"https://127.0.0.1:1/authorize\": dial tcp 127.0.0.1:1: connect: connection refused\n");
  // Discovery is open to every authenticated user by RBAC: the failed webhook does not stop it.
  EXPECT_EQ(kapi().connect_anonymous().request("GET", "/api", {{"Authorization", "Bearer jane-token"}}).status, 200);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(kapi().connect_admin().request("GET", "/api/v1/namespaces/default/pods").status, 200);
  EXPECT_LT(seconds_since(start), 1.0);
  EXPECT_NE(kapi().logs().find("Failed to make webhook authorizer request: Post \"https://127.0.0.1:1/authorize\""),
            std::string::npos);
  // Each failed round-trip, and each failure that gave no opinion (the flags' failure policy).
  const std::string metrics = kapi().connect_admin().request("GET", "/metrics").body;
  EXPECT_NE(metrics.find("apiserver_authorization_webhook_evaluations_total{name=\"default\",result=\"error\"} "),
            std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("apiserver_authorization_webhook_evaluations_fail_open_total{name=\"default\","
                         "result=\"error\"} "),
            std::string::npos);
}

}  // namespace
}  // namespace kapi::integration::webhook_authorization_test
