// rbac.authorization.k8s.io/v1 served as kube-apiserver serves it, driven by the real kubectl 1.32: its typed
// generators (`create role`, `create rolebinding`, ...), `get -o wide` with the printers' columns, apply of an
// aggregated ClusterRole, describe, and kube's validation messages.
#include "tests/integration/kapi_suite.h"
#include "tests/integration/kubectl_runner.h"
#include "tests/support/etcd_process.h"

#include <cstdio>
#include <filesystem>
#include <regex>

namespace kapi::integration::rbac_resources_test {
namespace {

using namespace std::chrono_literals;

class RbacResourcesTest : public KapiSuite<RbacResourcesTest> {
 protected:
  CommandResult kubectl(const std::string& arguments) { return run_kubectl(kapi(), arguments); }

  void SetUp() override {
    KapiSuite::SetUp();
    ASSERT_TRUE(std::filesystem::exists("/usr/bin/kubectl")) << "kubectl is not installed (scripts/install-deps)";
  }

  std::string manifest(const std::string& name, const std::string& text) { return write_manifest(kapi(), name, text); }
};

// The lines of `output` with runs of spaces collapsed, so column widths do not matter.
std::string squeezed(const std::string& output) { return std::regex_replace(output, std::regex(" {2,}"), "  "); }

TEST_F(RbacResourcesTest, CreateRoleAndRoleBindingThenGetWide) {
  // A namespace of its own, so the listing holds only what this test creates.
  ASSERT_EQ(kubectl("create namespace rbac-wide").exit_code, 0);
  CommandResult role = kubectl("create role pod-reader -n rbac-wide --verb=get --verb=list --resource=pods");
  ASSERT_EQ(role.exit_code, 0) << role.output;
  EXPECT_EQ(role.output, "role.rbac.authorization.k8s.io/pod-reader created\n");
  CommandResult binding = kubectl("create rolebinding read-pods -n rbac-wide --role=pod-reader --user=jane "
                                  "--group=devs --serviceaccount=rbac-wide:builder");
  ASSERT_EQ(binding.exit_code, 0) << binding.output;
  EXPECT_EQ(binding.output, "rolebinding.rbac.authorization.k8s.io/read-pods created\n");

  CommandResult rules = kubectl("get role pod-reader -n rbac-wide -o jsonpath={.rules}");
  EXPECT_EQ(rules.output, R"([{"apiGroups":[""],"resources":["pods"],"verbs":["get","list"]}])");
  CommandResult subjects = kubectl("get rolebinding read-pods -n rbac-wide -o jsonpath={.subjects}");
  EXPECT_EQ(subjects.output,
            R"([{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"jane"},)"
            R"({"apiGroup":"rbac.authorization.k8s.io","kind":"Group","name":"devs"},)"
            R"({"kind":"ServiceAccount","name":"builder","namespace":"rbac-wide"}])");

  CommandResult wide = kubectl("get roles,rolebindings -n rbac-wide -o wide");
  ASSERT_EQ(wide.exit_code, 0) << wide.output;
  const std::string text = squeezed(wide.output);
  EXPECT_TRUE(std::regex_search(text, std::regex("^NAME  CREATED AT\nrole\\.rbac\\.authorization\\.k8s\\.io/pod-reader  "
                                                 "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\n\n")))
      << wide.output;
  EXPECT_TRUE(std::regex_search(text, std::regex("NAME  ROLE  AGE  USERS  GROUPS  SERVICEACCOUNTS\n"
                                                 "rolebinding\\.rbac\\.authorization\\.k8s\\.io/read-pods  "
                                                 "Role/pod-reader  \\d+s  jane  devs  rbac-wide/builder\n$")))
      << wide.output;

  CommandResult describe = kubectl("describe role pod-reader -n rbac-wide");
  ASSERT_EQ(describe.exit_code, 0) << describe.output;
  EXPECT_EQ(squeezed(describe.output),
            "Name:  pod-reader\n"
            "Labels:  <none>\n"
            "Annotations:  <none>\n"
            "PolicyRule:\n"
            "  Resources  Non-Resource URLs  Resource Names  Verbs\n"
            "  ---------  -----------------  --------------  -----\n"
            "  pods  []  []  [get list]\n");
}

TEST_F(RbacResourcesTest, ClusterRoleAndClusterRoleBinding) {
  CommandResult role = kubectl("create clusterrole node-reader --verb=get,list,watch --resource=nodes");
  ASSERT_EQ(role.exit_code, 0) << role.output;
  EXPECT_EQ(role.output, "clusterrole.rbac.authorization.k8s.io/node-reader created\n");
  CommandResult health = kubectl("create clusterrole health-reader --verb=get --non-resource-url=/healthz");
  ASSERT_EQ(health.exit_code, 0) << health.output;
  EXPECT_EQ(kubectl("get clusterrole health-reader -o jsonpath={.rules}").output,
            R"([{"nonResourceURLs":["/healthz"],"verbs":["get"]}])");

  CommandResult binding = kubectl("create clusterrolebinding devs-view --clusterrole=view --group=devs");
  ASSERT_EQ(binding.exit_code, 0) << binding.output;
  EXPECT_EQ(binding.output, "clusterrolebinding.rbac.authorization.k8s.io/devs-view created\n");
  CommandResult wide = kubectl("get clusterrolebinding devs-view -o wide");
  EXPECT_TRUE(std::regex_match(squeezed(wide.output),
                               std::regex("NAME  ROLE  AGE  USERS  GROUPS  SERVICEACCOUNTS\n"
                                          "devs-view  ClusterRole/view  \\d+s  devs *\n")))
      << wide.output;
  CommandResult roles = kubectl("get clusterroles node-reader health-reader");
  EXPECT_TRUE(std::regex_search(squeezed(roles.output), std::regex("^NAME  CREATED AT\nnode-reader  \\d{4}-")))
      << roles.output;

  // Names are path segments, not DNS names: the bootstrap roles' colons are fine.
  CommandResult colon = kubectl("create clusterrole system:kapi:test --verb=get --resource=pods");
  EXPECT_EQ(colon.exit_code, 0) << colon.output;
}

TEST_F(RbacResourcesTest, ApplyAggregatedClusterRole) {
  const std::string path = manifest("aggregate.yaml", R"(apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: monitoring
aggregationRule:
  clusterRoleSelectors:
  - matchLabels:
      rbac.example.com/aggregate-to-monitoring: "true"
)");
  // No `rules: []`: kube stores an empty list as none and answers `"rules": null`, so such a manifest is
  // "configured" on every apply against kube-apiserver; the controller fills the rules.
  CommandResult applied = kubectl("apply -f " + path);
  ASSERT_EQ(applied.exit_code, 0) << applied.output;
  EXPECT_EQ(applied.output, "clusterrole.rbac.authorization.k8s.io/monitoring created\n");
  EXPECT_EQ(kubectl("get clusterrole monitoring -o jsonpath={.aggregationRule}").output,
            R"({"clusterRoleSelectors":[{"matchLabels":{"rbac.example.com/aggregate-to-monitoring":"true"}}]})");
  EXPECT_EQ(kubectl("apply -f " + path).output, "clusterrole.rbac.authorization.k8s.io/monitoring unchanged\n");

  const std::string empty = manifest("empty-aggregate.yaml", R"(apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: nothing
aggregationRule: {}
)");
  CommandResult refused = kubectl("apply -f " + empty);
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.output.find("The ClusterRole \"nothing\" is invalid: aggregationRule.clusterRoleSelectors: "
                                "Required value: at least one clusterRoleSelector required if aggregationRule is "
                                "non-nil"),
            std::string::npos)
      << refused.output;
}

TEST_F(RbacResourcesTest, InvalidBindingsRefusedWithKubesMessages) {
  const std::string no_namespace = manifest("bad-crb.yaml", R"(apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: bad
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: view
subjects:
- kind: ServiceAccount
  name: default
)");
  CommandResult refused = kubectl("create -f " + no_namespace);
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_EQ(refused.output,
            "The ClusterRoleBinding \"bad\" is invalid: \n"
            "* roleRef.kind: Unsupported value: \"Role\": supported values: \"ClusterRole\"\n"
            "* subjects[0].namespace: Required value\n")
      << refused.output;

  ASSERT_EQ(kubectl("create rolebinding frozen --clusterrole=view --user=jane").exit_code, 0);
  const std::string changed = manifest("changed-rb.yaml", R"(apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: frozen
  namespace: default
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: edit
subjects:
- kind: User
  name: jane
)");
  CommandResult immutable = kubectl("replace -f " + changed);
  EXPECT_NE(immutable.exit_code, 0);
  EXPECT_NE(immutable.output.find("The RoleBinding \"frozen\" is invalid: roleRef: Invalid value: "
                                  "rbac.RoleRef{APIGroup:\"rbac.authorization.k8s.io\", Kind:\"ClusterRole\", "
                                  "Name:\"edit\"}: cannot change roleRef"),
            std::string::npos)
      << immutable.output;

  const std::string url_role = manifest("url-role.yaml", R"(apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: urls
rules:
- verbs: ["get"]
  nonResourceURLs: ["/healthz"]
)");
  CommandResult url = kubectl("create -f " + url_role);
  EXPECT_NE(url.output.find("The Role \"urls\" is invalid: rules[0].nonResourceURLs: Invalid value: "
                            "[]string{\"/healthz\"}: namespaced rules cannot apply to non-resource URLs"),
            std::string::npos)
      << url.output;
}

TEST_F(RbacResourcesTest, DiscoveryListsTheFourResources) {
  CommandResult resources = kubectl("api-resources --api-group=rbac.authorization.k8s.io");
  ASSERT_EQ(resources.exit_code, 0) << resources.output;
  EXPECT_EQ(squeezed(resources.output),
            "NAME  SHORTNAMES  APIVERSION  NAMESPACED  KIND\n"
            "clusterrolebindings  rbac.authorization.k8s.io/v1  false  ClusterRoleBinding\n"
            "clusterroles  rbac.authorization.k8s.io/v1  false  ClusterRole\n"
            "rolebindings  rbac.authorization.k8s.io/v1  true  RoleBinding\n"
            "roles  rbac.authorization.k8s.io/v1  true  Role\n");
}

// kube's etcd keys: /registry/<resource>/[<namespace>/]<name>.
TEST(RbacResourcesStorageTest, KeysAsKubeApiserverWritesThem) {
  test_support::EtcdProcess etcd;
  KapiProcess kapi({.extra_flags = {"--etcd-servers=" + etcd.endpoint()}});
  ASSERT_EQ(run_kubectl(kapi, "create role r --verb=get --resource=pods").exit_code, 0);
  ASSERT_EQ(run_kubectl(kapi, "create rolebinding rb --role=r --user=jane").exit_code, 0);
  ASSERT_EQ(run_kubectl(kapi, "create clusterrole cr --verb=get --resource=nodes").exit_code, 0);
  ASSERT_EQ(run_kubectl(kapi, "create clusterrolebinding crb --clusterrole=cr --group=devs").exit_code, 0);
  const std::string keys = etcd.etcdctl("get /registry --prefix --keys-only");
  for (const char* key : {"/registry/roles/default/r", "/registry/rolebindings/default/rb", "/registry/clusterroles/cr",
                          "/registry/clusterrolebindings/crb"})
    EXPECT_NE(keys.find(std::string(key) + "\n"), std::string::npos) << key << " missing from\n" << keys;
  EXPECT_EQ(kapi.shut_down(20s), 0) << kapi.logs();
}

}  // namespace
}  // namespace kapi::integration::rbac_resources_test
