// ResourceQuota as kube-apiserver's admission plugin and kube-controller-manager's resourcequota controller
// enforce and keep it, over real HTTPS and the real kubectl: a quota's status is measured when it is made, each
// create is charged to it and refused past its limit with kube's 403, a deletion gives the usage back, and compute
// quotas require every container to state what they limit.
#include "tests/integration/kapi_suite.h"
#include "tests/integration/kubectl_runner.h"

#include <chrono>
#include <functional>
#include <thread>

namespace kapi::integration::resource_quota_test {
namespace {

using namespace std::chrono_literals;
using Headers = std::vector<std::pair<std::string, std::string>>;
namespace json = boost::json;

const Headers kJson{{"Content-Type", "application/json"}};

std::string namespace_body(std::string_view name) {
  return R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")" + std::string(name) + R"("}})";
}

std::string quota_body(std::string_view name, std::string_view hard) {
  return R"({"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":")" + std::string(name) +
         R"("},"spec":{"hard":)" + std::string(hard) + "}}";
}

std::string pod_body(std::string_view name, std::string_view resources = "{}") {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + std::string(name) +
         R"("},"spec":{"containers":[{"name":"c","image":"nginx","resources":)" + std::string(resources) + "}]}}";
}

std::string configmap_body(std::string_view name) {
  return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + std::string(name) + R"("}})";
}

class ResourceQuotaEnforcementTest : public KapiSuite<ResourceQuotaEnforcementTest> {
 protected:
  HttpResponse call(std::string_view method, std::string_view target, std::string_view body = {}) {
    return kapi().connect_admin().request(method, target, kJson, body);
  }
  CommandResult kubectl(const std::string& arguments) { return run_kubectl(kapi(), arguments); }

  void make_namespace(std::string_view name) {
    ASSERT_EQ(call("POST", "/api/v1/namespaces", namespace_body(name)).status, 201);
  }

  static std::string in(std::string_view namespace_, std::string_view resource) {
    return "/api/v1/namespaces/" + std::string(namespace_) + "/" + std::string(resource);
  }

  // The quota's status.used, serialized ("" while the quota has none).
  std::string used(std::string_view namespace_, std::string_view name) {
    HttpResponse got = call("GET", in(namespace_, "resourcequotas") + "/" + std::string(name));
    if (got.status != 200) return "";
    json::object quota = json_object(got.body);
    const json::value* status = quota.if_contains("status");
    const json::value* used = status && status->is_object() ? status->as_object().if_contains("used") : nullptr;
    return used ? json::serialize(*used) : "";
  }

  // Polls the quota's status.used until it is `wanted`, up to 20 s (the controller works on watch events);
  // the last value seen.
  std::string wait_for_used(std::string_view namespace_, std::string_view name, std::string_view wanted) {
    std::string seen;
    for (auto deadline = std::chrono::steady_clock::now() + 20s; std::chrono::steady_clock::now() < deadline;) {
      seen = used(namespace_, name);
      if (seen == wanted) break;
      std::this_thread::sleep_for(50ms);
    }
    return seen;
  }
};

TEST_F(ResourceQuotaEnforcementTest, APodsQuotaAdmitsTwoRefusesTheThirdAndGivesBackOnDelete) {
  make_namespace("rq-pods");
  ASSERT_EQ(call("POST", in("rq-pods", "resourcequotas"), quota_body("pods", R"({"pods":"2"})")).status, 201);
  // The controller measures a new quota: until then kube admits pods without charging it.
  ASSERT_EQ(wait_for_used("rq-pods", "pods", R"({"pods":"0"})"), R"({"pods":"0"})");
  json::object quota = json_object(call("GET", in("rq-pods", "resourcequotas") + "/pods").body);
  EXPECT_EQ(json::serialize(quota["status"].as_object()["hard"]), R"({"pods":"2"})");

  ASSERT_EQ(call("POST", in("rq-pods", "pods"), pod_body("p1")).status, 201);
  EXPECT_EQ(used("rq-pods", "pods"), R"({"pods":"1"})") << "admission charges the quota as it admits";
  ASSERT_EQ(call("POST", in("rq-pods", "pods"), pod_body("p2")).status, 201);
  EXPECT_EQ(used("rq-pods", "pods"), R"({"pods":"2"})");

  HttpResponse refused = call("POST", in("rq-pods", "pods"), pod_body("p3"));
  ASSERT_TRUE(is_status(refused, 403, "Forbidden")) << refused.body;
  EXPECT_EQ(status_message(refused),
            "pods \"p3\" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=2, limited: pods=2");
  json::object details = json_object(refused.body)["details"].as_object();
  EXPECT_EQ(details["name"], "p3");
  EXPECT_EQ(details["kind"], "pods");

  // A dry run is checked, never charged.
  ASSERT_EQ(call("DELETE", in("rq-pods", "pods") + "/p2").status, 200);
  EXPECT_EQ(wait_for_used("rq-pods", "pods", R"({"pods":"1"})"), R"({"pods":"1"})");
  ASSERT_EQ(call("POST", in("rq-pods", "pods") + "?dryRun=All", pod_body("dry")).status, 201);
  EXPECT_EQ(used("rq-pods", "pods"), R"({"pods":"1"})");
  ASSERT_EQ(call("POST", in("rq-pods", "pods"), pod_body("p3")).status, 201);
  EXPECT_EQ(used("rq-pods", "pods"), R"({"pods":"2"})");

  // kubectl prints kube's message.
  CommandResult run = kubectl("run p4 -n rq-pods --image=nginx");
  EXPECT_NE(run.exit_code, 0);
  EXPECT_EQ(run.output,
            "Error from server (Forbidden): pods \"p4\" is forbidden: exceeded quota: pods, requested: pods=1, "
            "used: pods=2, limited: pods=2\n");
  CommandResult described = kubectl("get quota pods -n rq-pods -o jsonpath={.status.used.pods}/{.status.hard.pods}");
  EXPECT_EQ(described.output, "2/2");
}

TEST_F(ResourceQuotaEnforcementTest, ObjectCountQuotasCountConfigMaps) {
  make_namespace("rq-count");
  // As in kube, the namespace's kube-root-ca.crt (the root CA publisher's) is one of its configmaps: it is waited
  // for, then counted.
  int root_ca = 0;
  for (auto deadline = std::chrono::steady_clock::now() + 15s; std::chrono::steady_clock::now() < deadline;) {
    root_ca = call("GET", in("rq-count", "configmaps") + "/kube-root-ca.crt").status;
    if (root_ca == 200) break;
    std::this_thread::sleep_for(50ms);
  }
  ASSERT_EQ(root_ca, 200);
  ASSERT_EQ(call("POST", in("rq-count", "resourcequotas"),
                 quota_body("objects", R"({"count/configmaps":"2","services":"3"})")).status,
            201);
  ASSERT_EQ(wait_for_used("rq-count", "objects", R"({"count/configmaps":"1","services":"0"})"),
            R"({"count/configmaps":"1","services":"0"})");
  ASSERT_EQ(call("POST", in("rq-count", "configmaps"), configmap_body("one")).status, 201);
  EXPECT_EQ(used("rq-count", "objects"), R"({"count/configmaps":"2","services":"0"})");
  HttpResponse refused = call("POST", in("rq-count", "configmaps"), configmap_body("two"));
  ASSERT_TRUE(is_status(refused, 403, "Forbidden")) << refused.body;
  EXPECT_EQ(status_message(refused),
            "configmaps \"two\" is forbidden: exceeded quota: objects, requested: count/configmaps=1, used: "
            "count/configmaps=2, limited: count/configmaps=2");
  ASSERT_EQ(call("DELETE", in("rq-count", "configmaps") + "/one").status, 200);
  EXPECT_EQ(wait_for_used("rq-count", "objects", R"({"count/configmaps":"1","services":"0"})"),
            R"({"count/configmaps":"1","services":"0"})");
  EXPECT_EQ(call("POST", in("rq-count", "configmaps"), configmap_body("two")).status, 201);

  // Raising the limit is measured again: status.hard follows spec.hard.
  ASSERT_EQ(kubectl(R"(patch quota objects -n rq-count --type=merge -p '{"spec":{"hard":{"count/configmaps":"5"}}}')")
                .exit_code,
            0);
  std::string hard;
  for (auto deadline = std::chrono::steady_clock::now() + 20s; std::chrono::steady_clock::now() < deadline;) {
    json::object quota = json_object(call("GET", in("rq-count", "resourcequotas") + "/objects").body);
    hard = json::serialize(quota["status"].as_object()["hard"]);
    if (hard == R"({"count/configmaps":"5","services":"3"})") break;
    std::this_thread::sleep_for(50ms);
  }
  EXPECT_EQ(hard, R"({"count/configmaps":"5","services":"3"})");
  EXPECT_EQ(call("POST", in("rq-count", "configmaps"), configmap_body("three")).status, 201);
}

TEST_F(ResourceQuotaEnforcementTest, QuotasCountQuotas) {
  make_namespace("rq-quotas");
  ASSERT_EQ(call("POST", in("rq-quotas", "resourcequotas"), quota_body("counts", R"({"resourcequotas":"2"})")).status,
            201);
  ASSERT_EQ(wait_for_used("rq-quotas", "counts", R"({"resourcequotas":"1"})"), R"({"resourcequotas":"1"})");
  ASSERT_EQ(call("POST", in("rq-quotas", "resourcequotas"), quota_body("second", R"({"pods":"1"})")).status, 201);
  EXPECT_EQ(used("rq-quotas", "counts"), R"({"resourcequotas":"2"})");
  HttpResponse refused = call("POST", in("rq-quotas", "resourcequotas"), quota_body("third", R"({"pods":"1"})"));
  ASSERT_TRUE(is_status(refused, 403, "Forbidden")) << refused.body;
  EXPECT_EQ(status_message(refused),
            "resourcequotas \"third\" is forbidden: exceeded quota: counts, requested: resourcequotas=1, used: "
            "resourcequotas=2, limited: resourcequotas=2");
  ASSERT_EQ(call("DELETE", in("rq-quotas", "resourcequotas") + "/second").status, 200);
  EXPECT_EQ(wait_for_used("rq-quotas", "counts", R"({"resourcequotas":"1"})"), R"({"resourcequotas":"1"})");
}

TEST_F(ResourceQuotaEnforcementTest, ComputeQuotasRequireRequestsAndAddThemUp) {
  make_namespace("rq-compute");
  ASSERT_EQ(call("POST", in("rq-compute", "resourcequotas"),
                 quota_body("compute", R"({"requests.cpu":"1","requests.memory":"1Gi","limits.memory":"2Gi"})"))
                .status,
            201);
  ASSERT_EQ(wait_for_used("rq-compute", "compute", R"({"limits.memory":"0","requests.cpu":"0","requests.memory":"0"})"),
            R"({"limits.memory":"0","requests.cpu":"0","requests.memory":"0"})");

  HttpResponse bare = call("POST", in("rq-compute", "pods"), pod_body("bare"));
  ASSERT_TRUE(is_status(bare, 403, "Forbidden")) << bare.body;
  EXPECT_EQ(status_message(bare),
            "pods \"bare\" is forbidden: failed quota: compute: must specify limits.memory for: c; requests.cpu "
            "for: c; requests.memory for: c");

  // Limits alone default the requests (pod defaulting runs before quota).
  ASSERT_EQ(call("POST", in("rq-compute", "pods"), pod_body("a", R"({"limits":{"cpu":"500m","memory":"768Mi"}})")).status,
            201);
  EXPECT_EQ(used("rq-compute", "compute"),
            R"({"limits.memory":"768Mi","requests.cpu":"500m","requests.memory":"768Mi"})");
  HttpResponse over = call("POST", in("rq-compute", "pods"), pod_body("b", R"({"limits":{"cpu":"600m","memory":"256Mi"}})"));
  ASSERT_TRUE(is_status(over, 403, "Forbidden")) << over.body;
  EXPECT_EQ(status_message(over),
            "pods \"b\" is forbidden: exceeded quota: compute, requested: requests.cpu=600m, used: "
            "requests.cpu=500m, limited: requests.cpu=1");
  ASSERT_EQ(call("POST", in("rq-compute", "pods"), pod_body("c", R"({"limits":{"cpu":"500m","memory":"256Mi"}})")).status,
            201);
  EXPECT_EQ(used("rq-compute", "compute"), R"({"limits.memory":"1Gi","requests.cpu":"1","requests.memory":"1Gi"})");

  // Deleted pods give their requests back.
  ASSERT_EQ(call("DELETE", in("rq-compute", "pods") + "/a").status, 200);
  EXPECT_EQ(wait_for_used("rq-compute", "compute",
                          R"({"limits.memory":"256Mi","requests.cpu":"500m","requests.memory":"256Mi"})"),
            R"({"limits.memory":"256Mi","requests.cpu":"500m","requests.memory":"256Mi"})");
}

TEST_F(ResourceQuotaEnforcementTest, CustomResourcesAreCountedByName) {
  CommandResult crd = kubectl("apply -f " + write_manifest(kapi(), "gears-crd.yaml", R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gears.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gears, singular: gear, kind: Gear}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
)"));
  ASSERT_EQ(crd.exit_code, 0) << crd.output;
  ASSERT_EQ(kubectl("wait --for=condition=Established --timeout=20s crd/gears.example.com").exit_code, 0);
  make_namespace("rq-custom");
  ASSERT_EQ(call("POST", in("rq-custom", "resourcequotas"), quota_body("gears", R"({"count/gears.example.com":"1"})"))
                .status,
            201);
  ASSERT_EQ(wait_for_used("rq-custom", "gears", R"({"count/gears.example.com":"0"})"),
            R"({"count/gears.example.com":"0"})");
  const std::string gears = "/apis/example.com/v1/namespaces/rq-custom/gears";
  auto gear = [](std::string_view name) {
    return R"({"apiVersion":"example.com/v1","kind":"Gear","metadata":{"name":")" + std::string(name) + R"("}})";
  };
  ASSERT_EQ(call("POST", gears, gear("g1")).status, 201);
  HttpResponse refused = call("POST", gears, gear("g2"));
  ASSERT_TRUE(is_status(refused, 403, "Forbidden")) << refused.body;
  EXPECT_EQ(status_message(refused),
            "gears.example.com \"g2\" is forbidden: exceeded quota: gears, requested: count/gears.example.com=1, "
            "used: count/gears.example.com=1, limited: count/gears.example.com=1");
  kubectl("delete crd gears.example.com");
}

TEST_F(ResourceQuotaEnforcementTest, NamespacesWithoutQuotasAreUntouched) {
  make_namespace("rq-none");
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(call("POST", in("rq-none", "pods"), pod_body("p" + std::to_string(i))).status, 201);
  EXPECT_EQ(call("POST", in("rq-none", "services"),
                 R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"s"},"spec":{"ports":[{"port":80}]}})")
                .status,
            201);
}

}  // namespace
}  // namespace kapi::integration::resource_quota_test
