// --authorization-mode=Node,RBAC --enable-admission-plugins=NodeRestriction against a running kapi: a kubelet
// creates only mirror pods bound to itself, writes only its own Node and adds no label outside the kubelet's set,
// refused with kube's messages.
#include "tests/integration/kapi_suite.h"

#include <boost/json.hpp>

namespace kapi::integration::node_restriction_test {
namespace {

class NodeRestrictionTest : public KapiSuite<NodeRestrictionTest> {
 public:
  static KapiOptions kapi_options() {
    return with_token_users("node-restriction",
                            "kubelet-a,system:node:node-a,3001,system:nodes\n"
                            "kubelet-b,system:node:node-b,3002,system:nodes\n",
                            {"--authorization-mode=Node,RBAC", "--enable-admission-plugins=NodeRestriction"});
  }

 protected:
  HttpResponse as(std::string_view token, std::string_view method, std::string_view target, std::string_view body = "",
                  std::string_view content_type = "application/json") {
    std::string authorization = "Bearer " + std::string(token);
    return kapi().connect_anonymous().request(
        std::string(method), std::string(target),
        {{"Authorization", authorization}, {"Content-Type", std::string(content_type)}}, std::string(body));
  }
  // The uid of node `name`, registered by its own kubelet.
  std::string register_node(std::string_view token, std::string_view name) {
    HttpResponse created =
        as(token, "POST", "/api/v1/nodes", R"({"metadata":{"name":")" + std::string(name) + R"("}})");
    EXPECT_EQ(created.status, 201) << created.body;
    return std::string(boost::json::parse(created.body).at("metadata").at("uid").as_string());
  }
  static std::string mirror_pod(std::string_view name, std::string_view node, std::string_view node_uid) {
    return R"({"metadata":{"name":")" + std::string(name) + R"(","annotations":{"kubernetes.io/config.mirror":"h"},
        "ownerReferences":[{"apiVersion":"v1","kind":"Node","name":"node-a","uid":")" +
           std::string(node_uid) +
           R"(","controller":true}]},
        "spec":{"nodeName":")" +
           std::string(node) + R"(","containers":[{"name":"c","image":"nginx"}]}})";
  }
};

TEST_F(NodeRestrictionTest, AKubeletCreatesOnlyMirrorPodsBoundToItself) {
  const std::string uid = register_node("kubelet-a", "node-a");
  HttpResponse mirror =
      as("kubelet-a", "POST", "/api/v1/namespaces/default/pods", mirror_pod("static-a", "node-a", uid));
  EXPECT_EQ(mirror.status, 201) << mirror.body;

  HttpResponse normal = as("kubelet-a", "POST", "/api/v1/namespaces/default/pods",
                           R"({"metadata":{"name":"normal"},"spec":{"nodeName":"node-a",
                               "containers":[{"name":"c","image":"nginx"}]}})");
  EXPECT_TRUE(is_status(normal, 403, "Forbidden")) << normal.body;
  EXPECT_EQ(status_message(normal),
            "pods \"normal\" is forbidden: pod does not have \"kubernetes.io/config.mirror\" annotation, node "
            "\"node-a\" can only create mirror pods");

  HttpResponse elsewhere =
      as("kubelet-a", "POST", "/api/v1/namespaces/default/pods", mirror_pod("static-b", "node-b", uid));
  EXPECT_TRUE(is_status(elsewhere, 403, "Forbidden")) << elsewhere.body;
  EXPECT_EQ(status_message(elsewhere),
            "pods \"static-b\" is forbidden: node \"node-a\" can only create pods with spec.nodeName set to itself");
}

TEST_F(NodeRestrictionTest, AKubeletWritesOnlyItsOwnNodeAndNoForeignLabel) {
  register_node("kubelet-b", "node-b");
  HttpResponse own = as("kubelet-b", "PATCH", "/api/v1/nodes/node-b/status",
                        R"({"status":{"conditions":[{"type":"Ready","status":"True","reason":"KubeletReady"}]}})",
                        "application/strategic-merge-patch+json");
  EXPECT_EQ(own.status, 200) << own.body;

  HttpResponse other = as("kubelet-a", "PATCH", "/api/v1/nodes/node-b/status",
                          R"({"status":{"conditions":[{"type":"Ready","status":"False","reason":"Spoofed"}]}})",
                          "application/strategic-merge-patch+json");
  EXPECT_TRUE(is_status(other, 403, "Forbidden")) << other.body;
  EXPECT_EQ(status_message(other),
            "nodes \"node-b\" is forbidden: node \"node-a\" is not allowed to modify node \"node-b\"");

  HttpResponse labelled = as("kubelet-b", "PATCH", "/api/v1/nodes/node-b",
                             R"({"metadata":{"labels":{"node-role.kubernetes.io/control-plane":"",
                                 "kubernetes.io/hostname":"node-b"}}})",
                             "application/merge-patch+json");
  EXPECT_TRUE(is_status(labelled, 403, "Forbidden")) << labelled.body;
  EXPECT_EQ(status_message(labelled),
            "nodes \"node-b\" is forbidden: is not allowed to modify labels: node-role.kubernetes.io/control-plane");

  HttpResponse kubelet_label =
      as("kubelet-b", "PATCH", "/api/v1/nodes/node-b", R"({"metadata":{"labels":{"kubernetes.io/hostname":"node-b"}}})",
         "application/merge-patch+json");
  EXPECT_EQ(kubelet_label.status, 200) << kubelet_label.body;
}

}  // namespace
}  // namespace kapi::integration::node_restriction_test
