// --authorization-mode=Node,RBAC against a running kapi: a kubelet reads the secrets and configmaps of the pods
// bound to its node, once the node authorizer's graph has seen the pod, and nothing else, with kube's denial; its
// own Node and the pods bound to it, not other nodes' (AuthorizeNodeWithSelectors, on in 1.32).
#include "tests/integration/kapi_suite.h"

#include <thread>

namespace kapi::integration::node_authorization_test {
namespace {

using namespace std::chrono_literals;

class NodeAuthorizationTest : public KapiSuite<NodeAuthorizationTest> {
 public:
  static KapiOptions kapi_options() {
    return with_token_users("node-authz",
                            "kubelet-a,system:node:node-a,3001,system:nodes\n"
                            "kubelet-b,system:node:node-b,3002,system:nodes\n",
                            {"--authorization-mode=Node,RBAC"});
  }

 protected:
  HttpResponse as(std::string_view token, std::string_view target) {
    std::string authorization = "Bearer " + std::string(token);
    return kapi().connect_anonymous().request("GET", target, {{"Authorization", authorization}});
  }
  // The status `token` gets once the graph has caught up (bounded: the feed follows the watch cache).
  int settle(std::string_view token, std::string_view target, int expected) {
    int status = 0;
    for (auto deadline = std::chrono::steady_clock::now() + 10s; std::chrono::steady_clock::now() < deadline;
         std::this_thread::sleep_for(20ms))
      if ((status = as(token, target).status) == expected) break;
    return status;
  }
  void create(std::string_view target, std::string_view body) {
    HttpResponse created =
        kapi().connect_admin().request("POST", target, {{"Content-Type", "application/json"}}, body);
    ASSERT_EQ(created.status, 201) << created.body;
  }
};

TEST_F(NodeAuthorizationTest, AKubeletReadsWhatThePodsBoundToItUse) {
  create("/api/v1/namespaces", R"({"metadata":{"name":"shop"}})");
  create("/api/v1/namespaces/shop/secrets", R"({"metadata":{"name":"web-password"},"stringData":{"p":"x"}})");
  create("/api/v1/namespaces/shop/secrets", R"({"metadata":{"name":"other"},"stringData":{"p":"x"}})");
  create("/api/v1/namespaces/shop/configmaps", R"({"metadata":{"name":"web-settings"},"data":{"a":"b"}})");
  create("/api/v1/namespaces/shop/pods", R"({"metadata":{"name":"web"},"spec":{"nodeName":"node-a",
      "containers":[{"name":"c","image":"nginx","envFrom":[{"configMapRef":{"name":"web-settings"}}],
      "env":[{"name":"P","valueFrom":{"secretKeyRef":{"name":"web-password","key":"p"}}}]}]}})");

  EXPECT_EQ(settle("kubelet-a", "/api/v1/namespaces/shop/secrets/web-password", 200), 200);
  EXPECT_EQ(as("kubelet-a", "/api/v1/namespaces/shop/configmaps/web-settings").status, 200);
  EXPECT_EQ(as("kubelet-a", "/api/v1/namespaces/shop/pods/web").status, 200);

  HttpResponse unrelated = as("kubelet-a", "/api/v1/namespaces/shop/secrets/other");
  EXPECT_TRUE(is_status(unrelated, 403, "Forbidden"));
  EXPECT_EQ(status_message(unrelated),
            "secrets \"other\" is forbidden: User \"system:node:node-a\" cannot get resource \"secrets\" in API "
            "group \"\" in the namespace \"shop\": no relationship found between node 'node-a' and this object");
  HttpResponse other_node = as("kubelet-b", "/api/v1/namespaces/shop/secrets/web-password");
  EXPECT_TRUE(is_status(other_node, 403, "Forbidden"));
  EXPECT_EQ(as("kubelet-b", "/api/v1/namespaces/shop/pods/web").status, 403);

  // Deleting the pod takes the access away.
  HttpResponse deleted = kapi().connect_admin().request("DELETE", "/api/v1/namespaces/shop/pods/web?gracePeriodSeconds=0");
  ASSERT_EQ(deleted.status, 200) << deleted.body;
  EXPECT_EQ(settle("kubelet-a", "/api/v1/namespaces/shop/secrets/web-password", 403), 403);
}

TEST_F(NodeAuthorizationTest, AKubeletReadsItsOwnNodeAndListsOnlyItsPods) {
  EXPECT_EQ(as("kubelet-a", "/api/v1/nodes/node-a").status, 404) << "allowed, though not created yet";
  HttpResponse other = as("kubelet-a", "/api/v1/nodes/node-b");
  EXPECT_TRUE(is_status(other, 403, "Forbidden"));
  EXPECT_EQ(status_message(other),
            "nodes \"node-b\" is forbidden: User \"system:node:node-a\" cannot get resource \"nodes\" in API group "
            "\"\" at the cluster scope: node 'node-a' cannot read 'node-b', only its own Node object");
  EXPECT_EQ(as("kubelet-a", "/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-a").status, 200);
  HttpResponse all_pods = as("kubelet-a", "/api/v1/pods");
  EXPECT_TRUE(is_status(all_pods, 403, "Forbidden"));
  EXPECT_EQ(status_message(all_pods),
            "pods is forbidden: User \"system:node:node-a\" cannot list resource \"pods\" in API group \"\" at the "
            "cluster scope: can only list/watch pods with spec.nodeName field selector");
  // The static node rules: services are readable, other kinds are not.
  EXPECT_EQ(as("kubelet-a", "/api/v1/services").status, 200);
  EXPECT_EQ(as("kubelet-a", "/apis/apps/v1/deployments").status, 403);
}

}  // namespace
}  // namespace kapi::integration::node_authorization_test
