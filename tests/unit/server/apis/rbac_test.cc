// Roles, cluster roles and their bindings as kube's RBAC registries keep them: ValidateRole, ValidateClusterRole,
// ValidateRoleBinding, ValidateClusterRoleBinding word for word, the v1 defaults, and the printers' cells.
#include "server/apis/resource_storage.h"
#include "server/validation/object_meta.h"
#include "tests/unit/server/apis/strategy_testing.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace kapi::apis::rbac_test {
namespace {

namespace json = boost::json;

using strategy_testing::parse;

// Escalation prevention is not these tests' subject (escalation_test.cc): unconfigured, it checks nothing.
std::shared_ptr<const authorization::rbac::EscalationCheck> unchecked() {
  return std::make_shared<authorization::rbac::EscalationCheck>();
}

using strategy_testing::messages;

std::vector<std::string> column_names(const registry::Strategy& strategy) {
  std::vector<std::string> names;
  for (const auto& column : strategy.table_columns()) names.push_back(column.name + (column.priority ? "*" : ""));
  return names;
}

TEST(RbacDefinitionsTest, ServedAndStoredAsKube) {
  struct Expected {
    ResourceStorage storage;
    std::string kind;
    bool namespaced;
  };
  std::vector<Expected> all;
  all.push_back({roles(unchecked()), "Role", true});
  all.push_back({rolebindings(unchecked()), "RoleBinding", true});
  all.push_back({clusterroles(unchecked()), "ClusterRole", false});
  all.push_back({clusterrolebindings(unchecked()), "ClusterRoleBinding", false});
  for (const auto& [storage, kind, namespaced] : all) {
    EXPECT_EQ(storage.definition.group_version(), "rbac.authorization.k8s.io/v1");
    EXPECT_EQ(storage.definition.kind, kind);
    EXPECT_EQ(storage.definition.namespaced, namespaced) << kind;
    EXPECT_TRUE(storage.definition.short_names.empty()) << kind;
    EXPECT_TRUE(storage.definition.categories.empty()) << kind;
    EXPECT_TRUE(storage.definition.subresources.empty()) << kind;
    // Keys /registry/<resource>/...: the storage segment is the resource itself.
    EXPECT_TRUE(storage.definition.storage_resource.empty() || storage.definition.storage_resource == storage.definition.resource);
    EXPECT_TRUE(storage.strategy->name_is_path_segment()) << kind;
    EXPECT_TRUE(storage.strategy->allow_create_on_update()) << kind;
  }
}

TEST(RbacNamesTest, AnyPathSegmentIsAName) {
  json::object colon = parse(R"({"metadata":{"name":"system:controller:job-controller"}})");
  EXPECT_EQ(messages(validation::validate_object_meta(colon, false, validation::NameRule::PathSegment)), "");
  json::object slash = parse(R"({"metadata":{"name":"a/b%c"}})");
  EXPECT_EQ(messages(validation::validate_object_meta(slash, false, validation::NameRule::PathSegment)),
            "metadata.name: Invalid value: \"a/b%c\": may not contain '/'\n"
            "metadata.name: Invalid value: \"a/b%c\": may not contain '%'\n");
  json::object dots = parse(R"({"metadata":{"name":".."}})");
  EXPECT_EQ(messages(validation::validate_object_meta(dots, false, validation::NameRule::PathSegment)),
            "metadata.name: Invalid value: \"..\": may not be '..'\n");
}

TEST(RbacRoleTest, RulesNeedVerbsAndResourcesOrUrls) {
  ResourceStorage storage = roles(unchecked());
  json::object role = parse(R"({"metadata":{"name":"r","namespace":"default"},"rules":[
      {"verbs":["get"],"apiGroups":[""],"resources":["pods"]},
      {"apiGroups":[""]},
      {"verbs":["get"],"nonResourceURLs":["/healthz","/api"]},
      {"verbs":["get"],"nonResourceURLs":["/metrics"],"resources":["pods"]}]})");
  EXPECT_EQ(messages(storage.strategy->validate(role)),
            "rules[1].verbs: Required value: verbs must contain at least one value\n"
            "rules[1].resources: Required value: resource rules must supply at least one resource\n"
            "rules[2].nonResourceURLs: Invalid value: []string{\"/healthz\", \"/api\"}: namespaced rules cannot apply "
            "to non-resource URLs\n"
            "rules[3].nonResourceURLs: Invalid value: []string{\"/metrics\"}: namespaced rules cannot apply to "
            "non-resource URLs\n"
            "rules[3].nonResourceURLs: Invalid value: []string{\"/metrics\"}: rules cannot apply to both regular "
            "resources and non-resource URLs\n");
  EXPECT_EQ(messages(storage.strategy->validate(parse(R"({"metadata":{"name":"empty"}})"))), "");
  EXPECT_EQ(column_names(*storage.strategy), (std::vector<std::string>{"Name", "Created At"}));
  json::object created = parse(R"({"metadata":{"name":"r","creationTimestamp":"2026-11-30T07:00:00Z"}})");
  EXPECT_EQ(storage.strategy->table_cells(created), (json::array{"r", "2026-11-30T07:00:00Z"}));
}

TEST(RbacClusterRoleTest, NonResourceUrlsAllowedAndAggregationRuleChecked) {
  ResourceStorage storage = clusterroles(unchecked());
  json::object urls = parse(R"({"metadata":{"name":"system:health"},"rules":[{"verbs":["get"],"nonResourceURLs":["/healthz"]},
      {"verbs":["*"],"apiGroups":["*"]}]})");
  EXPECT_EQ(messages(storage.strategy->validate(urls)),
            "rules[1].resources: Required value: resource rules must supply at least one resource\n");
  json::object empty_rule = parse(R"({"metadata":{"name":"agg"},"aggregationRule":{}})");
  EXPECT_EQ(messages(storage.strategy->validate(empty_rule)),
            "aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if "
            "aggregationRule is non-nil\n");
  json::object selectors = parse(R"({"metadata":{"name":"agg"},"aggregationRule":{"clusterRoleSelectors":[
      {"matchLabels":{"rbac.example.com/aggregate-to-monitoring":"true"}},
      {"matchExpressions":[{"key":"a","operator":"In"},{"key":"b","operator":"Exists","values":["x"]},
                           {"key":"c","operator":"Maybe"}]}]}})");
  EXPECT_EQ(messages(storage.strategy->validate(selectors)),
            "aggregationRule.clusterRoleSelectors[1].matchExpressions[0].values: Required value: must be specified "
            "when `operator` is 'In' or 'NotIn'\n"
            "aggregationRule.clusterRoleSelectors[1].matchExpressions[1].values: Forbidden: may not be specified when "
            "`operator` is 'Exists' or 'DoesNotExist'\n"
            "aggregationRule.clusterRoleSelectors[1].matchExpressions[2].operator: Invalid value: \"Maybe\": not a "
            "valid selector operator\n");
  EXPECT_EQ(column_names(*storage.strategy), (std::vector<std::string>{"Name", "Created At"}));
}

TEST(RbacRoleBindingTest, DefaultsThenValidatesRoleRefAndSubjects) {
  ResourceStorage storage = rolebindings(unchecked());
  json::object binding = parse(R"({"metadata":{"name":"b","namespace":"default"},
      "roleRef":{"kind":"Role","name":"pod-reader"},
      "subjects":[{"kind":"User","name":"jane"},{"kind":"Group","name":"devs"},
                  {"kind":"ServiceAccount","name":"default"}]})");
  storage.strategy->prepare_for_create(binding);
  EXPECT_EQ(binding.at("roleRef").at("apiGroup"), "rbac.authorization.k8s.io");
  EXPECT_EQ(binding.at("subjects").at(0).at("apiGroup"), "rbac.authorization.k8s.io");
  EXPECT_EQ(binding.at("subjects").at(1).at("apiGroup"), "rbac.authorization.k8s.io");
  EXPECT_FALSE(binding.at("subjects").at(2).as_object().contains("apiGroup"));
  // A RoleBinding's service accounts default to its own namespace: none needed.
  EXPECT_EQ(messages(storage.strategy->validate(binding)), "");

  json::object bad = parse(R"({"metadata":{"name":"b","namespace":"default"},
      "roleRef":{"apiGroup":"example.com","kind":"Pod","name":""},
      "subjects":[{"kind":"User","apiGroup":"","name":"jane"},{"kind":"ServiceAccount","apiGroup":"v1","name":"Bad_SA"},
                  {"kind":"Robot","name":"r2"},{"kind":"Group","apiGroup":"rbac.authorization.k8s.io"}]})");
  EXPECT_EQ(messages(storage.strategy->validate(bad)),
            "roleRef.apiGroup: Unsupported value: \"example.com\": supported values: \"rbac.authorization.k8s.io\"\n"
            "roleRef.kind: Unsupported value: \"Pod\": supported values: \"Role\", \"ClusterRole\"\n"
            "roleRef.name: Required value\n"
            "subjects[0].apiGroup: Unsupported value: \"\": supported values: \"rbac.authorization.k8s.io\"\n"
            "subjects[1].name: Invalid value: \"Bad_SA\": a lowercase RFC 1123 subdomain must consist of lower case "
            "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
            "'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\n"
            "subjects[1].apiGroup: Unsupported value: \"v1\": supported values: \"\"\n"
            "subjects[2].kind: Unsupported value: \"Robot\": supported values: \"ServiceAccount\", \"User\", "
            "\"Group\"\n"
            "subjects[3].name: Required value\n"
            "subjects[3].name: Invalid value: \"\": group name cannot be empty\n");
}

TEST(RbacRoleBindingTest, RoleRefCannotChange) {
  ResourceStorage storage = rolebindings(unchecked());
  json::object old = parse(R"({"metadata":{"name":"b","namespace":"default"},
      "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"pod-reader"}})");
  json::object same = old;
  same["subjects"] = json::array{json::object{{"kind", "User"}, {"name", "jane"}}};
  storage.strategy->prepare_for_update(same, old);
  EXPECT_EQ(messages(storage.strategy->validate_update(same, old)), "");
  json::object changed = parse(R"({"metadata":{"name":"b","namespace":"default"},
      "roleRef":{"kind":"ClusterRole","name":"edit"}})");
  storage.strategy->prepare_for_update(changed, old);
  EXPECT_EQ(messages(storage.strategy->validate_update(changed, old)),
            "roleRef: Invalid value: rbac.RoleRef{APIGroup:\"rbac.authorization.k8s.io\", Kind:\"ClusterRole\", "
            "Name:\"edit\"}: cannot change roleRef\n");
}

TEST(RbacRoleBindingTest, CellsNameTheRoleAndEverySubject) {
  ResourceStorage storage = rolebindings(unchecked());
  EXPECT_EQ(column_names(*storage.strategy),
            (std::vector<std::string>{"Name", "Role", "Age", "Users*", "Groups*", "ServiceAccounts*"}));
  EXPECT_EQ(storage.strategy->table_columns()[3].description, "Users in the roleBinding");
  json::object binding = parse(R"({"metadata":{"name":"read-pods","namespace":"default"},
      "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"pod-reader"},
      "subjects":[{"kind":"User","name":"jane"},{"kind":"User","name":"joe"},{"kind":"Group","name":"devs"},
                  {"kind":"ServiceAccount","name":"builder","namespace":"ci"}]})");
  json::array cells = storage.strategy->table_cells(binding);
  ASSERT_EQ(cells.size(), 6u);
  EXPECT_EQ(cells[0], "read-pods");
  EXPECT_EQ(cells[1], "Role/pod-reader");
  EXPECT_EQ(cells[3], "jane, joe");
  EXPECT_EQ(cells[4], "devs");
  EXPECT_EQ(cells[5], "ci/builder");
}

TEST(RbacClusterRoleBindingTest, ServiceAccountsNeedANamespaceAndOnlyClusterRolesBind) {
  ResourceStorage storage = clusterrolebindings(unchecked());
  json::object binding = parse(R"({"metadata":{"name":"b"},
      "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"view"},
      "subjects":[{"kind":"ServiceAccount","name":"default"}]})");
  EXPECT_EQ(messages(storage.strategy->validate(binding)),
            "roleRef.kind: Unsupported value: \"Role\": supported values: \"ClusterRole\"\n"
            "subjects[0].namespace: Required value\n");
  EXPECT_EQ(storage.strategy->table_columns()[4].description, "Groups in the clusterRoleBinding");
  json::object devs = parse(R"({"metadata":{"name":"devs-view"},
      "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"},
      "subjects":[{"kind":"Group","name":"devs"}]})");
  json::array cells = storage.strategy->table_cells(devs);
  EXPECT_EQ(cells[1], "ClusterRole/view");
  EXPECT_EQ(cells[3], "");
  EXPECT_EQ(cells[4], "devs");
}

}  // namespace
}  // namespace kapi::apis::rbac_test
