// kube's default admission plugins for resources, through a real kapi and the real kubectl 1.32: LimitRanger
// defaults a pod's requests and limits and refuses one over a range's max; DefaultStorageClass and
// StorageObjectInUseProtection give a claim its class and finalizer; PersistentVolumeClaimResize refuses growing a
// claim whose class does not allow expansion; DefaultIngressClass gives an Ingress its class; CertificateApproval
// refuses an approval by a user without `approve` on the signer.
#include "base/base64.h"
#include "tests/integration/kapi_suite.h"
#include "tests/integration/kubectl_runner.h"

#include <boost/json.hpp>

#include <chrono>
#include <thread>

namespace kapi::integration::resource_admission_test {
namespace {

namespace json = boost::json;
using Headers = std::vector<std::pair<std::string, std::string>>;

const Headers kJson{{"Content-Type", "application/json"}};
const Headers kMergePatch{{"Content-Type", "application/merge-patch+json"}};

// A kubelet client CSR (O=system:nodes, CN=system:node:worker-1), ECDSA P-256, made once with the openssl CLI.
constexpr std::string_view kCsrPem = R"(-----BEGIN CERTIFICATE REQUEST-----
MIHwMIGYAgEAMDYxFTATBgNVBAoMDHN5c3RlbTpub2RlczEdMBsGA1UEAwwUc3lz
dGVtOm5vZGU6d29ya2VyLTEwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAATZyFys
WgEXrF96qAhAbdJoP5SKnCAEphoZRbdSyBBeMbuoSEFyew38s8tgWnB5+jQwQNB3
HyjY2OHHeyg8ORp/oAAwCgYIKoZIzj0EAwIDRwAwRAIgOwhBtyYH0Ojel5cDJRt4
jF5Ai3fxs8c/gSRIz82v6EQCIA4i66w6/71322/mzvfypePeDbY6urwwbwEEcNDH
4Jgy
-----END CERTIFICATE REQUEST-----
)";

class ResourceAdmissionTest : public KapiSuite<ResourceAdmissionTest> {
 public:
  static KapiOptions kapi_options() {
    return with_token_users("resource-admission", "approver-token,jane,jane-uid,\"devs\"\n",
                            {"--authorization-mode=RBAC"});
  }

 protected:
  HttpResponse call(std::string_view method, std::string_view target, std::string_view body = {},
                    const Headers& headers = kJson) {
    return kapi().connect_admin().request(method, target, headers, body);
  }
  HttpResponse call_as_jane(std::string_view method, std::string_view target, std::string_view body) {
    Headers headers = kJson;
    headers.emplace_back("Authorization", "Bearer approver-token");
    return kapi().connect_anonymous().request(method, target, headers, body);
  }
  void create_namespace(std::string_view name) {
    ASSERT_EQ(call("POST", "/api/v1/namespaces",
                   R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")" + std::string(name) + R"("}})")
                  .status,
              201);
  }
  // A ClusterRole with these rules, bound to jane.
  void grant_jane(const std::string& role, const std::string& rules) {
    HttpResponse made = call("POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles",
                             R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":")" +
                                 role + R"("},"rules":)" + rules + "}");
    ASSERT_EQ(made.status, 201) << made.body;
    HttpResponse bound = call("POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
                              R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding",
        "metadata":{"name":"jane-)" + role + R"("},"roleRef":{"apiGroup":"rbac.authorization.k8s.io",
        "kind":"ClusterRole","name":")" + role + R"("},"subjects":[{"apiGroup":"rbac.authorization.k8s.io",
        "kind":"User","name":"jane"}]})");
    ASSERT_EQ(bound.status, 201) << bound.body;
  }
  // `kubectl auth can-i` as jane, polled until RBAC's authorizer holds what was just bound (bounded).
  void await_jane_may(const std::string& question) {
    const std::string kubeconfig = "--kubeconfig " + token_kubeconfig(kapi(), "approver-token") + " ";
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    for (CommandResult answer; !(answer = run_kubectl(kapi(), kubeconfig + "auth can-i " + question)).output.ends_with("yes\n");) {
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "never allowed: " << question << ": " << answer.output;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
};

TEST_F(ResourceAdmissionTest, ALimitRangeDefaultsAPodAndRefusesOneOverItsMax) {
  create_namespace("limited");
  const std::string range = R"({"apiVersion":"v1","kind":"LimitRange","metadata":{"name":"cpu-and-memory"},
      "spec":{"limits":[{"type":"Container","default":{"cpu":"0.5","memory":"256Mi"},
                         "defaultRequest":{"cpu":"100m"},"max":{"cpu":"1"},"min":{"cpu":"50m"}}]}})";
  ASSERT_EQ(call("POST", "/api/v1/namespaces/limited/limitranges", range).status, 201);

  const std::string pods = "/api/v1/namespaces/limited/pods";
  HttpResponse created = call("POST", pods, R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"plain"},
      "spec":{"containers":[{"name":"app","image":"nginx"}]}})");
  ASSERT_EQ(created.status, 201) << created.body;
  json::object pod = json_object(created.body);
  const json::value& resources = pod["spec"].at("containers").at(0).at("resources");
  EXPECT_EQ(resources.at("requests"), json::parse(R"({"cpu":"100m","memory":"256Mi"})")) << created.body;
  EXPECT_EQ(resources.at("limits"), json::parse(R"({"cpu":"500m","memory":"256Mi"})")) << created.body;
  EXPECT_EQ(pod["metadata"].at("annotations").at("kubernetes.io/limit-ranger"),
            "LimitRanger plugin set: cpu, memory request for container app; cpu, memory limit for container app");
  // kube computes the QoS class after admission: from the defaulted resources.
  EXPECT_EQ(pod["status"].at("qosClass"), "Burstable");

  HttpResponse refused = call("POST", pods, R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"big"},
      "spec":{"containers":[{"name":"app","image":"nginx","resources":{"limits":{"cpu":"2"},"requests":{"cpu":"10m"}}}]}})");
  EXPECT_TRUE(is_status(refused, 403, "Forbidden"));
  EXPECT_EQ(status_message(refused),
            "pods \"big\" is forbidden: [minimum cpu usage per Container is 50m, but request is 10m, "
            "maximum cpu usage per Container is 1, but limit is 2]");
  EXPECT_EQ(json_object(refused.body)["details"], json::parse(R"({"name":"big","kind":"pods"})"));

  // The same through kubectl.
  const std::string manifest = write_manifest(kapi(), "big-pod.yaml",
                                              "apiVersion: v1\nkind: Pod\nmetadata:\n  name: big\n  namespace: limited\n"
                                              "spec:\n  containers:\n  - name: app\n    image: nginx\n    resources:\n"
                                              "      limits:\n        cpu: \"2\"\n");
  CommandResult kubectl = run_kubectl(kapi(), "create -f " + manifest);
  EXPECT_NE(kubectl.exit_code, 0);
  EXPECT_EQ(kubectl.output, "Error from server (Forbidden): error when creating \"" + manifest +
                                "\": pods \"big\" is forbidden: maximum cpu usage per Container is 1, but limit is 2\n");
  CommandResult run = run_kubectl(kapi(), "-n limited run web --image=nginx --restart=Never");
  EXPECT_EQ(run.output, "pod/web created\n");
  EXPECT_EQ(run_kubectl(kapi(), "-n limited get pod web -o jsonpath={.spec.containers[0].resources}").output,
            R"({"limits":{"cpu":"500m","memory":"256Mi"},"requests":{"cpu":"100m","memory":"256Mi"}})");
}

TEST_F(ResourceAdmissionTest, AClaimGetsTheDefaultStorageClassAndTheProtectionFinalizer) {
  ASSERT_EQ(call("POST", "/apis/storage.k8s.io/v1/storageclasses", R"({"apiVersion":"storage.k8s.io/v1",
      "kind":"StorageClass","metadata":{"name":"standard","annotations":{
      "storageclass.kubernetes.io/is-default-class":"true"}},"provisioner":"example.com/disk"})").status, 201);
  ASSERT_TRUE(listed_in_cache(kapi(), "/apis/storage.k8s.io/v1/storageclasses", "standard"));
  const std::string claims = "/api/v1/namespaces/default/persistentvolumeclaims";
  HttpResponse created = call("POST", claims, R"({"apiVersion":"v1","kind":"PersistentVolumeClaim",
      "metadata":{"name":"data"},"spec":{"accessModes":["ReadWriteOnce"],
      "resources":{"requests":{"storage":"1Gi"}}}})");
  ASSERT_EQ(created.status, 201) << created.body;
  json::object claim = json_object(created.body);
  EXPECT_EQ(claim["spec"].at("storageClassName"), "standard");
  EXPECT_EQ(claim["metadata"].at("finalizers"), json::parse(R"(["kubernetes.io/pvc-protection"])"));
  // A claim asking for no class ("") keeps that.
  HttpResponse classless = call("POST", claims, R"({"apiVersion":"v1","kind":"PersistentVolumeClaim",
      "metadata":{"name":"classless"},"spec":{"storageClassName":"","accessModes":["ReadWriteOnce"],
      "resources":{"requests":{"storage":"1Gi"}}}})");
  ASSERT_EQ(classless.status, 201) << classless.body;
  EXPECT_EQ(json_object(classless.body)["spec"].at("storageClassName"), "");

  HttpResponse volume = call("POST", "/api/v1/persistentvolumes", R"({"apiVersion":"v1","kind":"PersistentVolume",
      "metadata":{"name":"pv-data"},"spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],
      "hostPath":{"path":"/tmp/pv-data"}}})");
  ASSERT_EQ(volume.status, 201) << volume.body;
  EXPECT_EQ(json_object(volume.body)["metadata"].at("finalizers"), json::parse(R"(["kubernetes.io/pv-protection"])"));
  EXPECT_EQ(run_kubectl(kapi(), "get pvc data -o jsonpath={.spec.storageClassName}/{.metadata.finalizers}").output,
            R"(standard/["kubernetes.io/pvc-protection"])");
}

TEST_F(ResourceAdmissionTest, GrowingAClaimNeedsAClassThatAllowsExpansion) {
  ASSERT_EQ(call("POST", "/apis/storage.k8s.io/v1/storageclasses", R"({"apiVersion":"storage.k8s.io/v1",
      "kind":"StorageClass","metadata":{"name":"fixed"},"provisioner":"example.com/disk"})").status, 201);
  ASSERT_EQ(call("POST", "/apis/storage.k8s.io/v1/storageclasses", R"({"apiVersion":"storage.k8s.io/v1",
      "kind":"StorageClass","metadata":{"name":"growing"},"provisioner":"example.com/disk",
      "allowVolumeExpansion":true})").status, 201);
  const std::string claims = "/api/v1/namespaces/default/persistentvolumeclaims";
  for (std::string name : {"fixed", "growing"}) {
    HttpResponse created = call("POST", claims, R"({"apiVersion":"v1","kind":"PersistentVolumeClaim",
        "metadata":{"name":")" + name + R"("},"spec":{"storageClassName":")" + name + R"(",
        "accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}})");
    ASSERT_EQ(created.status, 201) << created.body;
    // What the volume binder would record.
    HttpResponse bound = call("PATCH", claims + "/" + name + "/status",
                              R"({"status":{"phase":"Bound","capacity":{"storage":"1Gi"}}})", kMergePatch);
    ASSERT_EQ(bound.status, 200) << bound.body;
  }
  const std::string grow = R"({"spec":{"resources":{"requests":{"storage":"2Gi"}}}})";
  HttpResponse refused = call("PATCH", claims + "/fixed", grow, kMergePatch);
  EXPECT_TRUE(is_status(refused, 403, "Forbidden"));
  EXPECT_EQ(status_message(refused),
            "persistentvolumeclaims \"fixed\" is forbidden: only dynamically provisioned pvc can be resized and the "
            "storageclass that provisions the pvc must support resize");
  HttpResponse grown = call("PATCH", claims + "/growing", grow, kMergePatch);
  ASSERT_EQ(grown.status, 200) << grown.body;
  EXPECT_EQ(json_object(grown.body)["spec"].at("resources").at("requests").at("storage"), "2Gi");

  CommandResult kubectl = run_kubectl(kapi(), "patch pvc fixed --type=merge -p '" + grow + "'");
  EXPECT_EQ(kubectl.output,
            "Error from server (Forbidden): persistentvolumeclaims \"fixed\" is forbidden: only dynamically "
            "provisioned pvc can be resized and the storageclass that provisions the pvc must support resize\n");
}

TEST_F(ResourceAdmissionTest, AnIngressGetsTheDefaultIngressClass) {
  ASSERT_EQ(call("POST", "/apis/networking.k8s.io/v1/ingressclasses", R"({"apiVersion":"networking.k8s.io/v1",
      "kind":"IngressClass","metadata":{"name":"nginx","annotations":{
      "ingressclass.kubernetes.io/is-default-class":"true"}},"spec":{"controller":"k8s.io/ingress-nginx"}})").status,
            201);
  ASSERT_TRUE(listed_in_cache(kapi(), "/apis/networking.k8s.io/v1/ingressclasses", "nginx"));
  HttpResponse created = call("POST", "/apis/networking.k8s.io/v1/namespaces/default/ingresses",
                              R"({"apiVersion":"networking.k8s.io/v1","kind":"Ingress","metadata":{"name":"web"},
      "spec":{"defaultBackend":{"service":{"name":"web","port":{"number":80}}}}})");
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(json_object(created.body)["spec"].at("ingressClassName"), "nginx");
  CommandResult kubectl = run_kubectl(kapi(), "create ingress shop --rule=shop.example.com/=shop:80");
  EXPECT_EQ(kubectl.output, "ingress.networking.k8s.io/shop created\n");
  EXPECT_EQ(run_kubectl(kapi(), "get ingress shop -o jsonpath={.spec.ingressClassName}").output, "nginx");
}

TEST_F(ResourceAdmissionTest, ApprovingNeedsTheApproveVerbOnTheSigner) {
  // jane may write approvals, but not approve for example.com's signers.
  grant_jane("csr-writer", R"([{"apiGroups":["certificates.k8s.io"],"verbs":["get","list","update"],
      "resources":["certificatesigningrequests","certificatesigningrequests/approval"]}])");
  await_jane_may("update certificatesigningrequests.certificates.k8s.io/approval");
  const std::string csrs = "/apis/certificates.k8s.io/v1/certificatesigningrequests";
  HttpResponse created = call("POST", csrs, R"({"apiVersion":"certificates.k8s.io/v1",
      "kind":"CertificateSigningRequest","metadata":{"name":"example"},"spec":{"request":")" +
                                                base::base64_encode(kCsrPem) + R"(",
      "signerName":"example.com/signer","usages":["digital signature","client auth"]}})");
  ASSERT_EQ(created.status, 201) << created.body;
  json::object csr = json_object(created.body);
  csr["status"] = json::object{{"conditions", json::array{json::object{{"type", "Approved"}, {"status", "True"},
                                                                         {"reason", "Test"}}}}};
  HttpResponse refused = call_as_jane("PUT", csrs + "/example/approval", json::serialize(csr));
  EXPECT_TRUE(is_status(refused, 403, "Forbidden"));
  EXPECT_EQ(status_message(refused),
            "certificatesigningrequests.certificates.k8s.io \"example\" is forbidden: user not permitted to approve "
            "requests with signerName \"example.com/signer\"");
  CommandResult kubectl = run_kubectl(
      kapi(), "--kubeconfig " + token_kubeconfig(kapi(), "approver-token") + " certificate approve example");
  EXPECT_NE(kubectl.exit_code, 0);
  EXPECT_NE(kubectl.output.find("certificatesigningrequests.certificates.k8s.io \"example\" is forbidden: user not "
                                "permitted to approve requests with signerName \"example.com/signer\""),
            std::string::npos)
      << kubectl.output;

  // `approve` on the signer's domain is enough.
  grant_jane("example-approver", R"([{"apiGroups":["certificates.k8s.io"],"verbs":["approve"],
      "resources":["signers"],"resourceNames":["example.com/*"]}])");
  // (kubectl auth can-i cannot ask about a name holding '/': the approval itself is retried until RBAC's
  // authorizer holds the new binding, bounded.)
  HttpResponse approved;
  for (auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
       (approved = call_as_jane("PUT", csrs + "/example/approval", json::serialize(csr))).status == 403 &&
       std::chrono::steady_clock::now() < deadline;)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(approved.status, 200) << approved.body;
  EXPECT_EQ(run_kubectl(kapi(), "get csr example -o jsonpath={.status.conditions[0].type}").output, "Approved");
}

}  // namespace
}  // namespace kapi::integration::resource_admission_test
