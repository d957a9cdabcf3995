// --authorization-mode=Node: what a kubelet may reach through the pods bound to it, kube's denial reasons, and
// the graph kept in step as pods, volumes and attachments change.
#include "server/plugin/auth/node/node_authorizer.h"
#include "server/authorization/rbac/bootstrap_policy.h"
#include "server/registry/object_meta.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace kapi::authorization::node::node_authorizer_test {
namespace {

namespace json = boost::json;

json::object parse(std::string_view text) { return json::parse(text).as_object(); }

std::vector<rbac::PolicyRule> node_rules() {
  for (const auto& role : rbac::bootstrap_cluster_roles())
    if (registry::meta_string(role, "name") == "system:node") return rbac::rules_of(role);
  return {};
}

request::UserInfo kubelet(std::string node) { return {"system:node:" + node, "", {"system:nodes", "system:authenticated"}, {}}; }

Attributes request(const request::UserInfo& user, std::string verb, std::string resource, std::string namespace_,
                   std::string name, std::string subresource = {}, std::string group = {}) {
  Attributes attributes;
  attributes.user = user;
  attributes.verb = std::move(verb);
  attributes.resource_request = true;
  attributes.api_group = std::move(group);
  attributes.api_version = "v1";
  attributes.resource = std::move(resource);
  attributes.namespace_ = std::move(namespace_);
  attributes.name = std::move(name);
  attributes.subresource = std::move(subresource);
  return attributes;
}

const char* kWebPod = R"({"metadata":{"name":"web","namespace":"shop"},
  "spec":{"nodeName":"node-a","serviceAccountName":"web-sa","imagePullSecrets":[{"name":"registry"}],
    "containers":[{"name":"c","envFrom":[{"configMapRef":{"name":"settings"}}],
                   "env":[{"name":"P","valueFrom":{"secretKeyRef":{"name":"password","key":"p"}}}]}],
    "volumes":[{"name":"data","persistentVolumeClaim":{"claimName":"data"}},
               {"name":"scratch","ephemeral":{"volumeClaimTemplate":{}}},
               {"name":"tls","projected":{"sources":[{"secret":{"name":"tls"}},{"configMap":{"name":"ca"}}]}}]}})";

class NodeAuthorizerTest : public ::testing::Test {
 protected:
  std::shared_ptr<Graph> graph = std::make_shared<Graph>();
  NodeAuthorizer authorizer{graph, node_rules()};
};

TEST_F(NodeAuthorizerTest, AKubeletReadsWhatItsPodsUseAndNothingElse) {
  graph->set_pod(parse(kWebPod));
  for (auto [resource, name] : std::vector<std::pair<std::string, std::string>>{
           {"secrets", "registry"}, {"secrets", "password"}, {"secrets", "tls"}, {"configmaps", "settings"},
           {"configmaps", "ca"}}) {
    EXPECT_EQ(authorizer.authorize(request(kubelet("node-a"), "get", resource, "shop", name)).decision, Decision::Allow)
        << resource << "/" << name;
    Result other = authorizer.authorize(request(kubelet("node-b"), "get", resource, "shop", name));
    EXPECT_EQ(other.decision, Decision::NoOpinion);
    EXPECT_EQ(other.reason, "no relationship found between node 'node-b' and this object");
  }
  EXPECT_EQ(authorizer.authorize(request(kubelet("node-a"), "get", "persistentvolumeclaims", "shop", "data")).decision,
            Decision::Allow);
  EXPECT_EQ(authorizer.authorize(request(kubelet("node-a"), "get", "persistentvolumeclaims", "shop", "web-scratch"))
                .decision,
            Decision::Allow);
  EXPECT_EQ(authorizer.authorize(request(kubelet("node-a"), "get", "secrets", "shop", "unrelated")).decision,
            Decision::NoOpinion);
  EXPECT_EQ(authorizer.authorize(request(kubelet("node-a"), "create", "serviceaccounts", "shop", "web-sa", "token"))
                .decision,
            Decision::Allow);
  EXPECT_EQ(authorizer.authorize(request(kubelet("node-a"), "delete", "secrets", "shop", "registry")).reason,
            "can only read resources of this type");
  EXPECT_EQ(authorizer.authorize(request(kubelet("node-a"), "list", "secrets", "shop", "")).reason,
            "No Object name found");
}

TEST_F(NodeAuthorizerTest, TheGraphFollowsPodsBeingBoundMovedAndDeleted) {
  json::object pod = parse(kWebPod);
  pod["spec"].as_object().erase("nodeName");
  graph->set_pod(pod);  // not bound yet: grants nothing
  EXPECT_FALSE(graph->reaches(VertexType::Secret, "shop", "registry", "node-a"));
  pod["spec"].as_object()["nodeName"] = "node-a";
  graph->set_pod(pod);
  EXPECT_TRUE(graph->reaches(VertexType::Secret, "shop", "registry", "node-a"));
  json::object second = parse(kWebPod);
  second["metadata"].as_object()["name"] = "web-2";
  graph->set_pod(second);
  graph->remove_pod("shop", "web");
  EXPECT_TRUE(graph->reaches(VertexType::Secret, "shop", "registry", "node-a"));  // web-2 still uses it
  graph->remove_pod("shop", "web-2");
  EXPECT_FALSE(graph->reaches(VertexType::Secret, "shop", "registry", "node-a"));
  EXPECT_FALSE(graph->reaches(VertexType::Pod, "shop", "web-2", "node-a"));
}

TEST_F(NodeAuthorizerTest, MirrorPodsGrantNothingButThemselves) {
  json::object pod = parse(kWebPod);
  pod["metadata"].as_object()["annotations"] = json::object{{"kubernetes.io/config.mirror", "x"}};
  graph->set_pod(pod);
  EXPECT_TRUE(graph->reaches(VertexType::Pod, "shop", "web", "node-a"));
  EXPECT_FALSE(graph->reaches(VertexType::Secret, "shop", "registry", "node-a"));
}

TEST_F(NodeAuthorizerTest, PersistentVolumesAndTheirSecretsFollowTheirClaims) {
  graph->set_pod(parse(kWebPod));
  graph->set_persistent_volume(parse(R"({"metadata":{"name":"pv-1"},"spec":{"claimRef":{"namespace":"shop","name":"data"},
      "csi":{"driver":"d","volumeHandle":"h","nodePublishSecretRef":{"name":"csi-secret"}}}})"));
  EXPECT_EQ(authorizer.authorize(request(kubelet("node-a"), "get", "persistentvolumes", "", "pv-1")).decision,
            Decision::Allow);
  EXPECT_EQ(authorizer.authorize(request(kubelet("node-a"), "get", "secrets", "shop", "csi-secret")).decision,
            Decision::Allow);
  EXPECT_EQ(authorizer.authorize(request(kubelet("node-b"), "get", "persistentvolumes", "", "pv-1")).decision,
            Decision::NoOpinion);
  graph->remove_persistent_volume("pv-1");
  EXPECT_EQ(authorizer.authorize(request(kubelet("node-a"), "get", "secrets", "shop", "csi-secret")).decision,
            Decision::NoOpinion);
  graph->set_volume_attachment(parse(R"({"metadata":{"name":"va-1"},"spec":{"nodeName":"node-a"}})"));
  EXPECT_EQ(authorizer.authorize(request(kubelet("node-a"), "get", "volumeattachments", "", "va-1", "", "storage.k8s.io"))
                .decision,
            Decision::Allow);
}

TEST_F(NodeAuthorizerTest, NodesReadTheirOwnNodeAndPodsBoundToThem) {
  graph->set_pod(parse(kWebPod));
  EXPECT_EQ(authorizer.authorize(request(kubelet("node-a"), "get", "nodes", "", "node-a")).decision, Decision::Allow);
  EXPECT_EQ(authorizer.authorize(request(kubelet("node-a"), "get", "nodes", "", "node-b")).reason,
            "node 'node-a' cannot read 'node-b', only its own Node object");
  EXPECT_EQ(authorizer.authorize(request(kubelet("node-a"), "list", "nodes", "", "")).reason,
            "node 'node-a' cannot read all nodes, only its own Node object");
  Attributes list_pods = request(kubelet("node-a"), "list", "pods", "", "");
  EXPECT_EQ(authorizer.authorize(list_pods).reason, "can only list/watch pods with spec.nodeName field selector");
  list_pods.field_selector = "spec.nodeName=node-a";
  EXPECT_EQ(authorizer.authorize(list_pods).decision, Decision::Allow);
  list_pods.field_selector = "spec.nodeName=node-b";
  EXPECT_EQ(authorizer.authorize(list_pods).decision, Decision::NoOpinion);
  EXPECT_EQ(authorizer.authorize(request(kubelet("node-a"), "get", "pods", "shop", "web")).decision, Decision::Allow);
  EXPECT_EQ(authorizer.authorize(request(kubelet("node-b"), "get", "pods", "shop", "web")).decision,
            Decision::NoOpinion);
  EXPECT_EQ(authorizer.authorize(request(kubelet("node-a"), "patch", "pods", "shop", "web", "status")).decision,
            Decision::Allow);
}

TEST_F(NodeAuthorizerTest, LeasesOnlyInKubeNodeLeaseUnderTheNodesName) {
  auto lease = [&](std::string verb, std::string namespace_, std::string name) {
    return authorizer.authorize(request(kubelet("node-a"), verb, "leases", namespace_, name, "", "coordination.k8s.io"));
  };
  EXPECT_EQ(lease("update", "kube-node-lease", "node-a").decision, Decision::Allow);
  EXPECT_EQ(lease("create", "kube-node-lease", "").decision, Decision::Allow);
  EXPECT_EQ(lease("update", "kube-node-lease", "node-b").reason,
            "can only access node lease with the same name as the requesting node");
  EXPECT_EQ(lease("get", "default", "node-a").reason, "can only access leases in the \"kube-node-lease\" system namespace");
}

TEST_F(NodeAuthorizerTest, OtherResourcesFollowTheNodeRulesAndOtherUsersGetNoOpinion) {
  EXPECT_EQ(authorizer.authorize(request(kubelet("node-a"), "list", "services", "", "")).decision, Decision::Allow);
  EXPECT_EQ(authorizer.authorize(request(kubelet("node-a"), "create", "events", "shop", "")).decision,
            Decision::Allow);
  EXPECT_EQ(authorizer.authorize(request(kubelet("node-a"), "delete", "services", "shop", "x")).decision,
            Decision::NoOpinion);
  request::UserInfo jane{"jane", "", {"system:authenticated"}, {}};
  EXPECT_EQ(authorizer.authorize(request(jane, "get", "secrets", "shop", "registry")).decision, Decision::NoOpinion);
  // A system:node: name without the group is no node.
  request::UserInfo impostor{"system:node:node-a", "", {"system:authenticated"}, {}};
  EXPECT_EQ(authorizer.authorize(request(impostor, "get", "nodes", "", "node-a")).decision, Decision::NoOpinion);
  EXPECT_EQ(authorizer.authorize(request(kubelet(""), "get", "nodes", "", "x")).reason,
            "unknown node for user \"system:node:\"");
}

}  // namespace
}  // namespace kapi::authorization::node::node_authorizer_test
