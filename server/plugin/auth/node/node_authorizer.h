#pragma once
// --authorization-mode=Node (plugin/pkg/auth/authorizer/node/node_authorizer.go, with AuthorizeNodeWithSelectors
// on as in 1.32): a kubelet (user system:node:<name> in group system:nodes) may read the secrets, configmaps,
// PVCs, PVs, resource claims and volume attachments the graph relates to its node, create tokens for the service
// accounts of its pods, read its own Node and the pods bound to it, and otherwise do what the system:node role's
// rules allow. Any other user gets no opinion, so the next authorizer (RBAC) decides.
#include "server/authorization/authorizer.h"
#include "server/plugin/auth/node/graph.h"
#include "server/authorization/rbac/policy.h"

#include <memory>
#include <vector>

namespace kapi::authorization::node {

class NodeAuthorizer final : public Authorizer {
 public:
  NodeAuthorizer(std::shared_ptr<const Graph> graph, std::vector<rbac::PolicyRule> node_rules)
      : graph_(std::move(graph)), node_rules_(std::move(node_rules)) {}

  Result authorize(const Attributes& attributes) const override;
  // Nodes' permissions are not enumerable (kube's RulesFor says incomplete for nodes).
  RuleSet rules_for(const request::UserInfo& user, const std::string& namespace_) const override;

 private:
  Result authorize_related(const std::string& node, VertexType type, const Attributes& attributes) const;
  Result authorize_get(const std::string& node, VertexType type, const Attributes& attributes) const;
  Result authorize_read_namespaced(const std::string& node, VertexType type, const Attributes& attributes) const;
  Result authorize_status_update(const std::string& node, VertexType type, const Attributes& attributes) const;
  Result authorize_create_token(const std::string& node, const Attributes& attributes) const;
  Result authorize_lease(const std::string& node, const Attributes& attributes) const;
  Result authorize_csi_node(const std::string& node, const Attributes& attributes) const;
  Result authorize_node(const std::string& node, const Attributes& attributes) const;
  Result authorize_pod(const std::string& node, const Attributes& attributes) const;

  std::shared_ptr<const Graph> graph_;
  std::vector<rbac::PolicyRule> node_rules_;
};

// nodeidentifier.NodeIdentity: the node a user is (the name after "system:node:", for a member of
// system:nodes); nullopt for a user that is no node. An empty name: a node kube cannot identify.
std::optional<std::string> node_identity(const request::UserInfo& user);

}  // namespace kapi::authorization::node
