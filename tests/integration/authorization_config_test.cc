// --authorization-config (AuthorizationConfiguration apiserver.config.k8s.io/v1) against the sample webhook: the
// authorizers in order, a webhook asked only when its CEL matchConditions hold, a failing webhook's failurePolicy
// Deny (kube's 500), RBAC after them; the file reloaded when it changes; and the flags it excludes. Match
// conditions, round-trips, failures and reloads are counted in kube's metrics.
#include "tests/integration/auth_webhook_support.h"

#include "base/host_address.h"
#include "server/controlplane/apiserver_identity.h"
#include "server/metrics/families.h"

#include <cstdlib>

namespace kapi::integration::authorization_config_test {
namespace {

namespace json = boost::json;

// An AuthorizationConfiguration file (kept for the program's life), rewritten by the reload test.
std::filesystem::path config_file(const std::string& name, const std::string& authorizers) {
  static std::vector<std::unique_ptr<test_support::TempDir>> dirs;
  const auto& dir = dirs.emplace_back(std::make_unique<test_support::TempDir>("kapi-" + name + "-authz-config"));
  const auto path = dir->path() / "authorization.yaml";
  std::ofstream(path) << "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n"
                      << authorizers;
  return path;
}

std::string webhook_authorizer(const std::string& name, const std::string& kubeconfig, const std::string& policy,
                               const std::string& condition) {
  return "- type: Webhook\n  name: " + name + "\n  webhook:\n    timeout: 3s\n    subjectAccessReviewVersion: v1\n"
         "    matchConditionSubjectAccessReviewVersion: v1\n    failurePolicy: " + policy + "\n"
         "    connectionInfo:\n      type: KubeConfigFile\n      kubeConfigFile: " + kubeconfig + "\n"
         "    matchConditions:\n    - expression: \"" + condition + "\"\n";
}

std::string chain() {
  return webhook_authorizer("only-configmaps", webhook_config_for("config-authz", "/authorize"), "NoOpinion",
                            "has(request.resourceAttributes) && request.resourceAttributes.resource == 'configmaps'") +
         webhook_authorizer("bob-only", webhook_kubeconfig("config-unreachable", "https://127.0.0.1:1/authorize",
                                                           shared_sample_webhook().ca_bundle_base64()),
                            "Deny", "request.user == 'bob'") +
         "- type: RBAC\n  name: rbac\n";
}

HttpResponse get_as(KapiProcess& kapi, const std::string& token, std::string_view target) {
  return kapi.connect_anonymous().request("GET", target, {{"Authorization", "Bearer " + token}});
}

class AuthorizationConfigTest : public KapiSuite<AuthorizationConfigTest> {
 public:
  static KapiOptions kapi_options() {
    return with_token_users("authz-config", "bob-token,bob,7\n",
                            {"--authentication-token-webhook-config-file=" + webhook_config_for("config-authn", "/authenticate"),
                             "--authorization-config=" + config_file("chain", chain()).string()});
  }
};

TEST_F(AuthorizationConfigTest, AWebhookIsAskedOnlyWhenItsConditionsMatch) {
  const auto asked_about = [](std::string_view resource) {
    return reviews_received("/authorize", [&](const json::object& review) {
      const auto* attributes = review.at("spec").as_object().if_contains("resourceAttributes");
      const auto* found = attributes && attributes->is_object() ? attributes->as_object().if_contains("resource") : nullptr;
      return review.at("apiVersion") == "authorization.k8s.io/v1" && found && found->is_string() &&
             found->as_string() == resource && review.at("spec").at("user") == "alice";
    });
  };
  const std::size_t configmaps_before = asked_about("configmaps");
  const CommandResult configmaps = kubectl_with_token(kapi(), "alice-token", "get configmaps -n default");
  EXPECT_EQ(configmaps.exit_code, 0) << configmaps.output;
  EXPECT_GT(asked_about("configmaps"), configmaps_before);

  // Secrets match neither webhook: RBAC alone decides, and the webhook never hears of them.
  HttpResponse secrets = get_as(kapi(), "alice-token", "/api/v1/namespaces/default/secrets");
  EXPECT_TRUE(is_status(secrets, 403, "Forbidden")) << secrets.body;
  EXPECT_EQ(status_message(secrets).rfind("secrets is forbidden: User \"alice\" cannot list resource \"secrets\" in API "
                                          "group \"\" in the namespace \"default\"",
                                          0),
            0u);
  EXPECT_EQ(asked_about("secrets"), 0u);
}

TEST_F(AuthorizationConfigTest, AFailingWebhookWithFailurePolicyDenyIsKubesInternalError) {
  HttpResponse pods = get_as(kapi(), "bob-token", "/api/v1/namespaces/default/pods");
  EXPECT_EQ(pods.status, 500);
  EXPECT_EQ(pods.body, "Internal Server Error: \"/api/v1/namespaces/default/pods\": Post "
                       "\"https://127.0.0.1:1/authorize\": dial tcp 127.0.0.1:1: connect: connection refused\n");
  // Even what RBAC would allow: the Deny comes first.
  EXPECT_EQ(get_as(kapi(), "bob-token", "/api").status, 500);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(kapi().connect_admin().request("GET", "/api/v1/namespaces/default/pods").status, 200);
  EXPECT_LT(seconds_since(start), 1.0);
  // A failure under Deny is counted as a round-trip, not as failing open.
  const std::string metrics = kapi().connect_admin().request("GET", "/metrics").body;
  EXPECT_NE(metrics.find("apiserver_authorization_webhook_evaluations_total{name=\"bob-only\",result=\"error\"} "),
            std::string::npos)
      << metrics;
  EXPECT_EQ(metrics.find("apiserver_authorization_webhook_evaluations_fail_open_total{name=\"bob-only\""),
            std::string::npos);
  EXPECT_NE(metrics.find("apiserver_authorization_decisions_total{decision=\"denied\",name=\"bob-only\","
                         "type=\"Webhook\"} "),
            std::string::npos);
}

TEST_F(AuthorizationConfigTest, MatchConditionsAreMeasured) {
  ASSERT_EQ(get_as(kapi(), "alice-token", "/api/v1/namespaces/default/secrets").status, 403);
  const std::string metrics = kapi().connect_admin().request("GET", "/metrics").body;
  // Secrets are not configmaps: the first webhook's conditions exclude the request, and alice is not bob.
  for (const std::string name : {"only-configmaps", "bob-only"}) {
    EXPECT_NE(metrics.find("apiserver_authorization_match_condition_exclusions_total{name=\"" + name +
                           "\",type=\"Webhook\"} "),
              std::string::npos)
        << name << "\n" << metrics;
    EXPECT_NE(metrics.find("apiserver_authorization_match_condition_evaluation_seconds_bucket{name=\"" + name +
                           "\",type=\"Webhook\",le=\"0.001\"} "),
              std::string::npos)
        << name;
  }
  EXPECT_NE(metrics.find("# TYPE apiserver_authorization_match_condition_evaluation_errors_total counter\n"),
            std::string::npos);
}

// The file is watched (every 200 ms here): a valid change replaces the chain, an invalid one is logged and ignored.
class AuthorizationConfigReloadTest : public KapiSuite<AuthorizationConfigReloadTest> {
 public:
  static KapiOptions kapi_options() {
    return with_token_users("authz-reload", "carol-token,carol,9\n",
                            {"--authorization-config=" + file().string(), "--authorization-config-reload-interval=200ms"});
  }
  static const std::filesystem::path& file() {
    static const std::filesystem::path path = config_file("reload", "- type: RBAC\n  name: rbac\n");
    return path;
  }
  // Written whole and renamed into place, so that no poll reads half a file (each read is counted).
  static void replace(const std::filesystem::path& path, const std::string& text) {
    const auto next = path.string() + ".next";
    std::ofstream(next) << text;
    std::filesystem::rename(next, path);
  }
};

TEST_F(AuthorizationConfigReloadTest, AChangedFileReplacesTheChain) {
  EXPECT_EQ(get_as(kapi(), "carol-token", "/api/v1/namespaces/default/secrets").status, 403);
  replace(file(), "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n"
                 "- type: RBAC\n  name: rbac\n- type: AlwaysAllow\n  name: everyone\n");
  EXPECT_TRUE(eventually([&] { return get_as(kapi(), "carol-token", "/api/v1/namespaces/default/secrets").status == 200; }));

  replace(file(), "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers: []\n");
  EXPECT_TRUE(eventually([&] {
    return kapi().logs().find("authorizers: Required value: at least one authorization mode must be defined") !=
           std::string::npos;
  })) << kapi().logs();
  EXPECT_EQ(get_as(kapi(), "carol-token", "/api/v1/namespaces/default/secrets").status, 200);  // the last good chain

  // kube counts the start as a success, then each change: the new chain, then the file it refused.
  const std::string id_hash = metrics::sha256_label(controlplane::apiserver_identity(base::hostname()));
  const std::string reloads = "apiserver_authorization_config_controller_automatic_reloads_total{apiserver_id_hash=\"" +
                              id_hash + "\",status=";
  const std::string metrics = kapi().connect_admin().request("GET", "/metrics").body;
  EXPECT_NE(metrics.find(reloads + "\"success\"} 2\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find(reloads + "\"failure\"} 1\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("apiserver_authorization_config_controller_automatic_reload_last_timestamp_seconds{"
                         "apiserver_id_hash=\"" + id_hash + "\",status=\"failure\"} "),
            std::string::npos);
  EXPECT_NE(metrics.find("apiserver_authorization_decisions_total{decision=\"allowed\",name=\"everyone\","
                         "type=\"AlwaysAllow\"} "),
            std::string::npos);
}

// A webhook slower than its 1 s timeout: the call ends at the timeout (not retried, as Go's client timeout is not),
// the failure policy NoOpinion lets RBAC decide, and requests that do not match its conditions never wait.
class SlowWebhookAuthorizationConfigTest : public KapiSuite<SlowWebhookAuthorizationConfigTest> {
 public:
  static KapiOptions kapi_options() {
    std::string slow = webhook_authorizer("slow", webhook_config_for("config-slow", "/authorize-slow"), "NoOpinion",
                                          "request.user == 'dave'");
    slow.replace(slow.find("timeout: 3s"), 11, "timeout: 1s");
    return with_token_users("authz-config-slow", "dave-token,dave,11\nerin-token,erin,12\n",
                            {"--authorization-config=" + config_file("slow", slow + "- type: RBAC\n  name: rbac\n").string()});
  }
};

TEST_F(SlowWebhookAuthorizationConfigTest, TheTimeoutEndsTheCallAndTheFailurePolicyApplies) {
  auto start = std::chrono::steady_clock::now();
  HttpResponse discovery = get_as(kapi(), "dave-token", "/api");  // RBAC allows discovery to everyone
  EXPECT_EQ(discovery.status, 200) << discovery.body;
  EXPECT_GE(seconds_since(start), 0.9);
  EXPECT_LT(seconds_since(start), 3.0);

  start = std::chrono::steady_clock::now();
  HttpResponse pods = get_as(kapi(), "dave-token", "/api/v1/namespaces/default/pods");
  EXPECT_EQ(pods.status, 500);
  EXPECT_NE(pods.body.find("/authorize-slow\": context deadline exceeded (Client.Timeout exceeded while awaiting "
                           "headers)"),
            std::string::npos)
      << pods.body;
  EXPECT_LT(seconds_since(start), 3.0);

  start = std::chrono::steady_clock::now();
  EXPECT_EQ(get_as(kapi(), "erin-token", "/api").status, 200);
  EXPECT_LT(seconds_since(start), 0.5);
  const std::string metrics = kapi().connect_admin().request("GET", "/metrics").body;
  EXPECT_NE(metrics.find("apiserver_authorization_webhook_evaluations_total{name=\"slow\",result=\"timeout\"} 2\n"),
            std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("apiserver_authorization_webhook_evaluations_fail_open_total{name=\"slow\","
                         "result=\"timeout\"} 2\n"),
            std::string::npos);
}

TEST(AuthorizationConfigStartupTest, TheLegacyFlagsAreExclusiveAndErrorsNameTheirField) {
  const auto start = [](const std::string& flags) {
    test_support::TempDir dir("kapi-authz-config-startup");
    return test_support::run_command("timeout 60 " + std::string(std::getenv("KAPI_BINARY")) + " --data-dir=" +
                                     (dir.path() / "data").string() + " --secure-port=" +
                                     std::to_string(test_support::pick_free_port()) + " " + flags);
  };
  const std::string valid = config_file("startup-valid", "- type: RBAC\n  name: rbac\n").string();
  const CommandResult both = start("--authorization-config=" + valid + " --authorization-mode=RBAC");
  EXPECT_EQ(both.exit_code, 1) << both.output;
  EXPECT_NE(both.output.find("--authorization-config can not be specified when --authorization-mode or "
                             "--authorization-webhook-* flags are defined"),
            std::string::npos)
      << both.output;

  const std::string invalid = config_file("startup-invalid", "- type: Webhook\n  name: w\n").string();
  const CommandResult refused = start("--authorization-config=" + invalid);
  EXPECT_EQ(refused.exit_code, 1) << refused.output;
  EXPECT_NE(refused.output.find("invalid authorization config: authorizers[0].webhook: Required value: required when "
                                "type=Webhook"),
            std::string::npos)
      << refused.output;
}

}  // namespace
}  // namespace kapi::integration::authorization_config_test
