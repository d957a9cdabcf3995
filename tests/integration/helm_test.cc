// helm 3.17, a client-go program, against kapi: `helm create`'s default chart installed with its autoscaling and
// ingress templates switched on (autoscaling/v2 HorizontalPodAutoscaler, networking.k8s.io/v1 Ingress), upgraded,
// listed and uninstalled, as on a kube-apiserver. helm comes from scripts/install-deps.
#include "tests/integration/kapi_suite.h"
#include "tests/integration/kubectl_runner.h"

#include <filesystem>

namespace kapi::integration::helm_test {
namespace {

constexpr const char* kHelm = "/usr/local/bin/helm";

class HelmTest : public KapiSuite<HelmTest> {
 protected:
  CommandResult kubectl(const std::string& arguments) { return run_kubectl(kapi(), arguments); }

  // helm with the admin kubeconfig and private config, cache and data dirs (nothing leaks in from elsewhere).
  CommandResult helm(const std::string& arguments, int timeout_seconds = 120) {
    const auto home = kapi().work_dir() / "helm-home";
    std::filesystem::create_directories(home);
    return test_support::run_command(
        "cd '" + kapi().work_dir().string() + "' && env HOME='" + home.string() + "' HELM_CACHE_HOME='" +
        (home / "cache").string() + "' HELM_CONFIG_HOME='" + (home / "config").string() + "' HELM_DATA_HOME='" +
        (home / "data").string() + "' KUBECONFIG='" + kapi().admin_kubeconfig().string() + "' timeout " +
        std::to_string(timeout_seconds) + " " + kHelm + " " + arguments);
  }

  void SetUp() override {
    KapiSuite::SetUp();
    ASSERT_TRUE(std::filesystem::exists(kHelm)) << "helm is not installed (scripts/install-deps)";
  }
};

TEST_F(HelmTest, TheDefaultChartWithAutoscalingAndIngressInstallsUpgradesAndUninstalls) {
  ASSERT_EQ(helm("create web").exit_code, 0);
  CommandResult installed =
      helm("install web ./web --namespace default --set autoscaling.enabled=true --set ingress.enabled=true");
  ASSERT_EQ(installed.exit_code, 0) << installed.output;
  EXPECT_NE(installed.output.find("STATUS: deployed"), std::string::npos) << installed.output;

  EXPECT_EQ(kubectl("get hpa web -o jsonpath={.spec.minReplicas}/{.spec.maxReplicas}/"
                    "{.spec.metrics[0].resource.target.averageUtilization}")
                .output,
            "1/100/80");
  EXPECT_EQ(kubectl("get ingress web -o jsonpath={.spec.rules[0].host}/{.spec.rules[0].http.paths[0].pathType}").output,
            "chart-example.local/ImplementationSpecific");
  EXPECT_EQ(kubectl("get deploy,svc,sa -l app.kubernetes.io/instance=web -o name").output,
            "deployment.apps/web\nservice/web\nserviceaccount/web\n");
  EXPECT_EQ(kubectl("get secret -l owner=helm,name=web -o jsonpath={.items[*].metadata.name}").output,
            "sh.helm.release.v1.web.v1");

  CommandResult upgraded = helm("upgrade web ./web --reuse-values --set autoscaling.maxReplicas=7");
  ASSERT_EQ(upgraded.exit_code, 0) << upgraded.output;
  EXPECT_EQ(kubectl("get hpa web -o jsonpath={.spec.maxReplicas}").output, "7");
  CommandResult listed = helm("list --short");
  EXPECT_EQ(listed.output, "web\n") << listed.output;
  CommandResult history = helm("history web -o json");
  EXPECT_NE(history.output.find("\"revision\":2"), std::string::npos) << history.output;

  CommandResult uninstalled = helm("uninstall web --wait --timeout 60s");
  EXPECT_EQ(uninstalled.output, "release \"web\" uninstalled\n");
  EXPECT_EQ(kubectl("get hpa,ingress,deploy,svc -l app.kubernetes.io/instance=web -o name").output, "");
}

}  // namespace
}  // namespace kapi::integration::helm_test
