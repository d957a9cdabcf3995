// The pod admission plugins kube-apiserver runs by default, through a real kapi: ServiceAccount (the default
// account, the kube-api-access projected volume and its mounts), Priority, DefaultTolerationSeconds, RuntimeClass
// and TaintNodesByCondition, with kube's refusals as the API and kubectl show them.
#include "tests/integration/kapi_suite.h"
#include "tests/integration/kubectl_runner.h"

#include <regex>
#include <thread>

namespace kapi::integration::pod_admission_test {
namespace {

using Headers = std::vector<std::pair<std::string, std::string>>;
namespace json = boost::json;

const Headers kJson{{"Content-Type", "application/json"}};
constexpr std::string_view kNamespace = "admitted";

std::string pod_body(std::string_view name, std::string_view spec_extra = "") {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + std::string(name) + R"("},"spec":{)" +
         std::string(spec_extra) + (spec_extra.empty() ? "" : ",") +
         R"("initContainers":[{"name":"setup","image":"busybox"}],"containers":[{"name":"app","image":"nginx"}]}})";
}

std::string pods_in(std::string_view namespace_) { return "/api/v1/namespaces/" + std::string(namespace_) + "/pods"; }

class PodAdmissionTest : public KapiSuite<PodAdmissionTest> {
 public:
  static void SetUpTestSuite() {
    KapiSuite::SetUpTestSuite();
    HttpConnection admin = kapi().connect_admin();
    admin.request("POST", "/api/v1/namespaces", kJson,
                  R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")" + std::string(kNamespace) + R"("}})");
    // The service accounts controller makes the namespace's default account; the suite gives it a pull secret.
    const std::string account = "/api/v1/namespaces/" + std::string(kNamespace) + "/serviceaccounts/default";
    ASSERT_EQ(await_status(account, 200), 200);
    HttpResponse patched = admin.request("PATCH", account, {{"Content-Type", "application/merge-patch+json"}},
                                         R"({"imagePullSecrets":[{"name":"registry"}]})");
    ASSERT_EQ(patched.status, 200) << patched.body;
  }
  // The status a GET of `target` answers once it is `expected` (bounded: controllers act on what they watch).
  static int await_status(const std::string& target, int expected) {
    int status = 0;
    for (auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
         std::chrono::steady_clock::now() < deadline; std::this_thread::sleep_for(std::chrono::milliseconds(20)))
      if ((status = kapi().connect_admin().request("GET", target).status) == expected) break;
    return status;
  }

 protected:
  HttpResponse call(std::string_view method, std::string_view target, std::string_view body = {}) {
    return kapi().connect_admin().request(method, target, kJson, body);
  }
};

TEST_F(PodAdmissionTest, APodRunsAsTheDefaultAccountWithItsTokenVolumeTolerationsAndPriority) {
  HttpResponse created = call("POST", pods_in(kNamespace), pod_body("web"));
  ASSERT_EQ(created.status, 201) << created.body;
  HttpResponse read = call("GET", pods_in(kNamespace) + "/web");
  ASSERT_EQ(read.status, 200);
  json::object pod = json_object(read.body);
  EXPECT_EQ(json_object(created.body)["spec"], pod["spec"]) << "what create answered is what was stored";
  json::object& spec = pod["spec"].as_object();

  EXPECT_EQ(spec["serviceAccountName"], "default");
  EXPECT_EQ(spec["serviceAccount"], "default") << "the deprecated alias, as kube's conversion fills it";
  EXPECT_EQ(spec["imagePullSecrets"], json::parse(R"([{"name":"registry"}])"));
  ASSERT_TRUE(spec["volumes"].is_array()) << read.body;
  ASSERT_EQ(spec["volumes"].as_array().size(), 1u) << read.body;
  json::object volume = spec["volumes"].as_array()[0].as_object();
  const std::string volume_name(volume["name"].as_string());
  EXPECT_TRUE(std::regex_match(volume_name, std::regex("kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}")))
      << volume_name;
  volume.erase("name");
  EXPECT_EQ(json::value(volume), json::parse(R"({"projected":{"sources":[
      {"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}},
      {"configMap":{"name":"kube-root-ca.crt","items":[{"key":"ca.crt","path":"ca.crt"}]}},
      {"downwardAPI":{"items":[{"path":"namespace","fieldRef":{"apiVersion":"v1","fieldPath":"metadata.namespace"}}]}}],
      "defaultMode":420}})"));
  const json::value mount = json::parse(R"({"name":")" + volume_name +
                                        R"(","readOnly":true,"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"})");
  EXPECT_EQ(spec["initContainers"].as_array()[0].at("volumeMounts"), json::value(json::array{mount}));
  EXPECT_EQ(spec["containers"].as_array()[0].at("volumeMounts"), json::value(json::array{mount}));

  EXPECT_EQ(spec["tolerations"], json::parse(R"([
      {"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},
      {"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}])"));
  EXPECT_EQ(spec["priority"], 0);
  EXPECT_EQ(spec["preemptionPolicy"], "PreemptLowerPriority");
  EXPECT_FALSE(spec.contains("priorityClassName"));
}

TEST_F(PodAdmissionTest, ASystemPriorityClassGivesItsPriority) {
  HttpResponse created =
      call("POST", pods_in(kNamespace), pod_body("critical", R"("priorityClassName":"system-cluster-critical")"));
  ASSERT_EQ(created.status, 201) << created.body;
  json::object spec = json_object(created.body)["spec"].as_object();
  EXPECT_EQ(spec["priority"], 2000000000);
  EXPECT_EQ(spec["preemptionPolicy"], "PreemptLowerPriority");
}

TEST_F(PodAdmissionTest, AutomountFalseLeavesThePodWithoutATokenVolume) {
  HttpResponse created =
      call("POST", pods_in(kNamespace), pod_body("quiet", R"("automountServiceAccountToken":false)"));
  ASSERT_EQ(created.status, 201) << created.body;
  json::object spec = json_object(created.body)["spec"].as_object();
  EXPECT_FALSE(spec.contains("volumes")) << created.body;
  EXPECT_FALSE(spec["containers"].as_array()[0].as_object().contains("volumeMounts"));
}

TEST_F(PodAdmissionTest, APodNamingAMissingServiceAccountIsForbidden) {
  HttpResponse refused = call("POST", pods_in(kNamespace), pod_body("ghostly", R"("serviceAccountName":"ghost")"));
  EXPECT_TRUE(is_status(refused, 403, "Forbidden"));
  EXPECT_EQ(status_message(refused), "pods \"ghostly\" is forbidden: error looking up service account " +
                                         std::string(kNamespace) + "/ghost: serviceaccount \"ghost\" not found");
  EXPECT_EQ(call("GET", pods_in(kNamespace) + "/ghostly").status, 404);

  auto result = run_kubectl(kapi(), "-n " + std::string(kNamespace) +
                                        " run ghostly --image=nginx --overrides='{\"spec\":{\"serviceAccountName\":\"ghost\"}}'");
  EXPECT_NE(result.exit_code, 0);
  EXPECT_EQ(result.output, "Error from server (Forbidden): pods \"ghostly\" is forbidden: error looking up service "
                           "account " + std::string(kNamespace) + "/ghost: serviceaccount \"ghost\" not found\n");
}

TEST_F(PodAdmissionTest, APodNamingAMissingPriorityClassIsForbidden) {
  HttpResponse refused = call("POST", pods_in(kNamespace), pod_body("nameless", R"("priorityClassName":"nope")"));
  EXPECT_TRUE(is_status(refused, 403, "Forbidden"));
  EXPECT_EQ(status_message(refused), "pods \"nameless\" is forbidden: no PriorityClass with name nope was found");

  auto result = run_kubectl(kapi(), "-n " + std::string(kNamespace) +
                                        " run nameless --image=nginx --overrides='{\"spec\":{\"priorityClassName\":\"nope\"}}'");
  EXPECT_NE(result.exit_code, 0);
  EXPECT_EQ(result.output,
            "Error from server (Forbidden): pods \"nameless\" is forbidden: no PriorityClass with name nope was found\n");
}

TEST_F(PodAdmissionTest, APodNamingAMissingRuntimeClassIsForbidden) {
  HttpResponse refused = call("POST", pods_in(kNamespace), pod_body("sandboxed", R"("runtimeClassName":"kata")"));
  EXPECT_TRUE(is_status(refused, 403, "Forbidden"));
  EXPECT_EQ(status_message(refused), "pods \"sandboxed\" is forbidden: pod rejected: RuntimeClass \"kata\" not found");
}

TEST_F(PodAdmissionTest, OnlyOnePriorityClassMayBeTheGlobalDefault) {
  ASSERT_EQ(call("POST", "/apis/scheduling.k8s.io/v1/priorityclasses",
                 R"({"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"first-default"},
                     "value":7,"globalDefault":true})")
                .status,
            201);
  ASSERT_TRUE(listed_in_cache(kapi(), "/apis/scheduling.k8s.io/v1/priorityclasses", "first-default"));
  HttpResponse refused = call("POST", "/apis/scheduling.k8s.io/v1/priorityclasses",
                              R"({"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass",
                                  "metadata":{"name":"second-default"},"value":8,"globalDefault":true})");
  EXPECT_TRUE(is_status(refused, 403, "Forbidden"));
  EXPECT_EQ(status_message(refused), "priorityclasses.scheduling.k8s.io \"second-default\" is forbidden: PriorityClass "
                                     "first-default is already marked as default. Only one default can exist");
  HttpResponse defaulted = call("POST", pods_in(kNamespace), pod_body("defaulted"));
  ASSERT_EQ(defaulted.status, 201) << defaulted.body;
  json::object spec = json_object(defaulted.body)["spec"].as_object();
  EXPECT_EQ(spec["priorityClassName"], "first-default");
  EXPECT_EQ(spec["priority"], 7);
  EXPECT_EQ(call("DELETE", "/apis/scheduling.k8s.io/v1/priorityclasses/first-default").status, 200);
}

TEST_F(PodAdmissionTest, ANewNodeIsTaintedNotReady) {
  HttpResponse created = call("POST", "/api/v1/nodes",
                              R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"worker-1"},
                                  "spec":{"taints":[{"key":"gpu","value":"yes","effect":"NoSchedule"}]}})");
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(json_object(created.body)["spec"].as_object()["taints"], json::parse(R"([
      {"key":"gpu","value":"yes","effect":"NoSchedule"},
      {"key":"node.kubernetes.io/not-ready","effect":"NoSchedule"}])"));
  auto result = run_kubectl(kapi(), "get node worker-1 -o jsonpath='{.spec.taints[1].key}:{.spec.taints[1].effect}'");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(result.output, "node.kubernetes.io/not-ready:NoSchedule");
}

// kube-apiserver's --default-not-ready-toleration-seconds and --default-unreachable-toleration-seconds.
class PodAdmissionFlagsTest : public KapiSuite<PodAdmissionFlagsTest> {
 public:
  static KapiOptions kapi_options() {
    KapiOptions options;
    options.extra_flags = {"--default-not-ready-toleration-seconds=60", "--default-unreachable-toleration-seconds=120"};
    return options;
  }
};

TEST_F(PodAdmissionFlagsTest, TheDefaultTolerationsLastAsLongAsTheFlagsSay) {
  HttpResponse created = kapi().connect_admin().request("POST", pods_in("default"), kJson, pod_body("tolerant"));
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(json_object(created.body)["spec"].as_object()["tolerations"], json::parse(R"([
      {"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":60},
      {"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":120}])"));
}

TEST_F(PodAdmissionTest, EveryNamespaceGetsItsDefaultServiceAccountAgainWhenDeleted) {
  HttpResponse created = call("POST", "/api/v1/namespaces", R"({"metadata":{"name":"fresh"}})");
  ASSERT_EQ(created.status, 201) << created.body;
  // A pod right away: the ServiceAccount plugin waits for the account the controller is making, as kube's does.
  HttpResponse pod = call("POST", pods_in("fresh"), pod_body("early"));
  EXPECT_EQ(pod.status, 201) << pod.body;
  const std::string account = "/api/v1/namespaces/fresh/serviceaccounts/default";
  ASSERT_EQ(call("DELETE", account).status, 200);
  EXPECT_EQ(await_status(account, 200), 200) << "the controller makes a deleted default account again";
}

}  // namespace
}  // namespace kapi::integration::pod_admission_test
