// apps/v1 Deployments driven by the real kubectl: create (a protobuf body), get's printer columns, scale through
// the scale subresource, set image, rollout restart, and metadata.generation following spec changes.
#include "tests/integration/kapi_suite.h"
#include "tests/integration/kubectl_runner.h"

#include <filesystem>

namespace kapi::integration::apps_test {
namespace {

class AppsTest : public KapiSuite<AppsTest> {
 protected:
  CommandResult kubectl(const std::string& arguments) { return run_kubectl(kapi(), arguments); }

  void SetUp() override {
    KapiSuite::SetUp();
    ASSERT_TRUE(std::filesystem::exists("/usr/bin/kubectl")) << "kubectl is not installed (scripts/install-deps)";
  }
};

TEST_F(AppsTest, KubectlManagesADeployment) {
  CommandResult created = kubectl("create deployment web --image=nginx:1.25 --replicas=2");
  ASSERT_EQ(created.output, "deployment.apps/web created\n");

  CommandResult listed = kubectl("get deploy");
  EXPECT_EQ(listed.output.substr(0, listed.output.find('\n')).find("NAME   READY   UP-TO-DATE   AVAILABLE   AGE"), 0u)
      << listed.output;
  EXPECT_NE(listed.output.find("web    0/2     0            0"), std::string::npos) << listed.output;
  EXPECT_EQ(kubectl("get deploy web -o jsonpath={.metadata.generation}").output, "1");
  EXPECT_EQ(kubectl("get deploy web -o jsonpath={.spec.strategy.rollingUpdate.maxSurge}").output, "25%");

  EXPECT_EQ(kubectl("scale deploy web --replicas=3").output, "deployment.apps/web scaled\n");
  EXPECT_EQ(kubectl("get deploy web -o jsonpath={.spec.replicas}").output, "3");
  EXPECT_EQ(kubectl("get deploy web -o jsonpath={.metadata.generation}").output, "2");

  EXPECT_EQ(kubectl("set image deploy/web nginx=nginx:1.26").output, "deployment.apps/web image updated\n");
  EXPECT_EQ(kubectl("get deploy web -o jsonpath={.spec.template.spec.containers[0].image}").output, "nginx:1.26");

  EXPECT_EQ(kubectl("rollout restart deploy/web").output, "deployment.apps/web restarted\n");
  EXPECT_NE(kubectl("get deploy web -o jsonpath={.spec.template.metadata.annotations}").output
                .find("kubectl.kubernetes.io/restartedAt"),
            std::string::npos);
  EXPECT_EQ(kubectl("get deploy web -o jsonpath={.metadata.generation}").output, "4");

  CommandResult scale = kubectl("get --raw /apis/apps/v1/namespaces/default/deployments/web/scale");
  EXPECT_NE(scale.output.find("\"kind\":\"Scale\""), std::string::npos) << scale.output;
  EXPECT_NE(scale.output.find("\"replicas\":3"), std::string::npos) << scale.output;
  // kubectl prints a Scale with the columns of kube's printScale, which the server's Table carries.
  CommandResult printed = kubectl("get deploy web --subresource=scale");
  EXPECT_EQ(printed.output.substr(0, printed.output.find('\n')), "NAME   DESIRED   AVAILABLE   AGE") << printed.output;
  EXPECT_NE(printed.output.find("\nweb    3         0           "), std::string::npos) << printed.output;

  // Status is written through /status only: the main resource keeps it, the subresource changes only it.
  kubectl("patch deploy web --type=merge -p '{\"status\":{\"readyReplicas\":1}}'");
  EXPECT_EQ(kubectl("get deploy web -o jsonpath={.status.readyReplicas}").output, "");
  CommandResult status_patch = kubectl(
      "patch deploy web --subresource=status --type=merge -p '{\"status\":{\"readyReplicas\":2},\"spec\":{\"replicas\":9}}'");
  EXPECT_EQ(kubectl("get deploy web -o jsonpath={.status.readyReplicas}/{.spec.replicas}").output, "2/3")
      << status_patch.output;
}

}  // namespace
}  // namespace kapi::integration::apps_test
