// RBAC escalation prevention against a running kapi with --authorization-mode=RBAC: a user who may write roles
// and bindings still cannot grant more than they hold, unless allowed to `escalate` or `bind`, with kube's 403
// as kubectl prints it.
#include "tests/integration/kapi_suite.h"
#include "tests/integration/kubectl_runner.h"

#include <thread>

namespace kapi::integration::rbac_escalation_test {
namespace {

using namespace std::chrono_literals;

class RbacEscalationTest : public KapiSuite<RbacEscalationTest> {
 public:
  static KapiOptions kapi_options() {
    return with_token_users("escalation", "jane-token,jane,1001,devs\n", {"--authorization-mode=RBAC"});
  }

 protected:
  void SetUp() override {
    if (prepared_) return;
    prepared_ = true;
    // jane manages RBAC in "esc" and reads pods there; nothing more.
    ASSERT_EQ(kubectl("create namespace esc").exit_code, 0);
    ASSERT_EQ(kubectl("create role rbac-manager -n esc --verb=get,list,create,update,patch,delete "
                      "--resource=roles.rbac.authorization.k8s.io,rolebindings.rbac.authorization.k8s.io,pods")
                  .exit_code,
              0);
    ASSERT_EQ(kubectl("create rolebinding jane-manages -n esc --role=rbac-manager --user=jane").exit_code, 0);
    eventually("auth can-i create roles -n esc", 0);
  }
  CommandResult kubectl(const std::string& arguments) { return run_kubectl(kapi(), arguments); }
  CommandResult kubectl_as_jane(const std::string& arguments) {
    return run_kubectl(kapi(), "--kubeconfig " + token_kubeconfig(kapi(), "jane-token") + " " + arguments);
  }
  // jane's command, retried until it exits with `exit_code` (a grant is effective once the policy has seen it).
  CommandResult eventually(const std::string& arguments, int exit_code) {
    CommandResult result;
    for (auto deadline = std::chrono::steady_clock::now() + 10s; std::chrono::steady_clock::now() < deadline;
         std::this_thread::sleep_for(50ms))
      if ((result = kubectl_as_jane(arguments)).exit_code == exit_code) break;
    return result;
  }

  static inline bool prepared_ = false;
};

TEST_F(RbacEscalationTest, ARoleGrantingWhatTheWriterHoldsIsAllowed) {
  CommandResult created = kubectl_as_jane("create role pod-reader -n esc --verb=get,list --resource=pods");
  EXPECT_EQ(created.exit_code, 0) << created.output;
  CommandResult bound = kubectl_as_jane("create rolebinding readers -n esc --role=pod-reader --group=devs");
  EXPECT_EQ(bound.exit_code, 0) << bound.output;
}

TEST_F(RbacEscalationTest, ARoleGrantingMoreIsForbidden) {
  CommandResult refused = kubectl_as_jane("create role secret-reader -n esc --verb=get,list --resource=secrets");
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_EQ(refused.output,
            "Error from server (Forbidden): roles.rbac.authorization.k8s.io \"secret-reader\" is forbidden: user "
            "\"jane\" (groups=[\"devs\" \"system:authenticated\"]) is attempting to grant RBAC permissions not "
            "currently held:\n{APIGroups:[\"\"], Resources:[\"secrets\"], Verbs:[\"get\" \"list\"]}\n");
  // Widening an existing role is refused the same way.
  ASSERT_EQ(kubectl_as_jane("create role widening -n esc --verb=get --resource=pods").exit_code, 0);
  CommandResult widened = kubectl_as_jane(
      "patch role widening -n esc --type=json "
      "-p '[{\"op\":\"add\",\"path\":\"/rules/0/verbs/-\",\"value\":\"deletecollection\"}]'");
  EXPECT_NE(widened.output.find("is attempting to grant RBAC permissions not currently held"), std::string::npos)
      << widened.output;
}

TEST_F(RbacEscalationTest, BindingARoleBeyondTheWritersRightsIsForbiddenUntilBindIsGranted) {
  CommandResult refused = kubectl_as_jane("create rolebinding admins -n esc --clusterrole=cluster-admin --user=jane");
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.output.find("rolebindings.rbac.authorization.k8s.io \"admins\" is forbidden: user \"jane\""),
            std::string::npos)
      << refused.output;
  ASSERT_EQ(kubectl("create role may-bind-admin -n esc --verb=bind --resource=clusterroles.rbac.authorization.k8s.io "
                    "--resource-name=cluster-admin")
                .exit_code,
            0);
  ASSERT_EQ(kubectl("create rolebinding jane-binds -n esc --role=may-bind-admin --user=jane").exit_code, 0);
  CommandResult allowed =
      eventually("create rolebinding admins -n esc --clusterrole=cluster-admin --user=jane", 0);
  EXPECT_EQ(allowed.exit_code, 0) << allowed.output;
}

TEST_F(RbacEscalationTest, EscalateLetsAUserWriteAnyRole) {
  ASSERT_EQ(kubectl("create role may-escalate -n esc --verb=escalate --resource=roles.rbac.authorization.k8s.io")
                .exit_code,
            0);
  ASSERT_EQ(kubectl("create rolebinding jane-escalates -n esc --role=may-escalate --user=jane").exit_code, 0);
  CommandResult allowed = eventually("create role everything -n esc --verb='*' --resource='*'", 0);
  EXPECT_EQ(allowed.exit_code, 0) << allowed.output;
}

}  // namespace
}  // namespace kapi::integration::rbac_escalation_test
