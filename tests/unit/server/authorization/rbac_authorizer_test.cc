// RBAC decisions as kube's rbac authorizer makes them: rule matching (verbs, groups, resources and
// subresources, names, non-resource URLs with wildcards), subjects, bindings' scopes and dangling references.
#include "server/authorization/rbac/rbac_authorizer.h"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace kapi::authorization::rbac::rbac_authorizer_test {
namespace {

namespace json = boost::json;

Attributes resource_request(std::string verb, std::string group, std::string resource, std::string namespace_ = "",
                            std::string name = "", std::string subresource = "") {
  Attributes attributes;
  attributes.user = {"jane", "", {"devs", "system:authenticated"}, {}};
  attributes.verb = std::move(verb);
  attributes.resource_request = true;
  attributes.api_group = std::move(group);
  attributes.resource = std::move(resource);
  attributes.namespace_ = std::move(namespace_);
  attributes.name = std::move(name);
  attributes.subresource = std::move(subresource);
  return attributes;
}

Attributes path_request(std::string verb, std::string path) {
  Attributes attributes;
  attributes.user = {"jane", "", {"system:authenticated"}, {}};
  attributes.verb = std::move(verb);
  attributes.path = std::move(path);
  return attributes;
}

TEST(RbacRuleAllows, MatchesAsKubesHelpers) {
  PolicyRule pods{{"get", "list"}, {""}, {"pods"}, {}, {}};
  EXPECT_TRUE(rule_allows(resource_request("get", "", "pods", "ns"), pods));
  EXPECT_FALSE(rule_allows(resource_request("delete", "", "pods", "ns"), pods));
  EXPECT_FALSE(rule_allows(resource_request("get", "apps", "pods", "ns"), pods));
  EXPECT_FALSE(rule_allows(resource_request("get", "", "pods", "ns", "p", "log"), pods)) << "subresources are named";

  PolicyRule logs{{"get"}, {""}, {"pods/log"}, {}, {}};
  EXPECT_TRUE(rule_allows(resource_request("get", "", "pods", "ns", "p", "log"), logs));
  PolicyRule any_scale{{"*"}, {"*"}, {"*/scale"}, {}, {}};
  EXPECT_TRUE(rule_allows(resource_request("update", "apps", "deployments", "ns", "d", "scale"), any_scale));
  EXPECT_FALSE(rule_allows(resource_request("update", "apps", "deployments", "ns", "d"), any_scale));

  PolicyRule named{{"get", "update"}, {""}, {"configmaps"}, {"settings"}, {}};
  EXPECT_TRUE(rule_allows(resource_request("get", "", "configmaps", "ns", "settings"), named));
  EXPECT_FALSE(rule_allows(resource_request("get", "", "configmaps", "ns", "other"), named));
  EXPECT_FALSE(rule_allows(resource_request("list", "", "configmaps", "ns"), named)) << "a list names nothing";

  PolicyRule urls{{"get"}, {}, {}, {}, {"/healthz", "/apis/*"}};
  EXPECT_TRUE(rule_allows(path_request("get", "/healthz"), urls));
  EXPECT_TRUE(rule_allows(path_request("get", "/apis/apps/v1"), urls));
  EXPECT_FALSE(rule_allows(path_request("get", "/api"), urls));
  EXPECT_FALSE(rule_allows(path_request("post", "/healthz"), urls));
}

TEST(RbacSubjects, UsersGroupsAndServiceAccounts) {
  request::UserInfo account{"system:serviceaccount:team:builder", "", {"system:serviceaccounts"}, {}};
  EXPECT_TRUE(subject_matches({"ServiceAccount", "builder", "team"}, account, ""));
  EXPECT_TRUE(subject_matches({"ServiceAccount", "builder", ""}, account, "team")) << "the binding's namespace";
  EXPECT_FALSE(subject_matches({"ServiceAccount", "builder", ""}, account, "")) << "no namespace to assume";
  EXPECT_TRUE(subject_matches({"Group", "system:serviceaccounts", ""}, account, ""));
  EXPECT_FALSE(subject_matches({"User", "builder", ""}, account, ""));
}

class RbacAuthorizerTest : public ::testing::Test {
 protected:
  RbacAuthorizerTest() {
    PolicySnapshot policy;
    policy.add_role(json::parse(R"({"kind":"ClusterRole","metadata":{"name":"view"},
        "rules":[{"verbs":["get","list","watch"],"apiGroups":["","apps"],"resources":["pods","deployments"]}]})").as_object());
    policy.add_role(json::parse(R"({"kind":"Role","metadata":{"name":"cm-editor","namespace":"team"},
        "rules":[{"verbs":["*"],"apiGroups":[""],"resources":["configmaps"]}]})").as_object());
    policy.add_role(json::parse(R"({"kind":"ClusterRole","metadata":{"name":"discovery"},
        "rules":[{"verbs":["get"],"nonResourceURLs":["/api","/api/*","/apis","/apis/*"]}]})").as_object());
    policy.add_binding(json::parse(R"({"kind":"ClusterRoleBinding","metadata":{"name":"discovery"},
        "roleRef":{"kind":"ClusterRole","name":"discovery"},"subjects":[{"kind":"Group","name":"system:authenticated"}]})").as_object());
    policy.add_binding(json::parse(R"({"kind":"RoleBinding","metadata":{"name":"view","namespace":"team"},
        "roleRef":{"kind":"ClusterRole","name":"view"},"subjects":[{"kind":"Group","name":"devs"}]})").as_object());
    policy.add_binding(json::parse(R"({"kind":"RoleBinding","metadata":{"name":"cm","namespace":"team"},
        "roleRef":{"kind":"Role","name":"cm-editor"},"subjects":[{"kind":"User","name":"jane"}]})").as_object());
    authorizer_.set_policy(std::make_shared<const PolicySnapshot>(std::move(policy)));
  }
  Decision decide(const Attributes& attributes) { return authorizer_.authorize(attributes).decision; }

  RbacAuthorizer authorizer_;
};

TEST_F(RbacAuthorizerTest, RoleBindingsGrantInTheirNamespaceOnly) {
  EXPECT_EQ(decide(resource_request("list", "", "pods", "team")), Decision::Allow) << "ClusterRole view via devs";
  EXPECT_EQ(decide(resource_request("list", "", "pods", "other")), Decision::NoOpinion);
  EXPECT_EQ(decide(resource_request("list", "", "pods")), Decision::NoOpinion) << "not across all namespaces";
  EXPECT_EQ(decide(resource_request("delete", "", "configmaps", "team", "x")), Decision::Allow) << "Role via jane";
  EXPECT_EQ(decide(resource_request("delete", "", "pods", "team", "x")), Decision::NoOpinion);
  EXPECT_EQ(decide(path_request("get", "/apis/apps")), Decision::Allow) << "ClusterRoleBinding to a group";
  EXPECT_EQ(decide(path_request("get", "/metrics")), Decision::NoOpinion);
}

TEST_F(RbacAuthorizerTest, AnAllowNamesTheBindingThatGrantsIt) {
  EXPECT_EQ(authorizer_.authorize(resource_request("list", "", "pods", "team")).reason,
            "RBAC: allowed by RoleBinding \"view/team\" of ClusterRole \"view\" to Group \"devs\"");
  EXPECT_EQ(authorizer_.authorize(path_request("get", "/apis")).reason,
            "RBAC: allowed by ClusterRoleBinding \"discovery\" of ClusterRole \"discovery\" to Group "
            "\"system:authenticated\"");
}

TEST_F(RbacAuthorizerTest, RulesForListClusterWideThenNamespaceRules) {
  const request::UserInfo jane{"jane", "", {"devs", "system:authenticated"}, {}};
  RuleSet team = authorizer_.rules_for(jane, "team");
  EXPECT_FALSE(team.incomplete);
  EXPECT_TRUE(team.errors.empty());
  ASSERT_EQ(team.non_resource_rules.size(), 1u);
  EXPECT_EQ(team.non_resource_rules[0].non_resource_urls, (std::vector<std::string>{"/api", "/api/*", "/apis", "/apis/*"}));
  ASSERT_EQ(team.resource_rules.size(), 2u);
  EXPECT_EQ(team.resource_rules[0].resources, (std::vector<std::string>{"pods", "deployments"}));
  EXPECT_EQ(team.resource_rules[0].verbs, (std::vector<std::string>{"get", "list", "watch"}));
  EXPECT_EQ(team.resource_rules[1].resources, (std::vector<std::string>{"configmaps"}));
  RuleSet other = authorizer_.rules_for(jane, "other");
  EXPECT_TRUE(other.resource_rules.empty()) << "RoleBindings count in their namespace only";
  EXPECT_EQ(other.non_resource_rules.size(), 1u);
}

TEST_F(RbacAuthorizerTest, DanglingRoleReferencesAreTheReason) {
  PolicySnapshot policy;
  policy.add_binding(json::parse(R"({"kind":"ClusterRoleBinding","metadata":{"name":"b"},
      "roleRef":{"kind":"ClusterRole","name":"gone"},"subjects":[{"kind":"User","name":"jane"}]})").as_object());
  authorizer_.set_policy(std::make_shared<const PolicySnapshot>(std::move(policy)));
  Result result = authorizer_.authorize(resource_request("get", "", "pods", "team"));
  EXPECT_EQ(result.decision, Decision::NoOpinion);
  EXPECT_EQ(result.reason, "RBAC: clusterrole.rbac.authorization.k8s.io \"gone\" not found");
  EXPECT_EQ(authorizer_.authorize(path_request("get", "/healthz")).reason, result.reason);
  EXPECT_EQ(authorizer_.rules_for({"jane", "", {}, {}}, "team").errors,
            (std::vector<std::string>{"clusterrole.rbac.authorization.k8s.io \"gone\" not found"}));
}

}  // namespace
}  // namespace kapi::authorization::rbac::rbac_authorizer_test
