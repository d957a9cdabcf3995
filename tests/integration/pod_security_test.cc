// PodSecurity admission through a real kapi and the real kubectl, as kube-apiserver 1.32 answers: a namespace
// labelled enforce=restricted refuses a privileged pod with kube's 403 and admits a compliant one, warn labels
// give Warning headers, pod templates are warned about but created, labelling a namespace whose pods would now
// be refused warns about them, invalid labels are refused, and unlabelled namespaces stay privileged.
#include "tests/integration/kapi_suite.h"
#include "tests/integration/kubectl_runner.h"
#include "tests/support/temp_dir.h"

#include <chrono>
#include <fstream>
#include <map>
#include <thread>

namespace kapi::integration::pod_security_test {
namespace {

using namespace std::chrono_literals;

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

  // An ephemeral container added through the subresource (kubectl debug) is held to the level as well.
  HttpResponse debugged = call("PATCH", pods_in("enforced") + "/good/ephemeralcontainers",
                               R"({"spec":{"ephemeralContainers":[{"name":"debug","image":"busybox"}]}})", kMergePatch);
  ASSERT_TRUE(is_status(debugged, 403, "Forbidden")) << debugged.body;
  EXPECT_EQ(status_message(debugged),
            "pods \"good\" is forbidden: violates PodSecurity \"restricted:latest\": allowPrivilegeEscalation != false "
            "(container \"debug\" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities "
            "(container \"debug\" must set securityContext.capabilities.drop=[\"ALL\"])");
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

// kapi started with a PodSecurityConfiguration (through --admission-control-config-file) whose defaults enforce
// baseline and audit and warn restricted, with exempt namespaces and users, and an audit log to read the
// pod-security.kubernetes.io annotations back from.
constexpr std::string_view kAdmissionConfiguration = R"(apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: PodSecurity
  configuration:
    apiVersion: pod-security.admission.config.k8s.io/v1
    kind: PodSecurityConfiguration
    defaults:
      enforce: baseline
      audit: restricted
      warn: restricted
    exemptions:
      namespaces: [exempt-ns]
      usernames: [jane]
)";

constexpr std::string_view kAuditPolicy = R"(apiVersion: audit.k8s.io/v1
kind: Policy
rules:
  - level: None
    nonResourceURLs: ["/healthz*", "/readyz*", "/livez*"]
  - level: Metadata
)";

class PodSecurityConfiguredTest : public KapiSuite<PodSecurityConfiguredTest> {
 public:
  // The pods' accounts, which kube-controller-manager would have made.
  static const test_support::TempDir& dir() {
    static const test_support::TempDir dir{"kapi-pod-security-suite"};
    return dir;
  }
  static std::filesystem::path log_path() { return dir().path() / "audit.log"; }

  static KapiOptions kapi_options() {
    std::ofstream(dir().path() / "admission.yaml") << kAdmissionConfiguration;
    std::ofstream(dir().path() / "policy.yaml") << kAuditPolicy;
    std::ofstream(dir().path() / "tokens.csv") << "jane-token,jane,1001,\"system:masters\"\n";
    KapiOptions options;
    options.extra_flags = {"--admission-control-config-file=" + (dir().path() / "admission.yaml").string(),
                           "--audit-policy-file=" + (dir().path() / "policy.yaml").string(),
                           "--audit-log-path=" + log_path().string(),
                           "--token-auth-file=" + (dir().path() / "tokens.csv").string()};
    return options;
  }

 protected:
  static HttpResponse create_pod(std::string_view namespace_, const std::string& body, const std::string& audit_id,
                                 const std::string& token = "") {
    Headers headers = kJson;
    headers.emplace_back("Audit-ID", audit_id);
    if (token.empty())
      return kapi().connect_admin().request("POST", "/api/v1/namespaces/" + std::string(namespace_) + "/pods", headers, body);
    headers.emplace_back("Authorization", "Bearer " + token);
    return kapi().connect_anonymous().request("POST", "/api/v1/namespaces/" + std::string(namespace_) + "/pods",
                                              headers, body);
  }

  // The pod-security.kubernetes.io annotations of the request's ResponseComplete event (bounded wait for the
  // log writer).
  static std::map<std::string, std::string> pod_security_annotations(const std::string& audit_id) {
    for (auto deadline = std::chrono::steady_clock::now() + 10s; std::chrono::steady_clock::now() < deadline;
         std::this_thread::sleep_for(20ms)) {
      std::ifstream in(log_path());
      for (std::string line; std::getline(in, line);) {
        if (line.find("\"auditID\":\"" + audit_id + "\"") == std::string::npos) continue;
        if (line.find("\"stage\":\"ResponseComplete\"") == std::string::npos) continue;
        boost::system::error_code error;
        json::value event = json::parse(line, error);
        if (error) break;  // being written: read again
        std::map<std::string, std::string> found;
        if (const auto* annotations = event.as_object().if_contains("annotations"))
          for (const auto& [key, value] : annotations->as_object())
            if (std::string_view(key).starts_with("pod-security.kubernetes.io/"))
              found.emplace(std::string(key), std::string(value.as_string()));
        return found;
      }
    }
    ADD_FAILURE() << "no ResponseComplete event for " << audit_id;
    return {};
  }
};

TEST_F(PodSecurityConfiguredTest, TheConfiguredDefaultsApplyToUnlabelledNamespacesKubeSystemIncluded) {
  HttpResponse refused = create_pod("default", privileged_pod("priv"), "psa-refused");
  ASSERT_TRUE(is_status(refused, 403, "Forbidden")) << refused.body;
  EXPECT_EQ(status_message(refused), "pods \"priv\" is forbidden: violates PodSecurity \"baseline:latest\": privileged "
                                     "(container \"c\" must not set securityContext.privileged=true)");
  EXPECT_EQ(pod_security_annotations("psa-refused"),
            (std::map<std::string, std::string>{
                {"pod-security.kubernetes.io/audit-violations",
                 "would violate PodSecurity \"restricted:latest\": " + kPrivilegedViolations},
                {"pod-security.kubernetes.io/enforce-policy", "baseline:latest"}}));
  EXPECT_TRUE(is_status(create_pod("kube-system", privileged_pod("priv"), "psa-kube-system"), 403, "Forbidden"));

  const std::string baseline_pod = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"plain"},)"
                                   R"("spec":{"containers":[{"name":"c","image":"nginx"}]}})";
  HttpResponse created = create_pod("default", baseline_pod, "psa-warned");
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string restricted_violations =
      R"(allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), )"
      R"(unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot )"
      R"(!= true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container )"
      R"("c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"))";
  EXPECT_EQ(created.header_values("Warning"),
            std::vector<std::string>{
                warning_header("would violate PodSecurity \"restricted:latest\": " + restricted_violations)});
  EXPECT_EQ(pod_security_annotations("psa-warned"),
            (std::map<std::string, std::string>{
                {"pod-security.kubernetes.io/audit-violations",
                 "would violate PodSecurity \"restricted:latest\": " + restricted_violations},
                {"pod-security.kubernetes.io/enforce-policy", "baseline:latest"}}));
}

TEST_F(PodSecurityConfiguredTest, ExemptNamespacesAndUsersAreNotEvaluatedAndTheAuditEventSaysWhy) {
  ASSERT_EQ(kapi().connect_admin().request("POST", "/api/v1/namespaces", kJson, namespace_body("exempt-ns")).status, 201);
  HttpResponse in_exempt_namespace = create_pod("exempt-ns", privileged_pod("priv"), "psa-exempt-namespace");
  ASSERT_EQ(in_exempt_namespace.status, 201) << in_exempt_namespace.body;
  EXPECT_TRUE(in_exempt_namespace.header_values("Warning").empty());
  EXPECT_EQ(pod_security_annotations("psa-exempt-namespace"),
            (std::map<std::string, std::string>{{"pod-security.kubernetes.io/exempt", "namespace"}}));

  HttpResponse by_exempt_user = create_pod("default", privileged_pod("janes"), "psa-exempt-user", "jane-token");
  ASSERT_EQ(by_exempt_user.status, 201) << by_exempt_user.body;
  EXPECT_EQ(pod_security_annotations("psa-exempt-user"),
            (std::map<std::string, std::string>{{"pod-security.kubernetes.io/exempt", "user"}}));

  // Labelling an exempt namespace is allowed, with kube's warning that the labels are ignored.
  HttpResponse labelled = kapi().connect_admin().request(
      "PATCH", "/api/v1/namespaces/exempt-ns", kMergePatch,
      R"({"metadata":{"labels":{"pod-security.kubernetes.io/enforce":"restricted"}}})");
  ASSERT_EQ(labelled.status, 200) << labelled.body;
  EXPECT_EQ(labelled.header_values("Warning"),
            std::vector<std::string>{warning_header("namespace \"exempt-ns\" is exempt from Pod Security, and the "
                                                    "policy (enforce=restricted:latest) will be ignored")});
}

}  // namespace
}  // namespace kapi::integration::pod_security_test
