// The garbage collector kapi runs in-process (kube-controller-manager's), with the real kubectl: a custom
// resource's ConfigMaps go with it under --cascade=background, wait for it under --cascade=foreground (the owner
// kept with deletionTimestamp and the foregroundDeletion finalizer while a blockOwnerDeletion dependent is held by
// a finalizer of its own), stay without the ownerReference under --cascade=orphan; built-in owners (a
// Deployment's ReplicaSet, a cluster-scoped owner of namespaced objects); dangling references removed from
// dependents with owners left; and the OwnerRefInvalidNamespace Event for an owner of another namespace. On both
// stores (see tests/meson.build).
#include "tests/integration/crd_setup.h"
#include "tests/integration/kapi_suite.h"
#include "tests/integration/kubectl_runner.h"

#include <chrono>
#include <functional>
#include <thread>

namespace kapi::integration::garbage_collector_test {
namespace {

using namespace std::chrono_literals;
using Headers = std::vector<std::pair<std::string, std::string>>;
namespace json = boost::json;

const Headers kJson{{"Content-Type", "application/json"}};
const Headers kMergePatch{{"Content-Type", "application/merge-patch+json"}};

struct Owner {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
};

std::string text(const json::object& object, std::initializer_list<std::string_view> path) {
  const json::value* at = nullptr;
  const json::object* in = &object;
  for (auto key : path) {
    at = in ? in->if_contains(key) : nullptr;
    if (!at) return "";
    in = at->is_object() ? &at->as_object() : nullptr;
  }
  return at && at->is_string() ? std::string(at->as_string()) : "";
}

class GarbageCollectorTest : public KapiSuite<GarbageCollectorTest> {
 protected:
  static void SetUpTestSuite() {
    KapiSuite::SetUpTestSuite();
    CommandResult installed = apply_crd_and_wait(
        kapi(), "owners-crd.yaml",
        single_version_crd("gc.example.com", "owners", "Owner", "Namespaced",
                           "          spec: {type: object, x-kubernetes-preserve-unknown-fields: true}\n"),
        "owners.gc.example.com");
    ASSERT_EQ(installed.exit_code, 0) << installed.output;
  }

  HttpResponse call(std::string_view method, std::string_view target, std::string_view body = {},
                    const Headers& headers = kJson) {
    return kapi().connect_admin().request(method, target, headers, body);
  }

  void create_namespace(const std::string& name) {
    HttpResponse created = call("POST", "/api/v1/namespaces",
                                R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")" + name + R"("}})");
    ASSERT_EQ(created.status, 201) << created.body;
  }

  Owner create(const std::string& collection, const std::string& body) {
    HttpResponse created = call("POST", collection, body);
    EXPECT_EQ(created.status, 201) << created.body;
    auto object = json_object(created.body);
    return {text(object, {"apiVersion"}), text(object, {"kind"}), text(object, {"metadata", "name"}),
            text(object, {"metadata", "uid"})};
  }

  Owner create_owner(const std::string& namespace_, const std::string& name) {
    return create("/apis/gc.example.com/v1/namespaces/" + namespace_ + "/owners",
                  R"({"apiVersion":"gc.example.com/v1","kind":"Owner","metadata":{"name":")" + name + R"("}})");
  }

  // A ConfigMap owned by `owners` (blockOwnerDeletion as given), with `finalizers` if any.
  Owner create_configmap(const std::string& namespace_, const std::string& name, const std::vector<Owner>& owners,
                         bool block = false, const std::string& finalizers = "") {
    json::array references;
    for (const auto& owner : owners)
      references.push_back(json::object{{"apiVersion", owner.api_version},
                                        {"kind", owner.kind},
                                        {"name", owner.name},
                                        {"uid", owner.uid},
                                        {"blockOwnerDeletion", block}});
    json::object metadata{{"name", name}};
    if (!references.empty()) metadata["ownerReferences"] = references;
    if (!finalizers.empty()) metadata["finalizers"] = json::parse(finalizers);
    json::object body{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", metadata}};
    return create("/api/v1/namespaces/" + namespace_ + "/configmaps", json::serialize(body));
  }

  static std::string configmap(const std::string& namespace_, const std::string& name) {
    return "/api/v1/namespaces/" + namespace_ + "/configmaps/" + name;
  }

  // Polls GET `target` until `done` holds, up to 30 s; the last response.
  HttpResponse wait_for(const std::string& target, const std::function<bool(const HttpResponse&)>& done) {
    HttpResponse response;
    for (auto deadline = std::chrono::steady_clock::now() + 30s; std::chrono::steady_clock::now() < deadline;) {
      response = call("GET", target);
      if (done(response)) break;
      std::this_thread::sleep_for(50ms);
    }
    return response;
  }

  HttpResponse wait_until_gone(const std::string& target) {
    return wait_for(target, [](const HttpResponse& response) { return response.status == 404; });
  }
};

bool gone(const HttpResponse& response) { return response.status == 404; }

TEST_F(GarbageCollectorTest, BackgroundCascadeDeletesACustomResourcesConfigMaps) {
  create_namespace("gc-background");
  Owner owner = create_owner("gc-background", "app");
  Owner other = create_owner("gc-background", "other");
  for (const char* name : {"a", "b", "c"}) create_configmap("gc-background", name, {owner});
  create_configmap("gc-background", "shared", {owner, other});

  CommandResult deleted = run_kubectl(kapi(), "delete owners.gc.example.com app -n gc-background --cascade=background");
  ASSERT_EQ(deleted.exit_code, 0) << deleted.output;
  for (const char* name : {"a", "b", "c"})
    EXPECT_TRUE(gone(wait_until_gone(configmap("gc-background", name)))) << name;
  // A dependent with an owner left loses only the dangling reference.
  HttpResponse shared = wait_for(configmap("gc-background", "shared"), [](const HttpResponse& response) {
    auto object = json_object(response.body);
    const auto* references = object["metadata"].as_object().if_contains("ownerReferences");
    return references && references->as_array().size() == 1;
  });
  ASSERT_EQ(shared.status, 200) << shared.body;
  auto references = json_object(shared.body)["metadata"].as_object()["ownerReferences"].as_array();
  ASSERT_EQ(references.size(), 1u) << shared.body;
  EXPECT_EQ(references[0].as_object()["uid"].as_string(), other.uid);
}

TEST_F(GarbageCollectorTest, ForegroundCascadeKeepsTheOwnerUntilItsBlockingDependentsAreGone) {
  create_namespace("gc-foreground");
  Owner owner = create_owner("gc-foreground", "app");
  create_configmap("gc-foreground", "held", {owner}, true, R"(["example.com/hold"])");
  create_configmap("gc-foreground", "blocking", {owner}, true);
  create_configmap("gc-foreground", "loose", {owner}, false);

  CommandResult deleted =
      run_kubectl(kapi(), "delete owners.gc.example.com app -n gc-foreground --cascade=foreground --wait=false");
  ASSERT_EQ(deleted.exit_code, 0) << deleted.output;
  // Every dependent is deleted; the held one only marked.
  EXPECT_TRUE(gone(wait_until_gone(configmap("gc-foreground", "blocking"))));
  EXPECT_TRUE(gone(wait_until_gone(configmap("gc-foreground", "loose"))));
  HttpResponse held = wait_for(configmap("gc-foreground", "held"), [](const HttpResponse& response) {
    return !text(json_object(response.body), {"metadata", "deletionTimestamp"}).empty();
  });
  ASSERT_EQ(held.status, 200) << held.body;
  ASSERT_FALSE(text(json_object(held.body), {"metadata", "deletionTimestamp"}).empty()) << held.body;

  CommandResult waiting = run_kubectl(kapi(), "get owners.gc.example.com app -n gc-foreground -o json");
  ASSERT_EQ(waiting.exit_code, 0) << waiting.output;
  auto owner_now = json_object(waiting.output);
  EXPECT_FALSE(text(owner_now, {"metadata", "deletionTimestamp"}).empty()) << waiting.output;
  EXPECT_EQ(json::serialize(owner_now["metadata"].as_object()["finalizers"]), R"(["foregroundDeletion"])");

  // Releasing the held dependent releases the owner.
  HttpResponse released = call("PATCH", configmap("gc-foreground", "held"), R"({"metadata":{"finalizers":null}})",
                               kMergePatch);
  ASSERT_EQ(released.status, 200) << released.body;
  EXPECT_TRUE(gone(wait_until_gone(configmap("gc-foreground", "held"))));
  EXPECT_TRUE(gone(wait_until_gone("/apis/gc.example.com/v1/namespaces/gc-foreground/owners/app")));
}

TEST_F(GarbageCollectorTest, OrphanCascadeLeavesTheDependentsWithoutTheReference) {
  create_namespace("gc-orphan");
  Owner owner = create_owner("gc-orphan", "app");
  create_configmap("gc-orphan", "kept-1", {owner}, true);
  create_configmap("gc-orphan", "kept-2", {owner});

  // kubectl waits until the owner is gone, which takes the collector removing the orphan finalizer.
  CommandResult deleted =
      run_kubectl(kapi(), "delete owners.gc.example.com app -n gc-orphan --cascade=orphan --timeout=30s");
  ASSERT_EQ(deleted.exit_code, 0) << deleted.output;
  EXPECT_TRUE(gone(call("GET", "/apis/gc.example.com/v1/namespaces/gc-orphan/owners/app")));
  for (const char* name : {"kept-1", "kept-2"}) {
    CommandResult kept = run_kubectl(kapi(), std::string("get configmap -n gc-orphan -o json ") + name);
    ASSERT_EQ(kept.exit_code, 0) << kept.output;
    auto object = json_object(kept.output);
    EXPECT_FALSE(object["metadata"].as_object().contains("ownerReferences")) << kept.output;
    EXPECT_TRUE(text(object, {"metadata", "deletionTimestamp"}).empty()) << kept.output;
  }
}

TEST_F(GarbageCollectorTest, ADeploymentsReplicaSetGoesWithIt) {
  create_namespace("gc-apps");
  CommandResult made = run_kubectl(kapi(), "create deployment web -n gc-apps --image=nginx");
  ASSERT_EQ(made.exit_code, 0) << made.output;
  auto deployment = json_object(call("GET", "/apis/apps/v1/namespaces/gc-apps/deployments/web").body);
  // What the deployment controller would make (kapi runs no controller manager's deployment controller).
  json::object replica_set{
      {"apiVersion", "apps/v1"},
      {"kind", "ReplicaSet"},
      {"metadata",
       json::object{{"name", "web-1"},
                    {"labels", json::object{{"app", "web"}}},
                    {"ownerReferences", json::array{json::object{{"apiVersion", "apps/v1"},
                                                                 {"kind", "Deployment"},
                                                                 {"name", "web"},
                                                                 {"uid", text(deployment, {"metadata", "uid"})},
                                                                 {"controller", true},
                                                                 {"blockOwnerDeletion", true}}}}}},
      {"spec", json::object{{"selector", json::object{{"matchLabels", json::object{{"app", "web"}}}}},
                            {"template", json::object{{"metadata", json::object{{"labels", json::object{{"app", "web"}}}}},
                                                      {"spec", json::parse(R"({"containers":[{"name":"nginx","image":"nginx"}]})")}}}}}};
  create("/apis/apps/v1/namespaces/gc-apps/replicasets", json::serialize(replica_set));

  CommandResult deleted = run_kubectl(kapi(), "delete deployment web -n gc-apps --cascade=foreground --timeout=30s");
  ASSERT_EQ(deleted.exit_code, 0) << deleted.output;  // kubectl waited for the owner, so the dependent is gone
  EXPECT_TRUE(gone(call("GET", "/apis/apps/v1/namespaces/gc-apps/replicasets/web-1")));
  EXPECT_TRUE(gone(call("GET", "/apis/apps/v1/namespaces/gc-apps/deployments/web")));
}

TEST_F(GarbageCollectorTest, AClusterScopedOwnerOwnsObjectsOfAnyNamespace) {
  create_namespace("gc-cluster");
  Owner role = create("/apis/rbac.authorization.k8s.io/v1/clusterroles",
                      R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"gc-owner"}})");
  create_configmap("gc-cluster", "owned-by-a-cluster-role", {role});
  // Owned, not garbage: the collector leaves it while its owner lives.
  EXPECT_EQ(call("GET", configmap("gc-cluster", "owned-by-a-cluster-role")).status, 200);
  CommandResult deleted = run_kubectl(kapi(), "delete clusterrole gc-owner");
  ASSERT_EQ(deleted.exit_code, 0) << deleted.output;
  EXPECT_TRUE(gone(wait_until_gone(configmap("gc-cluster", "owned-by-a-cluster-role"))));
}

TEST_F(GarbageCollectorTest, AnOwnerOfAnotherNamespaceIsReportedAndCountsAsAbsent) {
  create_namespace("gc-owner-ns");
  create_namespace("gc-dependent-ns");
  Owner owner = create_configmap("gc-owner-ns", "owner", {});
  Owner dependent = create_configmap("gc-dependent-ns", "dependent", {owner});

  const std::string events = "/api/v1/namespaces/gc-dependent-ns/events";
  HttpResponse listed = wait_for(events, [](const HttpResponse& response) {
    return response.body.find("OwnerRefInvalidNamespace") != std::string::npos;
  });
  json::object event;
  json::object list = json_object(listed.body);
  for (const auto& item : list["items"].as_array())
    if (text(item.as_object(), {"reason"}) == "OwnerRefInvalidNamespace") event = item.as_object();
  ASSERT_FALSE(event.empty()) << listed.body;
  EXPECT_EQ(text(event, {"type"}), "Warning");
  EXPECT_EQ(text(event, {"involvedObject", "kind"}), "ConfigMap");
  EXPECT_EQ(text(event, {"involvedObject", "name"}), "dependent");
  EXPECT_EQ(text(event, {"involvedObject", "uid"}), dependent.uid);
  EXPECT_EQ(text(event, {"source", "component"}), "garbage-collector-controller");
  EXPECT_EQ(text(event, {"message"}), "ownerRef [v1/ConfigMap, namespace: gc-dependent-ns, name: owner, uid: " +
                                          owner.uid + "] does not exist in namespace \"gc-dependent-ns\"");
  // Its owner is not in its namespace: the dependent is garbage; the owner stays.
  EXPECT_TRUE(gone(wait_until_gone(configmap("gc-dependent-ns", "dependent"))));
  EXPECT_EQ(call("GET", configmap("gc-owner-ns", "owner")).status, 200);
}

}  // namespace
}  // namespace kapi::integration::garbage_collector_test
