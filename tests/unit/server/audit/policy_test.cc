#include "server/audit/policy.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace kapi::audit::policy_test {
namespace {

constexpr std::string_view kPolicy = R"(apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
  - level: None
    nonResourceURLs: ["/healthz*", "/version"]
  - level: None
    users: ["system:kube-proxy"]
    verbs: ["watch"]
  - level: Metadata
    resources:
      - group: ""
        resources: ["secrets", "pods/log", "*/status"]
  - level: Request
    resources:
      - group: apps
        resources: ["deployments/*"]
  - level: RequestResponse
    omitStages: ["ResponseStarted"]
    omitManagedFields: true
    resources:
      - group: ""
        resources: ["configmaps"]
        resourceNames: ["watched"]
  - level: Request
    userGroups: ["system:masters"]
    namespaces: ["kube-system", ""]
  - level: Metadata
)";

authorization::Attributes resource(std::string verb, std::string group, std::string resource,
                                   std::string subresource = "", std::string name = "", std::string ns = "default") {
  authorization::Attributes attributes;
  attributes.user.name = "jane";
  attributes.user.groups = {"system:authenticated"};
  attributes.verb = std::move(verb);
  attributes.resource_request = true;
  attributes.api_group = std::move(group);
  attributes.api_version = "v1";
  attributes.resource = std::move(resource);
  attributes.subresource = std::move(subresource);
  attributes.name = std::move(name);
  attributes.namespace_ = std::move(ns);
  return attributes;
}

authorization::Attributes non_resource(std::string path) {
  authorization::Attributes attributes;
  attributes.user.name = "jane";
  attributes.verb = "get";
  attributes.path = std::move(path);
  return attributes;
}

TEST(AuditPolicyTest, ParsesRulesAndLevels) {
  Policy policy = parse_policy(kPolicy);
  ASSERT_EQ(policy.rules.size(), 7u);
  EXPECT_EQ(policy.omit_stages, std::vector<Stage>{Stage::RequestReceived});
  EXPECT_EQ(policy.rules[2].resources[0].resources, (std::vector<std::string>{"secrets", "pods/log", "*/status"}));
  EXPECT_EQ(policy.rules[4].level, Level::RequestResponse);
  EXPECT_EQ(policy.rules[4].omit_managed_fields, true);
  EXPECT_EQ(policy.rules[4].resources[0].resource_names, std::vector<std::string>{"watched"});
}

TEST(AuditPolicyTest, AcceptsJson) {
  Policy policy = parse_policy(
      R"({"apiVersion":"audit.k8s.io/v1","kind":"Policy","omitManagedFields":true,"rules":[{"level":"Request"}]})");
  ASSERT_EQ(policy.rules.size(), 1u);
  EXPECT_TRUE(policy.omit_managed_fields);
  EXPECT_EQ(evaluate(policy, non_resource("/api")).level, Level::Request);
}

TEST(AuditPolicyTest, FirstMatchingRuleWins) {
  Policy policy = parse_policy(kPolicy);
  EXPECT_EQ(evaluate(policy, non_resource("/healthz")).level, Level::None);
  EXPECT_EQ(evaluate(policy, non_resource("/healthz/etcd")).level, Level::None);
  EXPECT_EQ(evaluate(policy, non_resource("/version")).level, Level::None);
  EXPECT_EQ(evaluate(policy, non_resource("/versionx")).level, Level::Metadata);  // no '*': exact only
  EXPECT_EQ(evaluate(policy, resource("get", "", "secrets", "", "token")).level, Level::Metadata);
  EXPECT_EQ(evaluate(policy, resource("get", "", "pods", "log", "web")).level, Level::Metadata);
  EXPECT_EQ(evaluate(policy, resource("update", "", "pods", "status", "web")).level, Level::Metadata);
  EXPECT_EQ(evaluate(policy, resource("patch", "apps", "deployments", "scale")).level, Level::Request);
  // kube's "resource/*" matches the resource itself too.
  EXPECT_EQ(evaluate(policy, resource("get", "apps", "deployments")).level, Level::Request);
  EXPECT_EQ(evaluate(policy, resource("get", "apps", "replicasets")).level, Level::Metadata);
  EXPECT_EQ(evaluate(policy, resource("get", "", "pods")).level, Level::Metadata);
}

TEST(AuditPolicyTest, ResourceNamesUsersGroupsNamespaces) {
  Policy policy = parse_policy(kPolicy);
  auto watched = evaluate(policy, resource("get", "", "configmaps", "", "watched"));
  EXPECT_EQ(watched.level, Level::RequestResponse);
  EXPECT_TRUE(watched.omit_managed_fields);
  EXPECT_TRUE(watched.omits(Stage::RequestReceived));  // the policy's
  EXPECT_TRUE(watched.omits(Stage::ResponseStarted));  // the rule's
  EXPECT_FALSE(watched.omits(Stage::ResponseComplete));
  EXPECT_EQ(evaluate(policy, resource("get", "", "configmaps", "", "other")).level, Level::Metadata);

  auto proxy_watch = resource("watch", "", "endpoints");
  proxy_watch.user.name = "system:kube-proxy";
  EXPECT_EQ(evaluate(policy, proxy_watch).level, Level::None);
  proxy_watch.verb = "list";
  EXPECT_EQ(evaluate(policy, proxy_watch).level, Level::Metadata);

  auto admin = resource("get", "", "pods", "", "", "kube-system");
  admin.user.groups = {"system:masters"};
  EXPECT_EQ(evaluate(policy, admin).level, Level::Request);
  admin.namespace_ = "";  // cluster-scoped: "" is listed
  EXPECT_EQ(evaluate(policy, admin).level, Level::Request);
  admin.namespace_ = "default";
  EXPECT_EQ(evaluate(policy, admin).level, Level::Metadata);
  auto admin_path = non_resource("/metrics");
  admin_path.user.groups = {"system:masters"};
  EXPECT_EQ(evaluate(policy, admin_path).level, Level::Metadata);  // namespaces only match resource requests
}

TEST(AuditPolicyTest, NoMatchIsNone) {
  Policy policy = parse_policy("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  verbs: [delete]\n");
  EXPECT_EQ(evaluate(policy, resource("get", "", "pods")).level, Level::None);
  EXPECT_EQ(evaluate(policy, resource("delete", "", "pods")).level, Level::Metadata);
  // A request without a user (failed authentication) matches no rule that names users.
  Policy users = parse_policy("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  users: [\"\"]\n");
  EXPECT_EQ(evaluate(users, non_resource("/api")).level, Level::None);
}

void expect_error(std::string_view text, std::string_view message) {
  try {
    parse_policy(text);
    ADD_FAILURE() << "no error for " << text;
  } catch (const PolicyError& error) {
    EXPECT_EQ(error.what(), message);
  }
}

TEST(AuditPolicyTest, RefusesWhatKubeRefuses) {
  expect_error("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Verbose\n",
               R"(rules[0].level: Unsupported value: "Verbose": supported values: "None", "Metadata", "Request", "RequestResponse")");
  expect_error("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- verbs: [get]\n", "rules[0].level: Required value");
  expect_error("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []\n", "loaded illegal policy with 0 rules");
  expect_error("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  nonResourceURLs: [healthz]\n",
               R"(rules[0].nonResourceURLs[0]: Invalid value: "healthz": non-resource URL rules must begin with a '/' character)");
  expect_error("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  nonResourceURLs: [\"/a*b\"]\n",
               R"(rules[0].nonResourceURLs[0]: Invalid value: "/a*b": non-resource URL wildcards '*' must be the final character of the rule)");
  expect_error("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  omitStages: [Done]\n",
               R"(rules[0].omitStages[0]: Invalid value: "Done": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic)");
  expect_error(
      "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  nonResourceURLs: [/x]\n  namespaces: [a]\n",
      R"(rules[0].nonResourceURLs: Invalid value: []string{"/x"}: rules cannot apply to both regular resources and non-resource URLs)");
  expect_error("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  resources: [{resourceNames: [x]}]\n",
               R"(rules[0].resources.resourceNames: Invalid value: []string{"x"}: using resourceNames requires at least one resource)");
  expect_error("apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules:\n- level: None\n",
               R"(failed decoding: no kind "Policy" is registered for version "audit.k8s.io/v1beta1" in scheme "k8s.io/apiserver/pkg/audit/scheme.go:30")");
  expect_error("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Bad\n- level: None\n  omitStages: [X]\n",
               R"([rules[0].level: Unsupported value: "Bad": supported values: "None", "Metadata", "Request", "RequestResponse", rules[1].omitStages[0]: Invalid value: "X": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic])");
}

TEST(AuditPolicyTest, FileErrorsNameTheFile) {
  auto path = std::filesystem::temp_directory_path() / ("kapi-audit-policy-" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(path) << "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Loud\n";
  try {
    load_policy_file(path);
    ADD_FAILURE() << "no error";
  } catch (const PolicyError& error) {
    EXPECT_EQ(std::string(error.what()),
              R"(rules[0].level: Unsupported value: "Loud": supported values: "None", "Metadata", "Request", "RequestResponse": from file )" +
                  path.string());
  }
  std::filesystem::remove(path);
  try {
    load_policy_file(path);
    ADD_FAILURE() << "no error";
  } catch (const PolicyError& error) {
    EXPECT_EQ(std::string(error.what()), "failed to read file path \"" + path.string() + "\": open " + path.string() +
                                             ": no such file or directory");
  }
}

}  // namespace
}  // namespace kapi::audit::policy_test
