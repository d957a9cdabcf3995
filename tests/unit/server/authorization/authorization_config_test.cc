// AuthorizationConfiguration (--authorization-config): strict decoding, the defaults, kube's validation errors
// with their field paths, and matchConditions compiled and evaluated as kube's CEL matcher does.
#include "server/authorization/authorization_config.h"
#include "server/authorization/webhook_authorizer.h"
#include "tests/support/temp_dir.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <fstream>

namespace kapi::authorization::authorization_config_test {
namespace {

std::string error_of(const std::string& text) {
  try {
    parse_authorization_configuration(text);
  } catch (const AuthorizationConfigError& error) {
    return error.what();
  }
  return "";
}

class AuthorizationConfigTest : public ::testing::Test {
 protected:
  AuthorizationConfigTest() : dir_("authz-config-test") { std::ofstream(kubeconfig()) << "clusters: []\n"; }
  std::string kubeconfig() const { return (dir_.path() / "webhook.kubeconfig").string(); }
  // A valid Webhook authorizer, with `extra` lines added to its webhook.
  std::string webhook(const std::string& name, const std::string& extra = "") const {
    return "- type: Webhook\n  name: " + name + "\n  webhook:\n    timeout: 3s\n    subjectAccessReviewVersion: v1\n"
           "    failurePolicy: Deny\n    connectionInfo:\n      type: KubeConfigFile\n      kubeConfigFile: " +
           kubeconfig() + "\n" + extra;
  }
  static std::string config(const std::string& authorizers, const std::string& version = "v1") {
    return "apiVersion: apiserver.config.k8s.io/" + version + "\nkind: AuthorizationConfiguration\nauthorizers:\n" +
           authorizers;
  }

  test_support::TempDir dir_;
};

TEST_F(AuthorizationConfigTest, AValidChainIsDecodedWithKubesDefaults) {
  for (const std::string version : {"v1", "v1beta1", "v1alpha1"}) {
    AuthorizationConfiguration parsed = parse_authorization_configuration(
        config("- type: Node\n  name: node\n" + webhook("first") + webhook("second") + "- type: RBAC\n  name: rbac\n",
               version));
    ASSERT_EQ(parsed.authorizers.size(), 4u) << version;
    EXPECT_EQ(parsed.authorizers[1].type, "Webhook");
    const WebhookConfiguration& first = *parsed.authorizers[1].webhook;
    EXPECT_EQ(first.timeout, std::chrono::seconds(3));
    EXPECT_EQ(first.authorized_ttl, std::chrono::minutes(5));
    EXPECT_EQ(first.unauthorized_ttl, std::chrono::seconds(30));
    EXPECT_TRUE(first.cache_authorized_requests);
    EXPECT_TRUE(first.cache_unauthorized_requests);
    EXPECT_EQ(parsed.authorizers[3].name, "rbac");
  }
}

TEST_F(AuthorizationConfigTest, DecodingIsStrict) {
  EXPECT_EQ(error_of(config("- type: RBAC\n  name: rbac\n  mode: x\n")),
            "strict decoding error: unknown field \"authorizers[0].mode\"");
  EXPECT_EQ(error_of(config(webhook("w", "    retries: 3\n"))),
            "strict decoding error: unknown field \"authorizers[0].webhook.retries\"");
  EXPECT_EQ(error_of(config("- type: RBAC\n  name: rbac\n", "v2")),
            "no kind \"AuthorizationConfiguration\" is registered for version \"apiserver.config.k8s.io/v2\"");
}

TEST_F(AuthorizationConfigTest, AuthorizersAreValidatedAsKubeDoes) {
  EXPECT_EQ(error_of("apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\n"),
            "authorizers: Required value: at least one authorization mode must be defined");
  EXPECT_EQ(error_of(config("- type: Bogus\n  name: b\n")),
            "authorizers[0].type: Unsupported value: \"Bogus\": supported values: \"ABAC\", \"AlwaysAllow\", "
            "\"AlwaysDeny\", \"Node\", \"RBAC\", \"Webhook\"");
  EXPECT_EQ(error_of(config("- type: RBAC\n  name: a\n- type: RBAC\n  name: b\n")),
            "authorizers[1].type: Duplicate value: \"RBAC\"");
  EXPECT_EQ(error_of(config("- type: RBAC\n  name: same\n" + webhook("same"))),
            "authorizers[1].name: Duplicate value: \"same\"");
  EXPECT_EQ(error_of(config("- type: RBAC\n")), "authorizers[0].name: Required value");
  EXPECT_EQ(error_of(config("- type: RBAC\n  name: Not_A_Name\n")),
            "authorizers[0].name: Invalid value: \"Not_A_Name\": authorizer name is invalid: a lowercase RFC 1123 "
            "subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an "
            "alphanumeric character (e.g. 'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
  EXPECT_EQ(error_of(config("- type: Webhook\n  name: w\n")),
            "authorizers[0].webhook: Required value: required when type=Webhook");
  EXPECT_EQ(error_of(config("- type: RBAC\n  name: r\n  webhook:\n    timeout: 3s\n")),
            "authorizers[0].webhook: Invalid value: \"non-null\": may only be specified when type=Webhook");
}

TEST_F(AuthorizationConfigTest, WebhooksAreValidatedAsKubeDoes) {
  const std::string empty_webhook = config("- type: Webhook\n  name: w\n  webhook:\n    timeout: 0s\n");
  EXPECT_EQ(error_of(empty_webhook),
            "[authorizers[0].webhook.timeout: Required value, authorizers[0].webhook.subjectAccessReviewVersion: "
            "Required value, authorizers[0].webhook.failurePolicy: Required value, "
            "authorizers[0].webhook.connectionInfo.type: Required value]");
  const std::string bad = config(
      "- type: Webhook\n  name: w\n  webhook:\n    timeout: 31s\n    subjectAccessReviewVersion: v2\n"
      "    matchConditionSubjectAccessReviewVersion: v1beta1\n    failurePolicy: Fail\n    connectionInfo:\n"
      "      type: KubeConfigFile\n      kubeConfigFile: relative/file\n");
  EXPECT_EQ(error_of(bad),
            "[authorizers[0].webhook.timeout: Invalid value: \"31s\": must be > 0s and <= 30s, "
            "authorizers[0].webhook.subjectAccessReviewVersion: Unsupported value: \"v2\": supported values: \"v1\", "
            "\"v1beta1\", authorizers[0].webhook.matchConditionSubjectAccessReviewVersion: Unsupported value: "
            "\"v1beta1\": supported values: \"v1\", authorizers[0].webhook.failurePolicy: Unsupported value: \"Fail\": "
            "supported values: \"NoOpinion\", \"Deny\", authorizers[0].webhook.connectionInfo.kubeConfigFile: Invalid "
            "value: \"relative/file\": must be an absolute path]");
  EXPECT_EQ(error_of(config("- type: Webhook\n  name: w\n  webhook:\n    timeout: 3s\n    subjectAccessReviewVersion: v1\n"
                            "    failurePolicy: Deny\n    connectionInfo:\n      type: InClusterConfig\n"
                            "      kubeConfigFile: /x\n")),
            "authorizers[0].webhook.connectionInfo.kubeConfigFile: Invalid value: \"/x\": can only be set when "
            "type=KubeConfigFile");
}

TEST_F(AuthorizationConfigTest, MatchConditionsAreCompiledAtLoad) {
  EXPECT_EQ(error_of(config(webhook("w", "    matchConditions:\n    - expression: request.user == 'x'\n"))),
            "authorizers[0].webhook.matchConditionSubjectAccessReviewVersion: Required value: required if match "
            "conditions are specified");
  const std::string versioned = "    matchConditionSubjectAccessReviewVersion: v1\n    matchConditions:\n";
  EXPECT_EQ(error_of(config(webhook("w", versioned + "    - expression: request.user\n"))),
            "authorizers[0].webhook.matchConditions[0].expression: Invalid value: \"request.user\": must evaluate to "
            "bool but got string");
  const std::string missing = error_of(config(webhook("w", versioned + "    - expression: request.nope == 'x'\n")));
  EXPECT_EQ(missing.rfind("authorizers[0].webhook.matchConditions[0].expression: Invalid value: \"request.nope == "
                          "'x'\": compilation failed: ERROR: <input>:1:8: undefined field 'nope'",
                          0),
            0u)
      << missing;
  EXPECT_EQ(error_of(config(webhook("w", versioned + "    - expression: 'true'\n    - expression: 'true'\n"))),
            "authorizers[0].webhook.matchConditions[1].expression: Duplicate value: \"true\"");
  EXPECT_EQ(error_of(config(webhook("w", versioned + "    - expression: ' '\n"))),
            "authorizers[0].webhook.matchConditions[0].expression: Required value");
}

TEST_F(AuthorizationConfigTest, MatchConditionsMatchAsKubesMatcher) {
  validation::ErrorList errors;
  auto matches = compile_match_conditions(
      {"has(request.resourceAttributes) && request.resourceAttributes.resource == 'configmaps'",
       "!('system:masters' in request.groups)"},
      validation::Path(""), &errors);
  ASSERT_TRUE(errors.empty());
  ASSERT_TRUE(matches);
  Attributes attributes;
  attributes.user.name = "alice";
  attributes.user.groups = {"devs"};
  attributes.verb = "get";
  attributes.resource_request = true;
  attributes.resource = "configmaps";
  MatchOutcome outcome = matches(subject_access_review(attributes));
  EXPECT_FALSE(outcome.excluded);
  EXPECT_EQ(outcome.error, "");
  attributes.resource = "secrets";
  outcome = matches(subject_access_review(attributes));
  EXPECT_TRUE(outcome.excluded);
  EXPECT_FALSE(outcome.errored);
  EXPECT_EQ(outcome.error, "");

  // An error, with no condition false: no match, and the error for the failure policy.
  auto erring = compile_match_conditions({"request.resourceAttributes.name == 'x'"}, validation::Path(""), &errors);
  ASSERT_TRUE(errors.empty());
  Attributes path;
  path.user.name = "alice";
  path.verb = "get";
  path.path = "/healthz";
  outcome = erring(subject_access_review(path));
  EXPECT_FALSE(outcome.excluded);
  EXPECT_TRUE(outcome.errored);
  EXPECT_EQ(outcome.error.rfind("cel evaluation error: expression 'request.resourceAttributes.name == 'x'' resulted in "
                                "error: ", 0),
            0u)
      << outcome.error;

  // An error, then a condition false: excluded (no opinion), the error still counted as kube's matcher counts it.
  auto both = compile_match_conditions({"request.resourceAttributes.name == 'x'", "request.user == 'bob'"},
                                       validation::Path(""), &errors);
  ASSERT_TRUE(errors.empty());
  outcome = both(subject_access_review(path));
  EXPECT_TRUE(outcome.excluded);
  EXPECT_TRUE(outcome.errored);
  EXPECT_EQ(outcome.error, "");
}

// Field terms sorted as fields.ParseSelector sorts them; label requirements by key. (kube sends an `in` set's values
// as written; kapi's selectors keep them sorted.)
TEST(SubjectAccessReviewTest, CarriesTheSelectorsRequirementsAsKube132) {
  Attributes attributes;
  attributes.user = {"jane", "7", {"devs", "system:authenticated"}, {{"scopes", {"a", "b"}}}};
  attributes.verb = "list";
  attributes.resource_request = true;
  attributes.namespace_ = "shop";
  attributes.api_version = "v1";
  attributes.resource = "pods";
  attributes.field_selector = "spec.nodeName=n1,metadata.name!=x";
  attributes.label_selector = "app in (web,api),!legacy,tier,version>2";
  EXPECT_EQ(boost::json::serialize(subject_access_review(attributes)),
            R"({"kind":"SubjectAccessReview","apiVersion":"authorization.k8s.io/v1","metadata":{"creationTimestamp":null},)"
            R"("spec":{"resourceAttributes":{"namespace":"shop","verb":"list","version":"v1","resource":"pods",)"
            R"("fieldSelector":{"requirements":[{"key":"metadata.name","operator":"NotIn","values":["x"]},)"
            R"({"key":"spec.nodeName","operator":"In","values":["n1"]}]},)"
            R"("labelSelector":{"requirements":[{"key":"app","operator":"In","values":["api","web"]},)"
            R"({"key":"legacy","operator":"DoesNotExist"},{"key":"tier","operator":"Exists"}]}},)"
            R"("user":"jane","groups":["devs","system:authenticated"],"extra":{"scopes":["a","b"]},"uid":"7"},)"
            R"("status":{"allowed":false}})");
}

}  // namespace
}  // namespace kapi::authorization::authorization_config_test
