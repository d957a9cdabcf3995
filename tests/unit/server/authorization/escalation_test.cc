// RBAC escalation prevention as kube's validation.Covers and the policy-based storages apply it: which parts of a
// role a user's own rules cover (wildcards, subresources, names, URLs), kube's compact descriptions, and when a
// role or binding write is refused or let through by escalate, bind or system:masters.
#include "server/apierrors/errors.h"
#include "server/authorization/modes.h"
#include "server/authorization/rbac/escalation.h"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace kapi::authorization::rbac::escalation_test {
namespace {

namespace json = boost::json;
using Rules = std::vector<PolicyRule>;

std::vector<std::string> descriptions(const Rules& rules) {
  std::vector<std::string> out;
  for (const auto& rule : rules) out.push_back(compact_string(rule));
  std::sort(out.begin(), out.end());
  return out;
}

TEST(RbacCovers, WildcardsSubresourcesNamesAndUrls) {
  const Rules owner{{{"get", "list"}, {""}, {"pods", "*/scale"}, {}, {}},
                    {{"*"}, {"apps"}, {"deployments"}, {}, {}},
                    {{"update"}, {""}, {"configmaps"}, {"settings"}, {}},
                    {{"get"}, {}, {}, {}, {"/healthz", "/metrics/*"}}};
  EXPECT_TRUE(uncovered_rules(owner, {{{"get"}, {""}, {"pods"}, {}, {}}}).empty());
  EXPECT_TRUE(uncovered_rules(owner, {{{"delete", "patch"}, {"apps"}, {"deployments"}, {}, {}}}).empty());
  EXPECT_TRUE(uncovered_rules(owner, {{{"get"}, {""}, {"replicationcontrollers/scale"}, {}, {}}}).empty());
  EXPECT_TRUE(uncovered_rules(owner, {{{"update"}, {""}, {"configmaps"}, {"settings"}, {}}}).empty());
  EXPECT_TRUE(uncovered_rules(owner, {{{"get"}, {}, {}, {}, {"/metrics/slis"}}}).empty());

  EXPECT_EQ(descriptions(uncovered_rules(owner, {{{"get", "delete", "watch"}, {""}, {"pods", "secrets"}, {}, {}}})),
            (std::vector<std::string>{R"({APIGroups:[""], Resources:["pods"], Verbs:["delete" "watch"]})",
                                      R"({APIGroups:[""], Resources:["secrets"], Verbs:["get" "delete" "watch"]})"}));
  EXPECT_EQ(descriptions(uncovered_rules(owner, {{{"update"}, {""}, {"configmaps"}, {}, {}}})),
            std::vector<std::string>{R"({APIGroups:[""], Resources:["configmaps"], Verbs:["update"]})"})
      << "a rule limited to names does not cover all names";
  EXPECT_EQ(descriptions(uncovered_rules(owner, {{{"get"}, {}, {}, {}, {"/logs"}}})),
            std::vector<std::string>{R"({NonResourceURLs:["/logs"], Verbs:["get"]})"});
}

class EscalationCheckTest : public ::testing::Test {
 protected:
  EscalationCheckTest() {
    PolicySnapshot policy;
    policy.add_role(json::parse(R"({"kind":"Role","metadata":{"name":"pod-reader","namespace":"team"},
        "rules":[{"verbs":["get","list"],"apiGroups":[""],"resources":["pods"]}]})").as_object());
    policy.add_role(json::parse(R"({"kind":"ClusterRole","metadata":{"name":"secret-admin"},
        "rules":[{"verbs":["*"],"apiGroups":[""],"resources":["secrets"]}]})").as_object());
    policy.add_role(json::parse(R"({"kind":"ClusterRole","metadata":{"name":"binder"},
        "rules":[{"verbs":["bind"],"apiGroups":["rbac.authorization.k8s.io"],"resources":["clusterroles"],
                  "resourceNames":["secret-admin"]}]})").as_object());
    policy.add_binding(json::parse(R"({"kind":"RoleBinding","metadata":{"name":"jane","namespace":"team"},
        "roleRef":{"kind":"Role","name":"pod-reader"},"subjects":[{"kind":"User","name":"jane"}]})").as_object());
    policy.add_binding(json::parse(R"({"kind":"ClusterRoleBinding","metadata":{"name":"bob"},
        "roleRef":{"kind":"ClusterRole","name":"binder"},"subjects":[{"kind":"User","name":"bob"}]})").as_object());
    rbac_->set_policy(std::make_shared<const PolicySnapshot>(std::move(policy)));
    check_.configure(rbac_, rbac_);
  }

  static json::object role(std::string_view rules) {
    return json::parse(R"({"kind":"Role","metadata":{"name":"r","namespace":"team"},"rules":)" + std::string(rules) + "}")
        .as_object();
  }
  static json::object binding(std::string_view role_kind, std::string_view role_name) {
    return json::parse(R"({"kind":"RoleBinding","metadata":{"name":"b","namespace":"team"},"roleRef":{"kind":")" +
                       std::string(role_kind) + R"(","name":")" + std::string(role_name) +
                       R"("},"subjects":[{"kind":"User","name":"eve"}]})")
        .as_object();
  }
  // The 403's message, or "" when the write is allowed.
  template <typename Check>
  static std::string refusal(Check check) {
    try {
      check();
      return "";
    } catch (const apierrors::ApiError& error) {
      EXPECT_EQ(error.status().code, 403);
      return error.status().message;
    }
  }

  request::UserInfo jane_{"jane", "", {"devs", "system:authenticated"}, {}};
  request::UserInfo bob_{"bob", "", {"system:authenticated"}, {}};
  std::shared_ptr<RbacAuthorizer> rbac_ = std::make_shared<RbacAuthorizer>();
  EscalationCheck check_;
};

TEST_F(EscalationCheckTest, ARoleMayGrantOnlyWhatTheWriterHolds) {
  EXPECT_EQ(refusal([&] { check_.check_role(jane_, role(R"([{"verbs":["list"],"apiGroups":[""],"resources":["pods"]}])"), nullptr); }), "");
  EXPECT_EQ(refusal([&] {
              check_.check_role(jane_, role(R"([{"verbs":["get","delete"],"apiGroups":[""],"resources":["pods"]}])"),
                                nullptr);
            }),
            "roles.rbac.authorization.k8s.io \"r\" is forbidden: user \"jane\" (groups=[\"devs\" "
            "\"system:authenticated\"]) is attempting to grant RBAC permissions not currently held:\n"
            "{APIGroups:[\"\"], Resources:[\"pods\"], Verbs:[\"delete\"]}");
  const json::object broad = role(R"([{"verbs":["*"],"apiGroups":["*"],"resources":["*"]}])");
  EXPECT_EQ(refusal([&] { check_.check_role(jane_, broad, &broad); }), "") << "rules unchanged on update";
  request::UserInfo admin{"root", "", {"system:masters"}, {}};
  EXPECT_EQ(refusal([&] { check_.check_role(admin, broad, nullptr); }), "");
}

TEST_F(EscalationCheckTest, ABindingNeedsTheRolesRulesOrTheBindVerb) {
  EXPECT_EQ(refusal([&] { check_.check_binding(jane_, binding("Role", "pod-reader"), nullptr); }), "");
  EXPECT_NE(refusal([&] { check_.check_binding(jane_, binding("ClusterRole", "secret-admin"), nullptr); })
                .find("is attempting to grant RBAC permissions not currently held:\n{APIGroups:[\"\"], "
                      "Resources:[\"secrets\"], Verbs:[\"*\"]}"),
            std::string::npos);
  EXPECT_EQ(refusal([&] { check_.check_binding(bob_, binding("ClusterRole", "secret-admin"), nullptr); }), "")
      << "bob may bind secret-admin";
  EXPECT_EQ(refusal([&] { check_.check_binding(jane_, binding("ClusterRole", "ghost"), nullptr); }),
            "rolebindings.rbac.authorization.k8s.io \"b\" is forbidden: clusterrole.rbac.authorization.k8s.io "
            "\"ghost\" not found");
}

TEST_F(EscalationCheckTest, AlwaysAllowMayEscalateAndUnconfiguredChecksNothing) {
  EscalationCheck always;
  always.configure(build_authorizer({"AlwaysAllow"}), nullptr);
  const json::object broad = role(R"([{"verbs":["*"],"apiGroups":["*"],"resources":["*"]}])");
  EXPECT_EQ(refusal([&] { always.check_role(jane_, broad, nullptr); }), "");
  EXPECT_EQ(refusal([&] { EscalationCheck().check_role(jane_, broad, nullptr); }), "");
}

}  // namespace
}  // namespace kapi::authorization::rbac::escalation_test
