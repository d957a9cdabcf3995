// certificates.k8s.io/v1 and admissionregistration.k8s.io/v1 served as kube-apiserver 1.32 serves them, driven by
// the real kubectl 1.32 on both stores: a kubelet's TLS bootstrap CertificateSigningRequest whose requestor is the
// authenticated user, `kubectl certificate approve`, the signer's certificate through /status, spec immutability and
// kube's 422 and 403 refusals; webhook configurations with kube's v1 defaults, generation, printer columns and
// validation causes; ValidatingAdmissionPolicies and their bindings; and the discovery rows.
#include "base/base64.h"
#include "server/schema/transcoder.h"
#include "tests/integration/kapi_suite.h"
#include "tests/integration/kubectl_runner.h"
#include "tests/support/etcd_process.h"

#include <boost/json.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>
#include <vector>

namespace kapi::integration::certificates_admissionregistration_test {
namespace {

namespace json = boost::json;

// The lines of `output` with runs of spaces collapsed and ages written as AGE, so widths and timing do not matter.
std::string squeezed(const std::string& output) {
  std::string out = std::regex_replace(output, std::regex(" {2,}"), "  ");
  return std::regex_replace(out, std::regex("  [0-9]+[smhdy]([0-9]+[smhd])?(  |\n)"), "  AGE$2");
}

// The cells of a table row printed by kubectl (no cell of these tables holds a space).
std::vector<std::string> cells(const std::string& row) {
  std::vector<std::string> out;
  std::istringstream words(row);
  for (std::string word; words >> word;) out.push_back(word);
  out.resize(6);
  return out;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class CertificatesAdmissionRegistrationTest : public KapiSuite<CertificatesAdmissionRegistrationTest> {
 public:
  static KapiOptions kapi_options() {
    return with_token_users("certadm",
                            "kubelet-token,system:node:worker-1,node-uid-1,\"system:nodes\"\n"
                            "approver-token,jane,jane-uid,\"devs\"\n",
                            {"--authorization-mode=RBAC"});
  }

 protected:
  CommandResult kubectl(const std::string& arguments) { return run_kubectl(kapi(), arguments); }
  CommandResult as_kubelet(const std::string& arguments) {
    return run_kubectl(kapi(), "--kubeconfig " + token_kubeconfig(kapi(), "kubelet-token") + " " + arguments);
  }
  CommandResult as_approver(const std::string& arguments) {
    return run_kubectl(kapi(), "--kubeconfig " + token_kubeconfig(kapi(), "approver-token") + " " + arguments);
  }
  // `kubectl auth can-i` as the token's user, polled until RBAC's authorizer holds what was just bound (bounded).
  // (kubectl warns first that a cluster-scoped resource is asked about in a namespace.)
  void await_permission(const std::string& token, const std::string& question) {
    const std::string kubeconfig = "--kubeconfig " + token_kubeconfig(kapi(), token) + " ";
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    for (CommandResult answer; !(answer = run_kubectl(kapi(), kubeconfig + "auth can-i " + question)).output.ends_with("yes\n");) {
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "never allowed: " << question << ": " << answer.output;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  // kubeadm's binding of the bootstrapping kubelets to system:node-bootstrapper.
  void let_kubelet_bootstrap() {
    kubectl("create clusterrolebinding kubelet-bootstrap --clusterrole=system:node-bootstrapper "
            "--user=system:node:worker-1");
    await_permission("kubelet-token", "create certificatesigningrequests.certificates.k8s.io");
  }
  std::string manifest(const std::string& name, const std::string& text) { return write_manifest(kapi(), name, text); }

  void SetUp() override {
    KapiSuite::SetUp();
    ASSERT_TRUE(std::filesystem::exists("/usr/bin/kubectl")) << "kubectl is not installed (scripts/install-deps)";
  }

  // A PEM made by the openssl CLI in kapi's work dir: a CSR for `subject`, or a self-signed certificate.
  std::string openssl_pem(const std::string& name, const std::string& subject, bool certificate = false) {
    const auto dir = kapi().work_dir();
    const std::string out = (dir / (name + ".pem")).string();
    const std::string command = "openssl req " + std::string(certificate ? "-x509 -days 1 " : "") +
                                "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout '" +
                                (dir / (name + ".key")).string() + "' -subj '" + subject + "' -out '" + out + "'";
    CommandResult made = test_support::run_command(command);
    EXPECT_EQ(made.exit_code, 0) << made.output;
    return read_file(out);
  }

  std::string csr_manifest(const std::string& name, const std::string& pem, const std::string& signer,
                           const std::string& extra = "") {
    return manifest(name + ".yaml", "apiVersion: certificates.k8s.io/v1\nkind: CertificateSigningRequest\n"
                                    "metadata:\n  name: " + name + "\nspec:\n  request: " + base::base64_encode(pem) +
                                        "\n  signerName: " + signer + "\n  usages:\n  - digital signature\n"
                                        "  - client auth\n" + extra);
  }
};

TEST_F(CertificatesAdmissionRegistrationTest, KubeletBootstrapRequestApprovedAndIssued) {
  let_kubelet_bootstrap();
  const std::string request = openssl_pem("kubelet", "/O=system:nodes/CN=system:node:worker-1");
  // What the client claims about itself is replaced by who it is.
  CommandResult created = as_kubelet(
      "create -f " + csr_manifest("node-csr-1", request, "kubernetes.io/kube-apiserver-client-kubelet",
                                  "  expirationSeconds: 86400\n  username: forged\n  groups: [system:masters]\n"));
  ASSERT_EQ(created.output, "certificatesigningrequest.certificates.k8s.io/node-csr-1 created\n");
  EXPECT_EQ(kubectl("get csr node-csr-1 -o jsonpath={.spec.username}/{.spec.uid}/{.spec.groups}/{.status}").output,
            "system:node:worker-1/node-uid-1/[\"system:nodes\",\"system:authenticated\"]/{}");
  // (squeezed() reads REQUESTEDDURATION's "24h" as an age too; the cells are checked one by one below.)
  EXPECT_EQ(squeezed(kubectl("get csr").output),
            "NAME  AGE  SIGNERNAME  REQUESTOR  REQUESTEDDURATION  CONDITION\n"
            "node-csr-1  AGE  kubernetes.io/kube-apiserver-client-kubelet  system:node:worker-1  AGE  Pending\n");
  EXPECT_EQ(squeezed(kubectl("get csr -o wide").output),
            "NAME  AGE  SIGNERNAME  REQUESTOR  REQUESTEDDURATION  CONDITION\n"
            "node-csr-1  AGE  kubernetes.io/kube-apiserver-client-kubelet  system:node:worker-1  AGE  Pending\n");
  EXPECT_EQ(cells(kubectl("get csr node-csr-1 --no-headers").output)[4], "24h");
  EXPECT_EQ(kubectl("get csr --field-selector spec.signerName=kubernetes.io/kube-apiserver-client-kubelet -o name").output,
            "certificatesigningrequest.certificates.k8s.io/node-csr-1\n");
  EXPECT_EQ(kubectl("get csr --field-selector spec.signerName=example.com/other -o name").output, "");
  const json::object list = json::parse(kubectl("get --raw /apis/certificates.k8s.io/v1/certificatesigningrequests").output).as_object();
  const std::string listed_at(list.at("metadata").at("resourceVersion").as_string());

  EXPECT_EQ(kubectl("certificate approve node-csr-1").output,
            "certificatesigningrequest.certificates.k8s.io/node-csr-1 approved\n");
  EXPECT_EQ(kubectl("get csr node-csr-1 -o jsonpath={.status.conditions[0].type}/{.status.conditions[0].status}/"
                    "{.status.conditions[0].reason}")
                .output,
            "Approved/True/KubectlApprove");
  EXPECT_NE(kubectl("get csr node-csr-1 -o jsonpath={.status.conditions[0].lastUpdateTime}").output, "");
  EXPECT_EQ(squeezed(kubectl("get csr node-csr-1 --no-headers").output),
            "node-csr-1  AGE  kubernetes.io/kube-apiserver-client-kubelet  system:node:worker-1  AGE  Approved\n");
  // The approval arrives on a watch from before it (bounded by the server's timeoutSeconds).
  CommandResult watched = kubectl("get --raw '/apis/certificates.k8s.io/v1/certificatesigningrequests?watch=1&"
                                  "resourceVersion=" + listed_at + "&timeoutSeconds=1'");
  EXPECT_NE(watched.output.find("{\"type\":\"MODIFIED\""), std::string::npos) << watched.output;
  EXPECT_NE(watched.output.find("\"reason\":\"KubectlApprove\""), std::string::npos) << watched.output;

  // kubectl refuses to deny an approved request itself; the server refuses it too, through /approval.
  EXPECT_EQ(kubectl("certificate deny node-csr-1").output,
            "error: certificate signing request \"node-csr-1\" is already Approved\n");
  json::object both = json::parse(kubectl("get csr node-csr-1 -o json").output).as_object();
  both["status"].as_object()["conditions"].as_array().push_back(
      json::object{{"type", "Denied"}, {"status", "True"}, {"reason", "Test"}});
  HttpResponse denied = kapi().connect_admin().request(
      "PUT", "/apis/certificates.k8s.io/v1/certificatesigningrequests/node-csr-1/approval",
      {{"Content-Type", "application/json"}}, json::serialize(both));
  EXPECT_TRUE(is_status(denied, 422, "Invalid"));
  EXPECT_EQ(status_message(denied),
            "CertificateSigningRequest.certificates.k8s.io \"node-csr-1\" is invalid: status.conditions[1].type: "
            "Invalid value: \"Denied\": Approved and Denied conditions are mutually exclusive");

  // Spec is immutable: a change through the main resource is dropped, as kube's PrepareForUpdate does.
  EXPECT_EQ(kubectl("patch csr node-csr-1 --type=merge -p '{\"spec\":{\"signerName\":\"example.com/other\"}}'").output,
            "certificatesigningrequest.certificates.k8s.io/node-csr-1 patched (no change)\n");
  EXPECT_EQ(kubectl("get csr node-csr-1 -o jsonpath={.spec.signerName}").output,
            "kubernetes.io/kube-apiserver-client-kubelet");
  // Neither can it set the certificate; /status can, once.
  const std::string certificate = base::base64_encode(openssl_pem("issued", "/CN=system:node:worker-1", true));
  kubectl("patch csr node-csr-1 --type=merge -p '{\"status\":{\"certificate\":\"" + certificate + "\"}}'");
  EXPECT_EQ(kubectl("get csr node-csr-1 -o jsonpath={.status.certificate}").output, "");
  CommandResult issued = kubectl("patch csr node-csr-1 --subresource=status --type=merge -p "
                                 "'{\"status\":{\"certificate\":\"" + certificate + "\"}}'");
  EXPECT_EQ(issued.output, "certificatesigningrequest.certificates.k8s.io/node-csr-1 patched\n");
  EXPECT_EQ(kubectl("get csr node-csr-1 -o jsonpath={.status.certificate}").output, certificate);
  EXPECT_EQ(squeezed(kubectl("get csr node-csr-1 --no-headers").output),
            "node-csr-1  AGE  kubernetes.io/kube-apiserver-client-kubelet  system:node:worker-1  AGE  Approved,Issued\n");
  CommandResult reissued = kubectl("patch csr node-csr-1 --subresource=status --type=merge -p "
                                   "'{\"status\":{\"certificate\":\"" + base::base64_encode("x") + "\"}}'");
  EXPECT_NE(reissued.output.find("status.certificate: Forbidden: updates may not modify existing certificate content"),
            std::string::npos)
      << reissued.output;

  CommandResult described = kubectl("describe csr node-csr-1");
  EXPECT_EQ(described.exit_code, 0) << described.output;
  for (const char* line : {"Requesting User:", "system:node:worker-1", "Signer:", "Status:", "Approved,Issued",
                           "Organization:", "system:nodes"})
    EXPECT_NE(described.output.find(line), std::string::npos) << line << " not in\n" << described.output;

  EXPECT_EQ(kubectl("delete csr node-csr-1").output,
            "certificatesigningrequest.certificates.k8s.io \"node-csr-1\" deleted\n");
}

TEST_F(CertificatesAdmissionRegistrationTest, ApprovingNeedsTheApproveVerbOnTheSigner) {
  let_kubelet_bootstrap();
  const std::string request = openssl_pem("kubelet-2", "/O=system:nodes/CN=system:node:worker-1");
  ASSERT_EQ(as_kubelet("create -f " + csr_manifest("node-csr-2", request, "kubernetes.io/kube-apiserver-client-kubelet"))
                .output,
            "certificatesigningrequest.certificates.k8s.io/node-csr-2 created\n");
  // An approver who may write /approval but not approve for the signer (the CertificateApproval plugin).
  kubectl("create clusterrole csr-approver --verb=get,list --resource=certificatesigningrequests.certificates.k8s.io");
  kubectl(R"(patch clusterrole csr-approver --type=json -p '[{"op":"add","path":"/rules/-","value":{"apiGroups":["certificates.k8s.io"],"resources":["certificatesigningrequests/approval"],"verbs":["update"]}}]')");
  kubectl("create clusterrolebinding csr-approver --clusterrole=csr-approver --user=jane");
  await_permission("approver-token", "update certificatesigningrequests.certificates.k8s.io --subresource=approval");
  CommandResult refused = as_approver("certificate approve node-csr-2");
  EXPECT_NE(refused.output.find("certificatesigningrequests.certificates.k8s.io \"node-csr-2\" is forbidden: user not "
                                "permitted to approve requests with signerName "
                                "\"kubernetes.io/kube-apiserver-client-kubelet\""),
            std::string::npos)
      << refused.output;
  // `approve` on the signer's domain is enough.
  kubectl(R"(patch clusterrole csr-approver --type=json -p '[{"op":"add","path":"/rules/-","value":{"apiGroups":["certificates.k8s.io"],"resources":["signers"],"resourceNames":["kubernetes.io/*"],"verbs":["approve"]}}]')");
  // (Polled, bounded, until RBAC's authorizer holds the new rule.)
  CommandResult approved;
  for (const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
       (approved = as_approver("certificate approve node-csr-2")).exit_code != 0 &&
       std::chrono::steady_clock::now() < deadline;)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(approved.output, "certificatesigningrequest.certificates.k8s.io/node-csr-2 approved\n");
  EXPECT_EQ(kubectl("delete csr node-csr-2").exit_code, 0);

  // A kubelet names its request after a digest of its key and subject (base64url: capitals, '-' and '_').
  const std::string name = "node-csr-K3-VhNj9x8GVv8yd5ue0L4A1UrRJjbqy_suWJrlpYlY";
  ASSERT_EQ(as_kubelet("create -f " + csr_manifest(name, request, "kubernetes.io/kube-apiserver-client-kubelet")).output,
            "certificatesigningrequest.certificates.k8s.io/" + name + " created\n");
  EXPECT_EQ(kubectl("certificate deny " + name).output, "certificatesigningrequest.certificates.k8s.io/" + name + " denied\n");
  EXPECT_EQ(cells(kubectl("get csr " + name + " --no-headers").output)[5], "Denied");
  EXPECT_EQ(kubectl("delete csr " + name).exit_code, 0);
}

TEST_F(CertificatesAdmissionRegistrationTest, InvalidRequestsRefusedAsKube) {
  CommandResult garbage = kubectl("create -f " + csr_manifest("bad-csr", "hi", "example.com/signer"));
  EXPECT_NE(garbage.exit_code, 0);
  EXPECT_EQ(garbage.output,
            "The CertificateSigningRequest \"bad-csr\" is invalid: spec.request: Invalid value: []byte{0x68, 0x69}: "
            "PEM block type must be CERTIFICATE REQUEST\n");
  const std::string request = openssl_pem("user", "/O=devs/CN=jane");
  CommandResult legacy = kubectl("create -f " + csr_manifest("legacy", request, "kubernetes.io/legacy-unknown",
                                                             "  expirationSeconds: 60\n"));
  EXPECT_EQ(legacy.output,
            "The CertificateSigningRequest \"legacy\" is invalid: \n"
            "* spec.signerName: Invalid value: \"kubernetes.io/legacy-unknown\": the legacy signerName is not allowed "
            "via this API version\n"
            "* spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 600 seconds (10 minutes)\n");
  // The CertificateSubjectRestriction admission plugin.
  const std::string masters = openssl_pem("masters", "/O=system:masters/CN=root");
  CommandResult forbidden = kubectl("create -f " + csr_manifest("masters", masters, "kubernetes.io/kube-apiserver-client"));
  EXPECT_NE(forbidden.output.find("certificatesigningrequests.certificates.k8s.io \"masters\" is forbidden: use of "
                                  "kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed"),
            std::string::npos)
      << forbidden.output;
  EXPECT_EQ(kubectl("get csr -o name").output, "");
}

TEST_F(CertificatesAdmissionRegistrationTest, WebhookConfigurationsDefaultedAndValidated) {
  CommandResult created = kubectl("create -f " + manifest("vwc.yaml", R"(apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: policy-hooks
webhooks:
- name: pods.policy.example.com
  clientConfig:
    service:
      namespace: policy
      name: webhook
      path: /validate
  rules:
  - operations: ["CREATE", "UPDATE"]
    apiGroups: [""]
    apiVersions: ["v1"]
    resources: ["pods"]
  sideEffects: None
  admissionReviewVersions: ["v1"]
)"));
  ASSERT_EQ(created.output, "validatingwebhookconfiguration.admissionregistration.k8s.io/policy-hooks created\n");
  const json::object stored = json::parse(kubectl("get validatingwebhookconfiguration policy-hooks -o json").output).as_object();
  EXPECT_EQ(stored.at("metadata").at("generation"), 1);
  EXPECT_EQ(stored.at("webhooks").at(0), json::parse(R"({"name":"pods.policy.example.com",
      "clientConfig":{"service":{"namespace":"policy","name":"webhook","path":"/validate","port":443}},
      "rules":[{"operations":["CREATE","UPDATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["pods"],"scope":"*"}],
      "failurePolicy":"Fail","matchPolicy":"Equivalent","namespaceSelector":{},"objectSelector":{},
      "sideEffects":"None","timeoutSeconds":10,"admissionReviewVersions":["v1"]})"));
  EXPECT_EQ(squeezed(kubectl("get validatingwebhookconfigurations").output),
            "NAME  WEBHOOKS  AGE\npolicy-hooks  1  AGE\n");
  EXPECT_EQ(squeezed(kubectl("get validatingwebhookconfigurations -o wide").output),
            "NAME  WEBHOOKS  AGE\npolicy-hooks  1  AGE\n");

  // The api-extensions category gathers them with CRDs and APIServices.
  CommandResult category = kubectl("get api-extensions -o name");
  EXPECT_NE(category.output.find("validatingwebhookconfiguration.admissionregistration.k8s.io/policy-hooks\n"),
            std::string::npos)
      << category.output;

  // A strategic merge patch adds a webhook by name (patch items first, as kube's merge puts them); generation
  // follows.
  CommandResult patched = kubectl(R"(patch validatingwebhookconfiguration policy-hooks -p '{"webhooks":[{"name":"svc.policy.example.com",
      "clientConfig":{"url":"https://hooks.example.com/svc"},"sideEffects":"NoneOnDryRun","admissionReviewVersions":["v1","v1beta1"],
      "timeoutSeconds":5}]}')");
  EXPECT_EQ(patched.output, "validatingwebhookconfiguration.admissionregistration.k8s.io/policy-hooks patched\n");
  EXPECT_EQ(kubectl("get validatingwebhookconfiguration policy-hooks -o jsonpath={.metadata.generation}/"
                    "{.webhooks[*].name}/{.webhooks[0].failurePolicy}")
                .output,
            "2/svc.policy.example.com pods.policy.example.com/Fail");
  EXPECT_EQ(squeezed(kubectl("get validatingwebhookconfigurations --no-headers").output), "policy-hooks  2  AGE\n");
  // A metadata-only change leaves generation alone.
  kubectl("label validatingwebhookconfiguration policy-hooks team=platform");
  EXPECT_EQ(kubectl("get validatingwebhookconfiguration policy-hooks -o jsonpath={.metadata.generation}").output, "2");

  CommandResult mutating = kubectl("apply -f " + manifest("mwc.yaml", R"(apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: injector
webhooks:
- name: inject.example.com
  clientConfig:
    url: https://injector.example.com/mutate
  rules:
  - operations: ["CREATE"]
    apiGroups: [""]
    apiVersions: ["v1"]
    resources: ["pods"]
    scope: Namespaced
  sideEffects: None
  admissionReviewVersions: ["v1"]
  matchConditions:
  - name: not-kube-system
    expression: "request.namespace != 'kube-system'"
)"));
  ASSERT_EQ(mutating.output, "mutatingwebhookconfiguration.admissionregistration.k8s.io/injector created\n");
  EXPECT_EQ(kubectl("get mutatingwebhookconfiguration injector -o jsonpath={.webhooks[0].reinvocationPolicy}/"
                    "{.webhooks[0].timeoutSeconds}/{.webhooks[0].rules[0].scope}/{.webhooks[0].matchConditions[0].name}")
                .output,
            "Never/10/Namespaced/not-kube-system");
  EXPECT_EQ(squeezed(kubectl("get mutatingwebhookconfigurations").output), "NAME  WEBHOOKS  AGE\ninjector  1  AGE\n");
  CommandResult replaced = kubectl("replace -f " + manifest("mwc2.yaml", R"(apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: injector
webhooks:
- name: inject.example.com
  clientConfig:
    url: https://injector.example.com/mutate
  sideEffects: None
  reinvocationPolicy: IfNeeded
  admissionReviewVersions: ["v1"]
)"));
  EXPECT_EQ(replaced.output, "mutatingwebhookconfiguration.admissionregistration.k8s.io/injector replaced\n");
  EXPECT_EQ(kubectl("get mutatingwebhookconfiguration injector -o jsonpath={.metadata.generation}/"
                    "{.webhooks[0].reinvocationPolicy}")
                .output,
            "2/IfNeeded");

  CommandResult invalid = kubectl("create -f " + manifest("bad-vwc.yaml", R"(apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: bad
webhooks:
- name: bad
  clientConfig:
    url: http://hooks.example.com/x
  rules:
  - operations: ["CREATE", "*"]
    apiGroups: [""]
    apiVersions: ["v1"]
    resources: ["pods"]
  sideEffects: Some
  timeoutSeconds: 31
  admissionReviewVersions: ["v2"]
)"));
  EXPECT_NE(invalid.exit_code, 0);
  EXPECT_EQ(invalid.output,
            "The ValidatingWebhookConfiguration \"bad\" is invalid: \n"
            "* webhooks[0].name: Invalid value: \"bad\": should be a domain with at least three segments separated by dots\n"
            "* webhooks[0].rules[0].operations: Invalid value: []admissionregistration.OperationType{\"CREATE\", \"*\"}: "
            "if '*' is present, must not specify other operations\n"
            "* webhooks[0].sideEffects: Unsupported value: \"Some\": supported values: \"None\", \"NoneOnDryRun\"\n"
            "* webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds\n"
            "* webhooks[0].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired "
            "format: https://host[/path]\n"
            "* webhooks[0].admissionReviewVersions: Invalid value: []string{\"v2\"}: must include at least one of v1, v1beta1\n");
  CommandResult missing = kubectl("create -f " + manifest("missing-vwc.yaml", R"(apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: missing
webhooks:
- name: a.example.com
  clientConfig: {}
)"));
  EXPECT_EQ(missing.output,
            "The ValidatingWebhookConfiguration \"missing\" is invalid: \n"
            "* webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun\n"
            "* webhooks[0].clientConfig: Required value: exactly one of url or service is required\n"
            "* webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1\n");

  EXPECT_EQ(kubectl("delete validatingwebhookconfiguration policy-hooks").output,
            "validatingwebhookconfiguration.admissionregistration.k8s.io \"policy-hooks\" deleted\n");
  EXPECT_EQ(kubectl("delete mutatingwebhookconfiguration injector").output,
            "mutatingwebhookconfiguration.admissionregistration.k8s.io \"injector\" deleted\n");
}

TEST_F(CertificatesAdmissionRegistrationTest, AdmissionPoliciesAndBindings) {
  CommandResult created = kubectl("apply -f " + manifest("vap.yaml", R"yaml(apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: replica-limit
spec:
  paramKind:
    apiVersion: v1
    kind: ConfigMap
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments"]
  validations:
  - expression: "object.spec.replicas <= int(params.data.maxReplicas)"
    reason: Invalid
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: replica-limit-default
spec:
  policyName: replica-limit
  validationActions: [Deny, Audit]
  paramRef:
    name: limits
    namespace: default
    parameterNotFoundAction: Deny
)yaml"));
  ASSERT_EQ(created.output,
            "validatingadmissionpolicy.admissionregistration.k8s.io/replica-limit created\n"
            "validatingadmissionpolicybinding.admissionregistration.k8s.io/replica-limit-default created\n");
  // The status controller type checks the policy (against apps/v1 Deployment and v1 ConfigMap: no warnings) and
  // records the generation it checked, a moment after the create.
  std::string checked;
  for (auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
       std::chrono::steady_clock::now() < deadline; std::this_thread::sleep_for(std::chrono::milliseconds(50))) {
    checked = kubectl("get validatingadmissionpolicy replica-limit -o jsonpath={.spec.failurePolicy}/"
                      "{.spec.matchConstraints.matchPolicy}/{.spec.matchConstraints.namespaceSelector}/"
                      "{.metadata.generation}/{.status}")
                  .output;
    if (checked.find("observedGeneration") != std::string::npos) break;
  }
  EXPECT_EQ(checked, "Fail/Equivalent/{}/1/{\"observedGeneration\":1,\"typeChecking\":{}}");
  EXPECT_EQ(squeezed(kubectl("get validatingadmissionpolicies").output),
            "NAME  VALIDATIONS  PARAMKIND  AGE\nreplica-limit  1  v1/ConfigMap  AGE\n");
  EXPECT_EQ(squeezed(kubectl("get validatingadmissionpolicybindings").output),
            "NAME  POLICYNAME  PARAMREF  AGE\nreplica-limit-default  replica-limit  default/limits  AGE\n");
  // Status is the type checker's, through /status only; spec changes count in generation.
  CommandResult status = kubectl(R"(patch validatingadmissionpolicy replica-limit --subresource=status --type=merge -p '{"status":{"observedGeneration":1,"conditions":[{"type":"Ready","status":"True","reason":"Checked","message":"","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}')");
  EXPECT_EQ(status.output, "validatingadmissionpolicy.admissionregistration.k8s.io/replica-limit patched\n");
  CommandResult bad_status = kubectl(R"(patch validatingadmissionpolicy replica-limit --subresource=status --type=merge -p '{"status":{"conditions":[{"type":"Ready","status":"Maybe","reason":"Checked","message":"","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}')");
  EXPECT_NE(bad_status.output.find("status.conditions[0].status: Unsupported value: \"Maybe\": supported values: "
                                   "\"False\", \"True\", \"Unknown\""),
            std::string::npos)
      << bad_status.output;
  kubectl(R"(patch validatingadmissionpolicy replica-limit --type=merge -p '{"spec":{"failurePolicy":"Ignore"}}')");
  EXPECT_EQ(kubectl("get validatingadmissionpolicy replica-limit -o jsonpath={.metadata.generation}/"
                    "{.status.conditions[0].reason}/{.spec.failurePolicy}")
                .output,
            "2/Checked/Ignore");

  CommandResult invalid = kubectl("create -f " + manifest("bad-binding.yaml", R"(apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: bad-binding
spec:
  validationActions: [Deny, Warn]
  paramRef:
    name: limits
    selector: {}
)"));
  EXPECT_EQ(invalid.output,
            "The ValidatingAdmissionPolicyBinding \"bad-binding\" is invalid: \n"
            "* spec.policyName: Required value\n"
            "* spec.paramRef.name: Forbidden: name and selector are mutually exclusive\n"
            "* spec.paramRef.selector: Forbidden: name and selector are mutually exclusive\n"
            "* spec.paramRef.parameterNotFoundAction: Required value\n"
            "* spec.validationActions: Invalid value: []admissionregistration.ValidationAction{\"Deny\", \"Warn\"}: must "
            "not contain both Deny and Warn (repeating the same validation failure information in the API response "
            "and headers serves no purpose)\n");
  CommandResult no_rules = kubectl("create -f " + manifest("bad-vap.yaml", R"(apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: bad-policy
spec:
  failurePolicy: Sometimes
)"));
  EXPECT_EQ(no_rules.output,
            "The ValidatingAdmissionPolicy \"bad-policy\" is invalid: \n"
            "* spec.failurePolicy: Unsupported value: \"Sometimes\": supported values: \"Fail\", \"Ignore\"\n"
            "* spec.matchConstraints: Required value\n"
            "* spec.validations: Required value: validations or auditAnnotations must contain at least one item\n"
            "* spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item\n");

  EXPECT_EQ(kubectl("delete validatingadmissionpolicybinding replica-limit-default").output,
            "validatingadmissionpolicybinding.admissionregistration.k8s.io \"replica-limit-default\" deleted\n");
  EXPECT_EQ(kubectl("delete validatingadmissionpolicy replica-limit").output,
            "validatingadmissionpolicy.admissionregistration.k8s.io \"replica-limit\" deleted\n");
}

TEST_F(CertificatesAdmissionRegistrationTest, DiscoveryRowsAsKube) {
  EXPECT_EQ(squeezed(kubectl("api-resources --api-group=certificates.k8s.io -o wide").output),
            "NAME  SHORTNAMES  APIVERSION  NAMESPACED  KIND  VERBS  CATEGORIES\n"
            "certificatesigningrequests  csr  certificates.k8s.io/v1  false  CertificateSigningRequest  "
            "create,delete,deletecollection,get,list,patch,update,watch  \n");
  EXPECT_EQ(squeezed(kubectl("api-resources --api-group=admissionregistration.k8s.io -o wide").output),
            "NAME  SHORTNAMES  APIVERSION  NAMESPACED  KIND  VERBS  CATEGORIES\n"
            "mutatingwebhookconfigurations  admissionregistration.k8s.io/v1  false  MutatingWebhookConfiguration  "
            "create,delete,deletecollection,get,list,patch,update,watch  api-extensions\n"
            "validatingadmissionpolicies  admissionregistration.k8s.io/v1  false  ValidatingAdmissionPolicy  "
            "create,delete,deletecollection,get,list,patch,update,watch  api-extensions\n"
            "validatingadmissionpolicybindings  admissionregistration.k8s.io/v1  false  "
            "ValidatingAdmissionPolicyBinding  create,delete,deletecollection,get,list,patch,update,watch  api-extensions\n"
            "validatingwebhookconfigurations  admissionregistration.k8s.io/v1  false  ValidatingWebhookConfiguration  "
            "create,delete,deletecollection,get,list,patch,update,watch  api-extensions\n");
  CommandResult subresources = kubectl("get --raw /apis/certificates.k8s.io/v1");
  EXPECT_NE(subresources.output.find("{\"name\":\"certificatesigningrequests/approval\",\"singularName\":\"\","
                                     "\"namespaced\":false,\"kind\":\"CertificateSigningRequest\",\"verbs\":[\"get\","
                                     "\"patch\",\"update\"]}"),
            std::string::npos)
      << subresources.output;
  // The OpenAPI documents kubectl explain reads come from the same types.
  CommandResult explained = kubectl("explain csr.spec.signerName");
  EXPECT_NE(explained.output.find("signerName indicates the requested signer, and is a qualified name."),
            std::string::npos)
      << explained.output;
  CommandResult webhook = kubectl("explain validatingwebhookconfiguration.webhooks.timeoutSeconds");
  EXPECT_NE(webhook.output.find("FIELD: timeoutSeconds <integer>"), std::string::npos) << webhook.output;
}

TEST_F(CertificatesAdmissionRegistrationTest, ProtobufBodiesAndReads) {
  static const schema::Catalog catalog = schema::Catalog::builtin();
  const schema::Transcoder transcoder(catalog);
  const std::vector<std::pair<std::string, std::string>> protobuf{
      {"Content-Type", "application/vnd.kubernetes.protobuf"}, {"Accept", "application/vnd.kubernetes.protobuf"}};
  const std::vector<std::pair<std::string, std::string>> as_json{{"Accept", "application/json"}};
  // A CSR (bytes, a string list, a pointer int) and a webhook configuration (inlined rules, defaults).
  const json::object csr{
      {"apiVersion", "certificates.k8s.io/v1"}, {"kind", "CertificateSigningRequest"},
      {"metadata", json::object{{"name", "proto-csr"}}},
      {"spec", json::object{{"request", base::base64_encode(openssl_pem("proto", "/O=devs/CN=jane"))},
                            {"signerName", "example.com/signer"}, {"expirationSeconds", 3600},
                            {"usages", json::array{"client auth"}}}}};
  const std::string csrs = "/apis/certificates.k8s.io/v1/certificatesigningrequests";
  // Created as an impersonated user with extra values: the requestor has them all (spec.extra, a map of lists).
  // (system:masters, for RBAC to let the impersonated user create it.)
  auto impersonating = protobuf;
  impersonating.insert(impersonating.end(), {{"Impersonate-User", "jane"}, {"Impersonate-Group", "system:masters"},
                                             {"Impersonate-Extra-Scopes", "view"}});
  HttpResponse created = kapi().connect_admin().request("POST", csrs, impersonating, transcoder.encode(csr));
  ASSERT_EQ(created.status, 201) << created.body;
  json::object from_protobuf = transcoder.decode(created.body);
  json::object from_json = json_object(kapi().connect_admin().request("GET", csrs + "/proto-csr", as_json).body);
  EXPECT_EQ(from_protobuf, from_json);
  EXPECT_EQ(from_json["spec"].at("request"), csr.at("spec").at("request"));
  EXPECT_EQ(from_json["spec"].at("expirationSeconds"), 3600);
  EXPECT_EQ(from_json["spec"].at("username"), "jane");
  EXPECT_EQ(from_json["spec"].at("groups"), json::parse(R"(["system:masters","system:authenticated"])"));
  EXPECT_EQ(from_json["spec"].at("extra"), json::parse(R"({"scopes":["view"]})"));
  EXPECT_EQ(transcoder.decode(kapi().connect_admin().request("GET", csrs + "/proto-csr", protobuf).body), from_json);

  const json::object configuration = json::parse(R"({"apiVersion":"admissionregistration.k8s.io/v1",
      "kind":"MutatingWebhookConfiguration","metadata":{"name":"proto-hooks"},"webhooks":[{"name":"a.example.com",
      "clientConfig":{"url":"https://a.example.com/x","caBundle":"Y2E="},"sideEffects":"None",
      "admissionReviewVersions":["v1"],"rules":[{"operations":["*"],"apiGroups":["*"],"apiVersions":["*"],
      "resources":["*/*"]}]}]})").as_object();
  const std::string hooks = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations";
  HttpResponse stored = kapi().connect_admin().request("POST", hooks, protobuf, transcoder.encode(configuration));
  ASSERT_EQ(stored.status, 201) << stored.body;
  json::object webhook = transcoder.decode(stored.body)["webhooks"].as_array().at(0).as_object();
  EXPECT_EQ(webhook["rules"], json::parse(R"([{"operations":["*"],"apiGroups":["*"],"apiVersions":["*"],
      "resources":["*/*"],"scope":"*"}])"));
  EXPECT_EQ(webhook["clientConfig"].at("caBundle"), "Y2E=");
  EXPECT_EQ(webhook["reinvocationPolicy"], "Never");
  HttpResponse read = kapi().connect_admin().request("GET", hooks + "/proto-hooks", protobuf);
  EXPECT_EQ(transcoder.decode(read.body),
            json_object(kapi().connect_admin().request("GET", hooks + "/proto-hooks", as_json).body));
  EXPECT_EQ(kapi().connect_admin().request("DELETE", hooks + "/proto-hooks").status, 200);
  EXPECT_EQ(kapi().connect_admin().request("DELETE", csrs + "/proto-csr").status, 200);
}

// kube's etcd keys: /registry/<resource>/<name> for each of these cluster-scoped kinds.
TEST(CertificatesAdmissionRegistrationStorageTest, KeysAsKubeApiserverWritesThem) {
  test_support::EtcdProcess etcd;
  KapiProcess kapi({.extra_flags = {"--etcd-servers=" + etcd.endpoint()}});
  const std::string pem = (kapi.work_dir() / "key-csr.pem").string();
  ASSERT_EQ(test_support::run_command("openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout '" +
                                      (kapi.work_dir() / "key-csr.key").string() + "' -subj /CN=jane -out '" + pem + "'")
                .exit_code,
            0);
  const std::string objects = R"(apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata:
  name: c
spec:
  request: )" + base::base64_encode(read_file(pem)) + R"(
  signerName: example.com/signer
  usages: [client auth]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: v
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: m
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: p
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  validations: [{expression: "true"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: b
spec:
  policyName: p
  validationActions: [Deny]
)";
  CommandResult created = run_kubectl(kapi, "create -f " + write_manifest(kapi, "keys.yaml", objects));
  ASSERT_EQ(created.exit_code, 0) << created.output;
  const std::string keys = etcd.etcdctl("get /registry --prefix --keys-only");
  for (const char* key : {"/registry/certificatesigningrequests/c", "/registry/validatingwebhookconfigurations/v",
                          "/registry/mutatingwebhookconfigurations/m", "/registry/validatingadmissionpolicies/p",
                          "/registry/validatingadmissionpolicybindings/b"})
    EXPECT_NE(keys.find(std::string(key) + "\n"), std::string::npos) << key << " missing from\n" << keys;
  EXPECT_EQ(kapi.shut_down(std::chrono::seconds(20)), 0) << kapi.logs();
}

}  // namespace
}  // namespace kapi::integration::certificates_admissionregistration_test
