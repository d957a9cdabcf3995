// Deletion as kube-apiserver and its namespace controller do it, over real HTTPS and the real kubectl: objects
// with finalizers are only marked and go with their last finalizer; a deleted namespace turns Terminating,
// refuses new content, reports what keeps it in its conditions, loses its content and then goes itself.
#include "tests/integration/kapi_suite.h"
#include "tests/integration/kubectl_runner.h"

#include <chrono>
#include <functional>
#include <thread>

namespace kapi::integration::namespace_lifecycle_test {
namespace {

using namespace std::chrono_literals;
using Headers = std::vector<std::pair<std::string, std::string>>;
namespace json = boost::json;

const Headers kJson{{"Content-Type", "application/json"}};
const Headers kMergePatch{{"Content-Type", "application/merge-patch+json"}};

std::string namespace_body(std::string_view name) {
  return R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")" + std::string(name) + R"("}})";
}

std::string configmap_body(std::string_view name, std::string_view finalizers = "") {
  return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + std::string(name) + "\"" +
         (finalizers.empty() ? "" : R"(,"finalizers":)" + std::string(finalizers)) + R"(},"data":{"a":"1"}})";
}

std::string configmaps_in(std::string_view namespace_) {
  return "/api/v1/namespaces/" + std::string(namespace_) + "/configmaps";
}

json::object condition(const json::object& namespace_, std::string_view type) {
  const auto* status = namespace_.if_contains("status");
  if (!status || !status->is_object()) return {};
  const auto* conditions = status->as_object().if_contains("conditions");
  if (!conditions || !conditions->is_array()) return {};
  for (const auto& c : conditions->as_array())
    if (c.is_object() && c.as_object().contains("type") && c.as_object().at("type").is_string() &&
        c.as_object().at("type").as_string() == type)
      return c.as_object();
  return {};
}

class NamespaceLifecycleTest : public KapiSuite<NamespaceLifecycleTest> {
 protected:
  HttpResponse call(std::string_view method, std::string_view target, std::string_view body = {},
                    const Headers& headers = kJson) {
    return kapi().connect_admin().request(method, target, headers, body);
  }
  // Polls until `done` holds for the response of GET `target`, up to 15 s; the last response.
  HttpResponse wait_for(std::string_view target, const std::function<bool(const HttpResponse&)>& done) {
    HttpResponse response;
    for (auto deadline = std::chrono::steady_clock::now() + 15s; std::chrono::steady_clock::now() < deadline;) {
      response = call("GET", target);
      if (done(response)) break;
      std::this_thread::sleep_for(50ms);
    }
    return response;
  }
};

TEST_F(NamespaceLifecycleTest, AnObjectWithFinalizersIsMarkedAndGoesWithItsLastFinalizer) {
  const std::string object = configmaps_in("default") + "/held";
  ASSERT_EQ(call("POST", configmaps_in("default"), configmap_body("held", R"(["example.com/a","example.com/b"])"))
                .status,
            201);
  HttpResponse deleted = call("DELETE", object);
  ASSERT_EQ(deleted.status, 200) << deleted.body;
  auto marked = json_object(deleted.body);
  EXPECT_EQ(marked["kind"], "ConfigMap") << "a marked object comes back whole, not as a Status";
  const auto& meta = marked["metadata"].as_object();
  ASSERT_TRUE(meta.contains("deletionTimestamp")) << deleted.body;
  EXPECT_EQ(meta.at("deletionGracePeriodSeconds"), 0);

  // Deleting again changes nothing; the object is still readable.
  HttpResponse again = call("DELETE", object);
  ASSERT_EQ(again.status, 200);
  EXPECT_EQ(json_object(again.body)["metadata"].as_object()["deletionTimestamp"], meta.at("deletionTimestamp"));
  ASSERT_EQ(call("GET", object).status, 200);

  // Removing one finalizer keeps it; removing the last deletes it.
  HttpResponse one_left = call("PATCH", object, R"({"metadata":{"finalizers":["example.com/b"]}})", kMergePatch);
  ASSERT_EQ(one_left.status, 200) << one_left.body;
  ASSERT_EQ(call("GET", object).status, 200);
  HttpResponse last = call("PATCH", object, R"({"metadata":{"finalizers":null}})", kMergePatch);
  ASSERT_EQ(last.status, 200) << last.body;
  EXPECT_TRUE(is_status(call("GET", object), 404, "NotFound"));
}

TEST_F(NamespaceLifecycleTest, ABoundPodIsDeletedGracefullyAndAnUnboundOneAtOnce) {
  const std::string pods = "/api/v1/namespaces/default/pods";
  const std::string bound = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"bound"},
      "spec":{"nodeName":"node-1","containers":[{"name":"c","image":"nginx"}]}})";
  ASSERT_EQ(call("POST", pods, bound).status, 201);
  HttpResponse marked = call("DELETE", pods + "/bound");
  ASSERT_EQ(marked.status, 200) << marked.body;
  auto meta = json_object(marked.body)["metadata"].as_object();
  EXPECT_TRUE(meta.contains("deletionTimestamp")) << marked.body;
  EXPECT_EQ(meta["deletionGracePeriodSeconds"], 30) << "the pod's terminationGracePeriodSeconds";
  ASSERT_EQ(call("GET", pods + "/bound").status, 200) << "the kubelet has not stopped it yet";
  // The kubelet's final delete (or `kubectl delete --force --grace-period=0`).
  HttpResponse forced = call("DELETE", pods + "/bound", R"({"gracePeriodSeconds":0})");
  ASSERT_EQ(forced.status, 200) << forced.body;
  EXPECT_TRUE(is_status(call("GET", pods + "/bound"), 404, "NotFound"));

  const std::string unbound = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"unbound"},
      "spec":{"containers":[{"name":"c","image":"nginx"}]}})";
  ASSERT_EQ(call("POST", pods, unbound).status, 201);
  ASSERT_EQ(call("DELETE", pods + "/unbound").status, 200);
  EXPECT_TRUE(is_status(call("GET", pods + "/unbound"), 404, "NotFound"));
}

TEST_F(NamespaceLifecycleTest, ADeletedNamespaceLosesItsContentAndThenGoes) {
  ASSERT_EQ(call("POST", "/api/v1/namespaces", namespace_body("doomed")).status, 201);
  for (std::string name : {"one", "two", "three"})
    ASSERT_EQ(call("POST", configmaps_in("doomed"), configmap_body(name)).status, 201);
  const std::string secret = R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"stringData":{"k":"v"}})";
  ASSERT_EQ(call("POST", "/api/v1/namespaces/doomed/secrets", secret).status, 201);

  HttpResponse deleted = call("DELETE", "/api/v1/namespaces/doomed");
  ASSERT_EQ(deleted.status, 200) << deleted.body;
  auto terminating = json_object(deleted.body);
  EXPECT_EQ(terminating["status"].as_object()["phase"], "Terminating") << deleted.body;
  EXPECT_TRUE(terminating["metadata"].as_object().contains("deletionTimestamp"));

  HttpResponse gone = wait_for("/api/v1/namespaces/doomed", [](const HttpResponse& r) { return r.status == 404; });
  EXPECT_TRUE(is_status(gone, 404, "NotFound")) << gone.body;
  auto left = json_object(call("GET", configmaps_in("doomed")).body);
  EXPECT_TRUE(left["items"].as_array().empty()) << json::serialize(left);
  EXPECT_TRUE(json_object(call("GET", "/api/v1/namespaces/doomed/secrets").body)["items"].as_array().empty());
  // Recreated, it starts Active with nothing but what every new namespace gets: kube-root-ca.crt, published anew.
  ASSERT_EQ(call("POST", "/api/v1/namespaces", namespace_body("doomed")).status, 201);
  EXPECT_EQ(json_object(call("GET", "/api/v1/namespaces/doomed").body)["status"].as_object()["phase"], "Active");
  EXPECT_EQ(wait_for(configmaps_in("doomed") + "/kube-root-ca.crt", [](const HttpResponse& r) { return r.status == 200; })
                .status,
            200);
  const json::array recreated = json_object(call("GET", configmaps_in("doomed")).body)["items"].as_array();
  ASSERT_EQ(recreated.size(), 1u) << json::serialize(recreated);
  EXPECT_EQ(recreated[0].at("metadata").at("name"), "kube-root-ca.crt");
}

TEST_F(NamespaceLifecycleTest, ATerminatingNamespaceRefusesContentAndSaysWhatKeepsIt) {
  ASSERT_EQ(call("POST", "/api/v1/namespaces", namespace_body("held")).status, 201);
  ASSERT_EQ(call("POST", configmaps_in("held"), configmap_body("pinned", R"(["example.com/hold"])")).status, 201);
  ASSERT_EQ(call("POST", configmaps_in("held"), configmap_body("loose")).status, 201);
  ASSERT_EQ(call("DELETE", "/api/v1/namespaces/held").status, 200);

  HttpResponse reported = wait_for("/api/v1/namespaces/held", [](const HttpResponse& r) {
    return condition(json_object(r.body), "NamespaceContentRemaining")["status"] == "True";
  });
  auto namespace_ = json_object(reported.body);
  auto remaining = condition(namespace_, "NamespaceContentRemaining");
  EXPECT_EQ(remaining["reason"], "SomeResourcesRemain") << reported.body;
  EXPECT_EQ(remaining["message"], "Some resources are remaining: configmaps. has 1 resource instances");
  auto finalizers = condition(namespace_, "NamespaceFinalizersRemaining");
  EXPECT_EQ(finalizers["status"], "True");
  EXPECT_EQ(finalizers["reason"], "SomeFinalizersRemain");
  EXPECT_EQ(finalizers["message"],
            "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances");
  auto content_failure = condition(namespace_, "NamespaceDeletionContentFailure");
  EXPECT_EQ(content_failure["status"], "False");
  EXPECT_EQ(content_failure["message"], "All content successfully deleted, may be waiting on finalization");
  EXPECT_EQ(namespace_["spec"].as_object()["finalizers"].as_array(), json::array{"kubernetes"});
  EXPECT_TRUE(is_status(call("GET", configmaps_in("held") + "/loose"), 404, "NotFound"));

  // New content is refused as NamespaceLifecycle refuses it.
  HttpResponse refused = call("POST", configmaps_in("held"), configmap_body("late"));
  ASSERT_TRUE(is_status(refused, 403, "Forbidden")) << refused.body;
  EXPECT_EQ(status_message(refused),
            "configmaps \"late\" is forbidden: unable to create new content in namespace held because it is being "
            "terminated");
  auto details = json_object(refused.body)["details"].as_object();
  ASSERT_EQ(details["causes"].as_array().size(), 1u) << refused.body;
  auto cause = details["causes"].as_array()[0].as_object();
  EXPECT_EQ(cause["reason"], "NamespaceTerminating");
  EXPECT_EQ(cause["message"], "namespace held is being terminated");
  EXPECT_EQ(cause["field"], "metadata.namespace");

  // The last finalizer released, the content goes and so does the namespace.
  HttpResponse released =
      call("PATCH", configmaps_in("held") + "/pinned", R"({"metadata":{"finalizers":[]}})", kMergePatch);
  ASSERT_EQ(released.status, 200) << released.body;
  HttpResponse gone = wait_for("/api/v1/namespaces/held", [](const HttpResponse& r) { return r.status == 404; });
  EXPECT_EQ(gone.status, 404) << gone.body;
}

TEST_F(NamespaceLifecycleTest, TheClustersOwnNamespacesMayNotBeDeleted) {
  for (std::string name : {"default", "kube-system", "kube-public"}) {
    HttpResponse refused = call("DELETE", "/api/v1/namespaces/" + name);
    ASSERT_TRUE(is_status(refused, 403, "Forbidden")) << refused.body;
    EXPECT_EQ(status_message(refused), "namespaces \"" + name + "\" is forbidden: this namespace may not be deleted");
  }
  EXPECT_EQ(json_object(call("GET", "/api/v1/namespaces/default").body)["status"].as_object()["phase"], "Active");
}

TEST_F(NamespaceLifecycleTest, KubectlDeleteNamespaceWaitsUntilItAndItsContentAreGone) {
  ASSERT_EQ(run_kubectl(kapi(), "create namespace scratch").exit_code, 0);
  ASSERT_EQ(run_kubectl(kapi(), "-n scratch create configmap settings --from-literal=a=b").exit_code, 0);
  ASSERT_EQ(run_kubectl(kapi(), "-n scratch create deployment web --image=nginx").exit_code, 0);

  CommandResult deleted = run_kubectl(kapi(), "delete namespace scratch --timeout=30s");
  EXPECT_EQ(deleted.exit_code, 0) << deleted.output;
  EXPECT_EQ(deleted.output, "namespace \"scratch\" deleted\n");
  CommandResult missing = run_kubectl(kapi(), "get namespace scratch");
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_EQ(missing.output, "Error from server (NotFound): namespaces \"scratch\" not found\n");
  CommandResult content = run_kubectl(kapi(), "get configmaps,deployments -n scratch -o name");
  EXPECT_EQ(content.output.find("configmap/"), std::string::npos) << content.output;
  EXPECT_EQ(content.output.find("deployment.apps/"), std::string::npos) << content.output;
}

}  // namespace
}  // namespace kapi::integration::namespace_lifecycle_test
