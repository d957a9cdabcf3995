// Authorization modes as kube-apiserver builds them: the privileged group first, then the modes in order, the
// union's first decision winning, and kube's wording of a denial.
#include "server/authorization/modes.h"

#include <gtest/gtest.h>

namespace kapi::authorization::authorization_test {
namespace {

Attributes request(std::string user, std::vector<std::string> groups = {}) {
  Attributes attributes;
  attributes.user.name = std::move(user);
  attributes.user.groups = std::move(groups);
  attributes.verb = "list";
  attributes.resource_request = true;
  attributes.api_version = "v1";
  attributes.namespace_ = "default";
  attributes.resource = "pods";
  return attributes;
}

TEST(AuthorizationModes, SystemMastersMayAlwaysDoEverything) {
  auto deny = build_authorizer({"AlwaysDeny"});
  EXPECT_EQ(deny->authorize(request("admin", {"system:masters"})).decision, Decision::Allow);
  Result denied = deny->authorize(request("jane", {"system:authenticated"}));
  EXPECT_EQ(denied.decision, Decision::NoOpinion) << "kube's union: no authorizer allowed, none denied";
  EXPECT_EQ(denied.reason, "Everything is forbidden.");
  EXPECT_EQ(build_authorizer({"AlwaysAllow"})->authorize(request("jane")).decision, Decision::Allow);
  EXPECT_EQ(build_authorizer({"AlwaysDeny", "AlwaysAllow"})->authorize(request("jane")).decision, Decision::Allow)
      << "AlwaysDeny has no opinion: the next mode decides, as in kube";
}

TEST(AuthorizationModes, RulesAreListedAsKubesRuleResolversListThem) {
  const request::UserInfo jane{"jane", "", {"system:authenticated"}, {}};
  RuleSet allow = build_authorizer({"AlwaysAllow"})->rules_for(jane, "default");
  ASSERT_EQ(allow.resource_rules.size(), 1u);
  EXPECT_EQ(allow.resource_rules[0].verbs, std::vector<std::string>{"*"});
  EXPECT_EQ(allow.non_resource_rules[0].non_resource_urls, std::vector<std::string>{"*"});
  RuleSet deny = build_authorizer({"AlwaysDeny"})->rules_for(jane, "default");
  EXPECT_TRUE(deny.resource_rules.empty());
  EXPECT_FALSE(deny.incomplete);
}

TEST(AuthorizationModes, UnknownAndRepeatedModesAreRefused) {
  EXPECT_THROW(build_authorizer({}), AuthorizationModeError);
  EXPECT_THROW(build_authorizer({"Sometimes"}), AuthorizationModeError);
  EXPECT_THROW(build_authorizer({"AlwaysAllow", "AlwaysAllow"}), AuthorizationModeError);
  EXPECT_THROW(build_authorizer({"RBAC"}), AuthorizationModeError) << "no RBAC authorizer given";
  auto rbac = std::make_shared<AlwaysAllowAuthorizer>();
  EXPECT_EQ(build_authorizer({"RBAC"}, rbac)->authorize(request("jane")).decision, Decision::Allow);
}

TEST(ForbiddenMessage, SaysWhatKubeSays) {
  Attributes attributes = request("jane");
  EXPECT_EQ(forbidden_message(attributes),
            "User \"jane\" cannot list resource \"pods\" in API group \"\" in the namespace \"default\"");
  attributes.namespace_.clear();
  attributes.api_group = "apps";
  attributes.resource = "deployments";
  attributes.subresource = "scale";
  attributes.verb = "update";
  EXPECT_EQ(forbidden_message(attributes),
            "User \"jane\" cannot update resource \"deployments/scale\" in API group \"apps\" at the cluster scope");
  Attributes path = request("system:anonymous");
  path.resource_request = false;
  path.verb = "get";
  path.path = "/metrics";
  EXPECT_EQ(forbidden_message(path), "User \"system:anonymous\" cannot get path \"/metrics\"");
  path.path = "/<script>&";
  EXPECT_EQ(forbidden_message(path), "User \"system:anonymous\" cannot get path \"/&lt;script&gt;&amp;\"");
}

}  // namespace
}  // namespace kapi::authorization::authorization_test
