// --authorization-mode=RBAC against a running kapi: the bootstrap policy, kube's denials as kubectl prints them,
// grants through RoleBindings and ClusterRoleBindings taking effect as soon as they are stored, and dangling role
// references named in the denial.
#include "tests/integration/kapi_suite.h"
#include "tests/integration/kubectl_runner.h"

#include <thread>

namespace kapi::integration::rbac_authorization_test {
namespace {

using namespace std::chrono_literals;

class RbacAuthorizationTest : public KapiSuite<RbacAuthorizationTest> {
 public:
  static KapiOptions kapi_options() {
    return with_token_users("rbac", "jane-token,jane,1001,devs\nbob-token,bob,1002\n", {"--authorization-mode=RBAC"});
  }

 protected:
  HttpResponse as(std::string_view token, std::string_view target) {
    std::string authorization = "Bearer " + std::string(token);
    return kapi().connect_anonymous().request("GET", target, {{"Authorization", authorization}});
  }
  // The status `token` gets for `target` once the policy has settled on `expected` (bounded: a grant is
  // effective once the policy feed has seen it).
  int settle(std::string_view token, std::string_view target, int expected) {
    int status = 0;
    for (auto deadline = std::chrono::steady_clock::now() + 10s; std::chrono::steady_clock::now() < deadline;
         std::this_thread::sleep_for(20ms))
      if ((status = as(token, target).status) == expected) break;
    return status;
  }
  CommandResult kubectl_as(const std::string& user, const std::string& arguments) {
    return run_kubectl(kapi(), "--kubeconfig " + token_kubeconfig(kapi(), user + "-token") + " " + arguments);
  }
  CommandResult kubectl(const std::string& arguments) { return run_kubectl(kapi(), arguments); }
};

TEST_F(RbacAuthorizationTest, TheBootstrapPolicyIsInPlace) {
  CommandResult roles = kubectl("get clusterroles -o name");
  EXPECT_NE(roles.output.find("clusterrole.rbac.authorization.k8s.io/cluster-admin\n"), std::string::npos) << roles.output;
  EXPECT_NE(roles.output.find("clusterrole.rbac.authorization.k8s.io/system:discovery\n"), std::string::npos);
  // Discovery and version for every authenticated user; only the public info for anonymous ones.
  EXPECT_EQ(as("jane-token", "/apis").status, 200);
  EXPECT_EQ(kapi().connect_anonymous().request("GET", "/version").status, 200);
  HttpResponse anonymous = kapi().connect_anonymous().request("GET", "/api");
  EXPECT_TRUE(is_status(anonymous, 403, "Forbidden"));
  EXPECT_EQ(status_message(anonymous), "forbidden: User \"system:anonymous\" cannot get path \"/api\"");
}

TEST_F(RbacAuthorizationTest, KubectlPrintsKubesDenial) {
  CommandResult denied = kubectl_as("bob", "get pods -n default");
  EXPECT_NE(denied.exit_code, 0);
  EXPECT_EQ(denied.output,
            "Error from server (Forbidden): pods is forbidden: User \"bob\" cannot list resource \"pods\" in API "
            "group \"\" in the namespace \"default\"\n");
}

TEST_F(RbacAuthorizationTest, GrantsTakeEffectInTheirScope) {
  ASSERT_EQ(kubectl("create namespace team-a").exit_code, 0);
  ASSERT_EQ(kubectl("create role pod-reader --verb=get,list --resource=pods -n team-a").exit_code, 0);
  EXPECT_EQ(as("jane-token", "/api/v1/namespaces/team-a/pods").status, 403);
  ASSERT_EQ(kubectl("create rolebinding devs-read --role=pod-reader --group=devs -n team-a").exit_code, 0);
  EXPECT_EQ(settle("jane-token", "/api/v1/namespaces/team-a/pods", 200), 200);
  EXPECT_EQ(as("jane-token", "/api/v1/namespaces/default/pods").status, 403) << "a RoleBinding grants in its namespace";
  EXPECT_EQ(as("jane-token", "/api/v1/namespaces/team-a/configmaps").status, 403) << "only what the role says";
  EXPECT_EQ(as("bob-token", "/api/v1/namespaces/team-a/pods").status, 403) << "bob is not in devs";
  CommandResult listed = kubectl_as("jane", "get pods -n team-a");
  EXPECT_EQ(listed.exit_code, 0) << listed.output;

  ASSERT_EQ(kubectl("create clusterrolebinding bob-admin --clusterrole=cluster-admin --user=bob").exit_code, 0);
  EXPECT_EQ(settle("bob-token", "/api/v1/nodes", 200), 200);
  ASSERT_EQ(kubectl("delete clusterrolebinding bob-admin").exit_code, 0);
  EXPECT_EQ(settle("bob-token", "/api/v1/nodes", 403), 403) << "a deleted grant is gone";
}

TEST_F(RbacAuthorizationTest, DanglingRoleReferencesAreNamed) {
  ASSERT_EQ(kubectl("create clusterrolebinding bob-ghost --clusterrole=ghost --user=bob").exit_code, 0);
  HttpResponse denied;
  for (auto deadline = std::chrono::steady_clock::now() + 10s; std::chrono::steady_clock::now() < deadline;
       std::this_thread::sleep_for(20ms)) {
    denied = as("bob-token", "/api/v1/namespaces/default/secrets");
    if (status_message(denied).find("ghost") != std::string::npos) break;
  }
  EXPECT_EQ(status_message(denied),
            "secrets is forbidden: User \"bob\" cannot list resource \"secrets\" in API group \"\" in the namespace "
            "\"default\": RBAC: clusterrole.rbac.authorization.k8s.io \"ghost\" not found");
}

}  // namespace
}  // namespace kapi::integration::rbac_authorization_test
