// The bootstrap RBAC policy and how kube's reconciliation keeps it: what existing roles and bindings gain, what
// they keep, the autoupdate=false opt-out, and a binding whose roleRef changed being recreated; and the
// ClusterRole aggregation controller's union of the rules of matching roles.
#include "server/authorization/rbac/bootstrap_policy.h"
#include "server/authorization/rbac/policy.h"
#include "server/authorization/rbac/reconciliation.h"
#include "server/controllers/cluster_role_aggregation.h"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

namespace kapi::authorization::rbac::reconciliation_test {
namespace {

namespace json = boost::json;

json::object parse(std::string_view text) { return json::parse(text).as_object(); }

const json::object& bootstrap_role(const std::vector<json::object>& roles, std::string_view name) {
  auto it = std::find_if(roles.begin(), roles.end(),
                         [&](const json::object& role) { return role.at("metadata").at("name").as_string() == name; });
  EXPECT_NE(it, roles.end()) << name;
  return *it;
}

TEST(RbacBootstrapPolicy, AggregatedRolesAndTheirSources) {
  const auto roles = bootstrap_cluster_roles();
  const json::object& admin = bootstrap_role(roles, "admin");
  EXPECT_EQ(json::serialize(admin.at("aggregationRule")),
            R"({"clusterRoleSelectors":[{"matchLabels":{"rbac.authorization.k8s.io/aggregate-to-admin":"true"}}]})");
  EXPECT_TRUE(admin.at("rules").as_array().empty());
  EXPECT_EQ(bootstrap_role(roles, "edit").at("metadata").at("labels").at("rbac.authorization.k8s.io/aggregate-to-admin"), "true");
  EXPECT_EQ(bootstrap_role(roles, "view").at("metadata").at("labels").at("rbac.authorization.k8s.io/aggregate-to-edit"), "true");
  const json::object& to_view = bootstrap_role(roles, "system:aggregate-to-view");
  EXPECT_EQ(to_view.at("metadata").at("labels").at("rbac.authorization.k8s.io/aggregate-to-view"), "true");
  EXPECT_EQ(to_view.at("metadata").at("annotations").at("rbac.authorization.kubernetes.io/autoupdate"), "true");
  // Lists are sorted as kube's rule builder sorts them.
  EXPECT_EQ(json::serialize(bootstrap_role(roles, "system:aggregate-to-admin").at("rules").as_array().back()),
            R"({"verbs":["create","delete","deletecollection","get","list","patch","update","watch"],)"
            R"("apiGroups":["rbac.authorization.k8s.io"],"resources":["rolebindings","roles"]})");
  EXPECT_EQ(json::serialize(bootstrap_role(roles, "system:certificates.k8s.io:kubelet-serving-approver").at("rules")),
            R"([{"verbs":["approve"],"apiGroups":["certificates.k8s.io"],"resources":["signers"],)"
            R"("resourceNames":["kubernetes.io/kubelet-serving"]}])");

  std::vector<std::string> bound;
  for (const auto& binding : bootstrap_cluster_role_bindings())
    bound.emplace_back(binding.at("roleRef").at("name").as_string());
  for (const auto& binding : bound) EXPECT_NO_FATAL_FAILURE(bootstrap_role(roles, binding));
  EXPECT_EQ(bound.size(), 12u + controller_cluster_role_bindings().size());
}

TEST(RbacBootstrapPolicy, ControllerRolesAreBoundToTheirServiceAccounts) {
  const auto controllers = controller_cluster_roles();
  const auto bindings = controller_cluster_role_bindings();
  // kube 1.32's default controllers; none behind a gate that is off by default.
  EXPECT_EQ(controllers.size(), 33u);
  ASSERT_EQ(bindings.size(), controllers.size());
  for (std::size_t i = 0; i < controllers.size(); ++i) {
    const std::string name(std::string_view(controllers[i].at("metadata").at("name").as_string()));
    EXPECT_TRUE(name.starts_with("system:controller:")) << name;
    EXPECT_EQ(std::string_view(bindings[i].at("metadata").at("name").as_string()), name);
    EXPECT_EQ(bindings[i].at("roleRef"), json::parse(R"({"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole",)"
                                                     R"("name":")" + name + R"("})"));
    const std::string account(std::string_view(name).substr(std::string_view("system:controller:").size()));
    EXPECT_EQ(bindings[i].at("subjects"),
              json::parse(R"([{"kind":"ServiceAccount","name":")" + account + R"(","namespace":"kube-system"}])"));
  }
  const auto roles = bootstrap_cluster_roles();
  EXPECT_EQ(json::serialize(bootstrap_role(roles, "system:controller:deployment-controller").at("rules").as_array()[1]),
            R"({"verbs":["update"],"apiGroups":["apps","extensions"],"resources":["deployments/status"]})");
  EXPECT_EQ(json::serialize(bootstrap_role(roles, "system:controller:clusterrole-aggregation-controller").at("rules")),
            R"([{"verbs":["escalate","get","list","patch","update","watch"],)"
            R"("apiGroups":["rbac.authorization.k8s.io"],"resources":["clusterroles"]}])");
  EXPECT_EQ(json::serialize(bootstrap_role(roles, "system:controller:legacy-service-account-token-cleaner").at("rules")),
            R"([{"verbs":["get"],"apiGroups":[""],"resources":["configmaps"],)"
            R"("resourceNames":["kube-apiserver-legacy-service-account-token-tracking"]},)"
            R"({"verbs":["delete","patch"],"apiGroups":[""],"resources":["secrets"]}])");
  const json::object& gc = bootstrap_role(roles, "system:controller:generic-garbage-collector");
  EXPECT_EQ(gc.at("metadata").at("labels").at("kubernetes.io/bootstrapping"), "rbac-defaults");
  EXPECT_EQ(gc.at("metadata").at("annotations").at("rbac.authorization.kubernetes.io/autoupdate"), "true");
  for (const char* gated : {"system:controller:resource-claim-controller", "system:controller:service-cidrs-controller",
                            "system:controller:storage-version-garbage-collector"})
    EXPECT_EQ(std::count_if(roles.begin(), roles.end(),
                            [&](const json::object& role) { return role.at("metadata").at("name") == gated; }),
              0)
        << gated;
}

TEST(RbacBootstrapPolicy, NamespacedRolesOfKubeSystemAndKubePublic) {
  const auto roles = bootstrap_namespace_roles();
  const auto bindings = bootstrap_namespace_role_bindings();
  auto find = [](const std::vector<json::object>& list, std::string_view namespace_, std::string_view name) {
    auto it = std::find_if(list.begin(), list.end(), [&](const json::object& object) {
      return object.at("metadata").at("namespace").as_string() == namespace_ &&
             object.at("metadata").at("name").as_string() == name;
    });
    return it == list.end() ? json::object() : *it;
  };
  EXPECT_EQ(roles.size(), 7u);
  EXPECT_EQ(bindings.size(), 7u);
  const json::object reader = find(roles, "kube-system", "extension-apiserver-authentication-reader");
  EXPECT_EQ(reader.at("kind"), "Role");
  EXPECT_EQ(json::serialize(reader.at("rules")),
            R"([{"verbs":["get","list","watch"],"apiGroups":[""],"resources":["configmaps"],)"
            R"("resourceNames":["extension-apiserver-authentication"]}])");
  EXPECT_EQ(find(roles, "kube-system", "system::leader-locking-kube-controller-manager").at("rules").as_array().size(), 3u);
  EXPECT_EQ(find(roles, "kube-system", "system::leader-locking-kube-scheduler").at("rules").as_array().size(), 2u);
  EXPECT_FALSE(find(roles, "kube-system", "system:controller:token-cleaner").empty());
  EXPECT_FALSE(find(roles, "kube-system", "system:controller:cloud-provider").empty());
  EXPECT_EQ(json::serialize(find(roles, "kube-public", "system:controller:bootstrap-signer").at("rules").as_array()[1]),
            R"({"verbs":["update"],"apiGroups":[""],"resources":["configmaps"],"resourceNames":["cluster-info"]})");
  EXPECT_EQ(json::serialize(find(roles, "kube-system", "system:controller:bootstrap-signer").at("rules")),
            R"([{"verbs":["get","list","watch"],"apiGroups":[""],"resources":["secrets"]}])");

  // The reader's binding is named apart from its role; every binding's Role is one of these, in its namespace.
  const json::object reader_binding = find(bindings, "kube-system", "system::extension-apiserver-authentication-reader");
  EXPECT_EQ(reader_binding.at("kind"), "RoleBinding");
  EXPECT_EQ(reader_binding.at("roleRef"), json::parse(R"({"apiGroup":"rbac.authorization.k8s.io","kind":"Role",)"
                                                      R"("name":"extension-apiserver-authentication-reader"})"));
  EXPECT_EQ(reader_binding.at("subjects").as_array().size(), 2u);
  for (const auto& binding : bindings) {
    const auto& namespace_ = binding.at("metadata").at("namespace").as_string();
    EXPECT_FALSE(find(roles, namespace_, binding.at("roleRef").at("name").as_string()).empty()) << binding;
  }
  const json::object leader = find(bindings, "kube-system", "system::leader-locking-kube-controller-manager");
  EXPECT_EQ(json::serialize(leader.at("subjects")),
            R"([{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"system:kube-controller-manager"},)"
            R"({"kind":"ServiceAccount","name":"kube-controller-manager","namespace":"kube-system"},)"
            R"({"kind":"ServiceAccount","name":"leader-election-controller","namespace":"kube-system"}])");
  EXPECT_EQ(json::serialize(find(bindings, "kube-public", "system:controller:bootstrap-signer").at("subjects")),
            R"([{"kind":"ServiceAccount","name":"bootstrap-signer","namespace":"kube-system"}])");
}

TEST(RbacReconciliation, RoleGainsWhatItLacksAndKeepsWhatWasAdded) {
  const json::object expected = parse(R"({"kind":"ClusterRole","metadata":{"name":"r",
      "labels":{"kubernetes.io/bootstrapping":"rbac-defaults"},
      "annotations":{"rbac.authorization.kubernetes.io/autoupdate":"true"}},
      "rules":[{"verbs":["get","list"],"apiGroups":[""],"resources":["pods"]}]})");
  EXPECT_FALSE(reconcile_role(expected, expected));

  const json::object edited = parse(R"({"kind":"ClusterRole","metadata":{"name":"r","resourceVersion":"7",
      "labels":{"kubernetes.io/bootstrapping":"mine","team":"a"}},
      "rules":[{"verbs":["get"],"apiGroups":[""],"resources":["pods"]},
               {"verbs":["delete"],"apiGroups":[""],"resources":["secrets"]}]})");
  auto reconciled = reconcile_role(edited, expected);
  ASSERT_TRUE(reconciled);
  EXPECT_EQ(json::serialize((*reconciled).at("metadata")),
            R"({"name":"r","resourceVersion":"7","labels":{"kubernetes.io/bootstrapping":"mine","team":"a"},)"
            R"("annotations":{"rbac.authorization.kubernetes.io/autoupdate":"true"}})")
      << "existing labels win; missing annotations are added";
  EXPECT_EQ(json::serialize((*reconciled).at("rules")),
            R"([{"verbs":["get"],"apiGroups":[""],"resources":["pods"]},)"
            R"({"verbs":["delete"],"apiGroups":[""],"resources":["secrets"]},)"
            R"({"verbs":["list"],"apiGroups":[""],"resources":["pods"]}])");

  json::object kept = edited;
  kept["metadata"].as_object()["annotations"] = json::object{{"rbac.authorization.kubernetes.io/autoupdate", "false"}};
  EXPECT_FALSE(reconcile_role(kept, expected)) << "autoupdate=false opts out";
}

TEST(RbacReconciliation, AggregationSelectorsAreAddedNotReplaced) {
  const json::object expected = parse(R"({"metadata":{"name":"view"},"aggregationRule":{"clusterRoleSelectors":[
      {"matchLabels":{"rbac.authorization.k8s.io/aggregate-to-view":"true"}}]},"rules":[]})");
  const json::object widened = parse(R"({"metadata":{"name":"view"},"aggregationRule":{"clusterRoleSelectors":[
      {"matchLabels":{"rbac.authorization.k8s.io/aggregate-to-view":"true"}},{"matchLabels":{"extra":"yes"}}]},
      "rules":[{"verbs":["get"],"apiGroups":[""],"resources":["pods"]}]})");
  EXPECT_FALSE(reconcile_role(widened, expected)) << "an aggregated role's gathered rules and added selectors stay";

  const json::object plain = parse(R"({"metadata":{"name":"view"},"rules":[]})");
  auto reconciled = reconcile_role(plain, expected);
  ASSERT_TRUE(reconciled);
  EXPECT_EQ(reconciled->at("aggregationRule"), expected.at("aggregationRule"));

  const json::object was_aggregated = parse(R"({"metadata":{"name":"x"},"aggregationRule":{"clusterRoleSelectors":[]},"rules":[]})");
  reconciled = reconcile_role(was_aggregated, parse(R"({"metadata":{"name":"x"},"rules":[]})"));
  ASSERT_TRUE(reconciled);
  EXPECT_FALSE(reconciled->contains("aggregationRule"));
}

TEST(RbacReconciliation, BindingsGainSubjectsAndAreRecreatedForANewRoleRef) {
  const json::object expected = parse(R"({"metadata":{"name":"b"},
      "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"r"},
      "subjects":[{"kind":"Group","apiGroup":"rbac.authorization.k8s.io","name":"system:authenticated"}]})");
  EXPECT_FALSE(reconcile_binding(expected, expected));

  const json::object other_subjects = parse(R"({"metadata":{"name":"b"},
      "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"r"},
      "subjects":[{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"jane"}]})");
  auto reconciled = reconcile_binding(other_subjects, expected);
  ASSERT_TRUE(reconciled);
  EXPECT_FALSE(reconciled->recreate);
  EXPECT_EQ(reconciled->binding.at("subjects").as_array().size(), 2u);
  EXPECT_EQ(reconciled->binding.at("subjects").as_array()[0].at("name"), "jane");

  json::object other_role = expected;
  other_role["roleRef"].as_object()["name"] = "cluster-admin";
  reconciled = reconcile_binding(other_role, expected);
  ASSERT_TRUE(reconciled);
  EXPECT_TRUE(reconciled->recreate);
  EXPECT_EQ(reconciled->binding, expected);
}

TEST(ClusterRoleAggregation, UnionOfMatchingRolesInNameOrderWithoutRepeats) {
  std::map<std::string, json::object> roles;
  auto add = [&roles](std::string_view text) {
    json::object role = parse(text);
    roles[std::string(role.at("metadata").at("name").as_string())] = role;
  };
  add(R"({"metadata":{"name":"edit","labels":{"to-admin":"true"}},
      "aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"to-edit":"true"}}]},"rules":[]})");
  add(R"({"metadata":{"name":"b-source","labels":{"to-edit":"true"}},
      "rules":[{"verbs":["get"],"apiGroups":[""],"resources":["pods"]},{"verbs":["list"],"apiGroups":[""],"resources":["pods"]}]})");
  add(R"({"metadata":{"name":"a-source","labels":{"to-edit":"true"}},
      "rules":[{"verbs":["list"],"apiGroups":[""],"resources":["pods"]}]})");
  add(R"({"metadata":{"name":"unrelated","labels":{"to-edit":"false"}},
      "rules":[{"verbs":["*"],"apiGroups":["*"],"resources":["*"]}]})");
  add(R"({"metadata":{"name":"admin"},"aggregationRule":{"clusterRoleSelectors":[
      {"matchLabels":{"to-admin":"true"}},{"matchExpressions":[{"key":"to-edit","operator":"In","values":["true"]}]}]}})");

  auto edit = controllers::aggregated_rules(roles.at("edit"), roles);
  ASSERT_TRUE(edit);
  EXPECT_EQ(json::serialize(*edit), R"([{"verbs":["list"],"apiGroups":[""],"resources":["pods"]},)"
                                    R"({"verbs":["get"],"apiGroups":[""],"resources":["pods"]}])");
  roles["edit"]["rules"] = *edit;
  auto admin = controllers::aggregated_rules(roles.at("admin"), roles);
  ASSERT_TRUE(admin);
  EXPECT_EQ(*admin, *edit) << "edit's rules and its sources' are the same rules";
  EXPECT_FALSE(controllers::aggregated_rules(roles.at("unrelated"), roles)) << "not an aggregated role";

  add(R"({"metadata":{"name":"self","labels":{"me":"1"}},"aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"me":"1"}}]},
      "rules":[{"verbs":["get"],"apiGroups":[""],"resources":["secrets"]}]})");
  EXPECT_EQ(controllers::aggregated_rules(roles.at("self"), roles), json::array{}) << "no self-aggregation";
}

}  // namespace
}  // namespace kapi::authorization::rbac::reconciliation_test
