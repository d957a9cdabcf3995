// PodSecurity admission through a real kapi and the real kubectl, as kube-apiserver 1.32 answers: a namespace
// labelled enforce=restricted refuses a privileged pod with kube's 403 and admits a compliant one, warn labels
// give Warning headers, pod templates are warned about but created, labelling a namespace whose pods would now
// be refused warns about them, invalid labels are refused, and unlabelled namespaces stay privileged.
#include "tests/integration/kapi_suite.h"
#include "tests/integration/kubectl_runner.h"

namespace kapi::integration {
namespace {

using Headers = std::vector<std::pair<std::string, std::string>>;
namespace json = boost::json;

const Headers kJson{{"Content-Type", "application/json"}};
const Headers kMergePatch{{"Content-Type", "application/merge-patch+json"}};

std::string namespace_body(std::string_view name, std::string_view labels = "{}") {
  return R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")" + std::string(name) + R"(","labels":)" +
         std::string(labels) + "}}";
}

std::string privileged_pod(std::string_view name) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + std::string(name) +
         R"("},"spec":{"containers":[{"name":"c","image":"nginx","securityContext":{"privileged":true}}]}})";
}

std::string compliant_pod(std::string_view name) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + std::string(name) +
         R"("},"spec":{"securityContext":{"runAsNonRoot":true,"seccompProfile":{"type":"RuntimeDefault"}},)"
         R"("containers":[{"name":"c","image":"nginx","securityContext":{"allowPrivilegeEscalation":false,)"
         R"("capabilities":{"drop":["ALL"]}}}]}})";
}

// What restricted:latest says of privileged_pod.
const std::string kPrivilegedViolations =
    R"(privileged (container "c" must not set securityContext.privileged=true), allowPrivilegeEscalation != false )"
    R"((container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container )"
    R"("c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set )"
    R"(securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set )"
    R"(securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"))";

// A Warning header as kube writes it: 299, no agent, the text quoted.
std::string warning_header(std::string_view text) {
  std::string quoted = "299 - \"";
  for (char c : text) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return quoted + "\"";
}

class PodSecurityTest : public KapiSuite<PodSecurityTest> {
 protected:
  HttpResponse call(std::string_view method, std::string_view target, std::string_view body = {},
                    const Headers& headers = kJson) {
    return kapi().connect_admin().request(method, target, headers, body);
  }
  static std::string pods_in(std::string_view namespace_) {
    return "/api/v1/namespaces/" + std::string(namespace_) + "/pods";
  }
};

TEST_F(PodSecurityTest, AnEnforcingNamespaceRefusesAPrivilegedPodWithKubesForbiddenAndAdmitsACompliantOne) {
  ASSERT_EQ(call("POST", "/api/v1/namespaces",
                 namespace_body("enforced", R"({"pod-security.kubernetes.io/enforce":"restricted"})"))
                .status,
            201);
  HttpResponse refused = call("POST", pods_in("enforced"), privileged_pod("priv"));
  ASSERT_TRUE(is_status(refused, 403, "Forbidden")) << refused.body;
  EXPECT_EQ(status_message(refused),
            "pods \"priv\" is forbidden: violates PodSecurity \"restricted:latest\": " + kPrivilegedViolations);
  auto details = json_object(refused.body)["details"].as_object();
  EXPECT_EQ(details["name"], "priv");
  EXPECT_EQ(details["kind"], "pods");
  EXPECT_TRUE(refused.header_values("Warning").empty()) << "a refused pod gets no warning";
  EXPECT_TRUE(is_status(call("GET", pods_in("enforced") + "/priv"), 404, "NotFound"));

  HttpResponse admitted = call("POST", pods_in("enforced"), compliant_pod("good"));
  ASSERT_EQ(admitted.status, 201) << admitted.body;
  EXPECT_TRUE(admitted.header_values("Warning").empty());

  // Updating only metadata of a pod is not evaluated again.
  HttpResponse relabelled =
      call("PATCH", pods_in("enforced") + "/good", R"({"metadata":{"labels":{"a":"b"}}})", kMergePatch);
  EXPECT_EQ(relabelled.status, 200) << relabelled.body;
}

TEST_F(PodSecurityTest, WarnLabelsGiveWarningHeadersAndTheLevelsAndVersionsTheyName) {
  ASSERT_EQ(call("POST", "/api/v1/namespaces",
                 namespace_body("warned", R"({"pod-security.kubernetes.io/warn":"baseline",)"
                                          R"("pod-security.kubernetes.io/warn-version":"v1.28"})"))
                .status,
            201);
  const std::string host_network = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"hostnet"},)"
                                   R"("spec":{"hostNetwork":true,"containers":[{"name":"c","image":"nginx"}]}})";
  HttpResponse created = call("POST", pods_in("warned"), host_network);
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(created.header_values("Warning"),
            std::vector<std::string>{warning_header(
                "would violate PodSecurity \"baseline:v1.28\": host namespaces (hostNetwork=true)")});
}

TEST_F(PodSecurityTest, ADeploymentInAnEnforcingNamespaceIsWarnedAboutButCreated) {
  ASSERT_EQ(call("POST", "/api/v1/namespaces",
                 namespace_body("templates", R"({"pod-security.kubernetes.io/enforce":"restricted"})"))
                .status,
            201);
  const std::string deployment =
      R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"selector":{"matchLabels":{"app":"web"}},)"
      R"("template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"nginx","securityContext":{"privileged":true}}]}}}})";
  HttpResponse created = call("POST", "/apis/apps/v1/namespaces/templates/deployments", deployment);
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(created.header_values("Warning"),
            std::vector<std::string>{
                warning_header("would violate PodSecurity \"restricted:latest\": " + kPrivilegedViolations)});
}

TEST_F(PodSecurityTest, LabellingANamespaceWhosePodsWouldBeRefusedWarnsAboutThem) {
  ASSERT_EQ(call("POST", "/api/v1/namespaces", namespace_body("running")).status, 201);
  for (std::string name : {"b-priv", "a-priv"})
    ASSERT_EQ(call("POST", pods_in("running"), privileged_pod(name)).status, 201);
  ASSERT_EQ(call("POST", pods_in("running"), compliant_pod("fine")).status, 201);

  HttpResponse labelled = call("PATCH", "/api/v1/namespaces/running",
                               R"({"metadata":{"labels":{"pod-security.kubernetes.io/enforce":"baseline"}}})", kMergePatch);
  ASSERT_EQ(labelled.status, 200) << labelled.body;
  EXPECT_EQ(labelled.header_values("Warning"),
            (std::vector<std::string>{
                warning_header("existing pods in namespace \"running\" violate the new PodSecurity enforce level "
                               "\"baseline:latest\""),
                warning_header("a-priv (and 1 other pod): privileged")}));

  // kubectl shows the same warnings when it tightens the level further.
  CommandResult kubectl = run_kubectl(kapi(), "label namespace running pod-security.kubernetes.io/enforce=restricted --overwrite");
  EXPECT_EQ(kubectl.exit_code, 0) << kubectl.output;
  EXPECT_EQ(kubectl.output,
            "Warning: existing pods in namespace \"running\" violate the new PodSecurity enforce level "
            "\"restricted:latest\"\n"
            "Warning: a-priv (and 1 other pod): privileged, allowPrivilegeEscalation != false, unrestricted "
            "capabilities, runAsNonRoot != true, seccompProfile\n"
            "namespace/running labeled\n");
}

TEST_F(PodSecurityTest, InvalidLabelsAreRefusedWithKubesInvalidStatus) {
  HttpResponse refused = call("POST", "/api/v1/namespaces",
                              namespace_body("bad-labels", R"({"pod-security.kubernetes.io/enforce":"strict"})"));
  ASSERT_TRUE(is_status(refused, 422, "Invalid")) << refused.body;
  EXPECT_EQ(status_message(refused),
            "Namespace \"bad-labels\" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "
            "\"strict\": must be one of privileged, baseline, restricted");
  EXPECT_EQ(status_causes(refused),
            "metadata.labels[pod-security.kubernetes.io/enforce]: FieldValueInvalid: Invalid value: \"strict\": must "
            "be one of privileged, baseline, restricted\n");
}

TEST_F(PodSecurityTest, UnlabelledNamespacesArePrivilegedAsKubesDefaultConfigurationMakesThem) {
  HttpResponse created = call("POST", pods_in("default"), privileged_pod("anything-goes"));
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_TRUE(created.header_values("Warning").empty());
  const std::string host_pid = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"sys"},)"
                               R"("spec":{"hostPID":true,"containers":[{"name":"c","image":"nginx"}]}})";
  EXPECT_EQ(call("POST", pods_in("kube-system"), host_pid).status, 201);
}

TEST_F(PodSecurityTest, KubectlPrintsKubesMessageForARefusedPod) {
  ASSERT_EQ(run_kubectl(kapi(), "create namespace strict").exit_code, 0);
  ASSERT_EQ(run_kubectl(kapi(), "label namespace strict pod-security.kubernetes.io/enforce=restricted").exit_code, 0);
  const std::string manifest = write_manifest(kapi(), "privileged-pod.yaml",
                                              "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n  namespace: strict\n"
                                              "spec:\n  containers:\n  - name: c\n    image: nginx\n"
                                              "    securityContext:\n      privileged: true\n");
  CommandResult refused = run_kubectl(kapi(), "create -f " + manifest);
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_EQ(refused.output, "Error from server (Forbidden): error when creating \"" + manifest +
                                "\": pods \"x\" is forbidden: violates PodSecurity \"restricted:latest\": " +
                                kPrivilegedViolations + "\n");
}

}  // namespace
}  // namespace kapi::integration
