#include "server/plugin/auth/node/node_authorizer.h"

#include "server/authorization/rbac/rbac_authorizer.h"
#include "server/selectors/field_selector.h"

#include <algorithm>

namespace kapi::authorization::node {
namespace {

constexpr std::string_view kNodeUserPrefix = "system:node:";
constexpr std::string_view kNodeLeaseNamespace = "kube-node-lease";

Result deny(std::string reason = {}) { return {Decision::NoOpinion, std::move(reason)}; }
Result allow() { return {Decision::Allow, ""}; }

bool one_of(std::string_view verb, std::initializer_list<std::string_view> verbs) {
  return std::find(verbs.begin(), verbs.end(), verb) != verbs.end();
}

// Whether the request's fieldSelector holds `field=value` (kube reads the parsed requirements; a selector
// that does not parse selects nothing here).
bool selects(const Attributes& attributes, std::string_view field, std::string_view value) {
  if (attributes.field_selector.empty()) return false;
  try {
    const auto selector = selectors::FieldSelector::parse(attributes.field_selector);
    return std::ranges::any_of(selector.requirements(), [&](const selectors::FieldRequirement& requirement) {
      return requirement.field == field && requirement.op == selectors::FieldRequirement::Operator::Equals &&
             requirement.value == value;
    });
  } catch (const selectors::SelectorParseError&) {
    return false;
  }
}

}  // namespace

std::optional<std::string> node_identity(const request::UserInfo& user) {
  if (!user.name.starts_with(kNodeUserPrefix)) return std::nullopt;
  if (std::find(user.groups.begin(), user.groups.end(), "system:nodes") == user.groups.end()) return std::nullopt;
  return user.name.substr(kNodeUserPrefix.size());
}

Result NodeAuthorizer::authorize(const Attributes& attributes) const {
  const std::optional<std::string> node = node_identity(attributes.user);
  if (!node) return deny();
  if (node->empty()) return deny("unknown node for user \"" + attributes.user.name + "\"");
  if (attributes.resource_request) {
    const std::string& group = attributes.api_group;
    const std::string& resource = attributes.resource;
    if (group.empty() && resource == "secrets") return authorize_read_namespaced(*node, VertexType::Secret, attributes);
    if (group.empty() && resource == "configmaps")
      return authorize_read_namespaced(*node, VertexType::ConfigMap, attributes);
    if (group.empty() && resource == "persistentvolumeclaims") {
      if (attributes.subresource == "status") return authorize_status_update(*node, VertexType::Pvc, attributes);
      return authorize_get(*node, VertexType::Pvc, attributes);
    }
    if (group.empty() && resource == "persistentvolumes") return authorize_get(*node, VertexType::Pv, attributes);
    if (group == "resource.k8s.io" && resource == "resourceclaims")
      return authorize_get(*node, VertexType::ResourceClaim, attributes);
    if (group == "storage.k8s.io" && resource == "volumeattachments")
      return authorize_get(*node, VertexType::VolumeAttachment, attributes);
    if (group.empty() && resource == "serviceaccounts") return authorize_create_token(*node, attributes);
    if (group == "coordination.k8s.io" && resource == "leases") return authorize_lease(*node, attributes);
    if (group == "storage.k8s.io" && resource == "csinodes") return authorize_csi_node(*node, attributes);
    if (group.empty() && resource == "nodes") return authorize_node(*node, attributes);
    if (group.empty() && resource == "pods") return authorize_pod(*node, attributes);
  }
  // Other resources are not subdivided: the static node rules decide.
  for (const rbac::PolicyRule& rule : node_rules_)
    if (rbac::rule_allows(attributes, rule)) return allow();
  return deny();
}

RuleSet NodeAuthorizer::rules_for(const request::UserInfo& user, const std::string& /*namespace_*/) const {
  if (node_identity(user)) return {.incomplete = true, .errors = {"node authorizer does not support user rule resolution"}};
  return {};
}

Result NodeAuthorizer::authorize_related(const std::string& node, VertexType type,
                                         const Attributes& attributes) const {
  if (attributes.name.empty()) return deny("No Object name found");
  if (!graph_->reaches(type, attributes.namespace_, attributes.name, node))
    return deny("no relationship found between node '" + node + "' and this object");
  return allow();
}

Result NodeAuthorizer::authorize_get(const std::string& node, VertexType type, const Attributes& attributes) const {
  if (attributes.verb != "get") return deny("can only get individual resources of this type");
  if (!attributes.subresource.empty()) return deny("cannot get subresource");
  return authorize_related(node, type, attributes);
}

Result NodeAuthorizer::authorize_read_namespaced(const std::string& node, VertexType type,
                                                 const Attributes& attributes) const {
  if (!one_of(attributes.verb, {"get", "list", "watch"})) return deny("can only read resources of this type");
  if (!attributes.subresource.empty()) return deny("cannot read subresource");
  if (attributes.namespace_.empty()) return deny("can only read namespaced object of this type");
  return authorize_related(node, type, attributes);
}

Result NodeAuthorizer::authorize_status_update(const std::string& node, VertexType type,
                                               const Attributes& attributes) const {
  if (!one_of(attributes.verb, {"update", "patch"})) return deny("can only get/update/patch this type");
  if (attributes.subresource != "status") return deny("can only update status subresource");
  return authorize_related(node, type, attributes);
}

Result NodeAuthorizer::authorize_create_token(const std::string& node, const Attributes& attributes) const {
  if (attributes.verb != "create" || attributes.name.empty())
    return deny("can only create tokens for individual service accounts");
  if (attributes.subresource != "token") return deny("can only create token subresource of serviceaccount");
  return authorize_related(node, VertexType::ServiceAccount, attributes);
}

Result NodeAuthorizer::authorize_lease(const std::string& node, const Attributes& attributes) const {
  const std::string& verb = attributes.verb;
  if (!one_of(verb, {"get", "create", "update", "patch", "delete"}))
    return deny("can only get, create, update, patch, or delete a node lease");
  if (attributes.namespace_ != kNodeLeaseNamespace)
    return deny("can only access leases in the \"" + std::string(kNodeLeaseNamespace) + "\" system namespace");
  // The name is unknown on create: NodeRestriction checks it there.
  if (verb != "create" && attributes.name != node)
    return deny("can only access node lease with the same name as the requesting node");
  return allow();
}

Result NodeAuthorizer::authorize_csi_node(const std::string& node, const Attributes& attributes) const {
  const std::string& verb = attributes.verb;
  if (!one_of(verb, {"get", "create", "update", "patch", "delete"}))
    return deny("can only get, create, update, patch, or delete a CSINode");
  if (!attributes.subresource.empty()) return deny("cannot authorize CSINode subresources");
  if (verb != "create" && attributes.name != node)
    return deny("can only access CSINode with the same name as the requesting node");
  return allow();
}

Result NodeAuthorizer::authorize_node(const std::string& node, const Attributes& attributes) const {
  const std::string& verb = attributes.verb;
  if (attributes.subresource.empty()) {
    // NodeRestriction limits a node to creating and changing its own Node.
    if (one_of(verb, {"create", "update", "patch"})) return allow();
    if (one_of(verb, {"get", "list", "watch"})) {
      // The name, not the graph: a kubelet reads its Node before creating it.
      if (attributes.name == node) return allow();
      if (attributes.name.empty()) return deny("node '" + node + "' cannot read all nodes, only its own Node object");
      return deny("node '" + node + "' cannot read '" + attributes.name + "', only its own Node object");
    }
  } else if (attributes.subresource == "status" && one_of(verb, {"update", "patch"})) {
    return allow();
  }
  return deny();
}

Result NodeAuthorizer::authorize_pod(const std::string& node, const Attributes& attributes) const {
  const std::string& verb = attributes.verb;
  if (attributes.subresource.empty()) {
    if (verb == "get") return authorize_get(node, VertexType::Pod, attributes);
    if (verb == "list" || verb == "watch") {
      if (selects(attributes, "spec.nodeName", node)) return allow();
      if (!attributes.name.empty()) return authorize_related(node, VertexType::Pod, attributes);
      return deny("can only list/watch pods with spec.nodeName field selector");
    }
    // Mirror pods: NodeRestriction limits them to pods bound to the node.
    if (verb == "create" || verb == "delete") return allow();
  } else if (attributes.subresource == "status") {
    if (verb == "update" || verb == "patch") return allow();
  } else if (attributes.subresource == "eviction") {
    if (verb == "create") return allow();
  }
  return deny();
}

}  // namespace kapi::authorization::node
