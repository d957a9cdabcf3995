// NodeRestriction (kube's plugin/pkg/admission/noderestriction/admission.go, release-1.32): a kubelet (user
// system:node:<name> in group system:nodes) may only write what belongs to its own node. It creates only mirror
// pods bound to itself that reference no other API object, deletes and updates the status of pods bound to itself,
// evicts only its own pods, modifies only its own Node (never its taints, ownerReferences, a new configSource or
// labels outside the kubelet's set), changes only status.capacity and status.conditions of PVCs, requests only
// tokens bound to a pod on itself, and touches only its own Lease in kube-node-lease and its own CSINode. Other
// users pass untouched.
// kapi serves no resourceslices, so kube's ResourceSlice rule has nothing to restrict here.
#include "base/go_quote.h"
#include "server/admission/errors.h"
#include "server/admission/plugin.h"
#include "server/apierrors/errors.h"
#include "server/plugin/admission/node_restriction_rules.h"
#include "server/plugin/admission/object_lookup.h"
#include "server/plugin/auth/node/node_authorizer.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"

namespace kapi::admission {
namespace {

using namespace registry::fields;
using registry::meta_string;

constexpr std::string_view kMirrorPodAnnotation = "kubernetes.io/config.mirror";
constexpr std::string_view kNodeLeaseNamespace = "kube-node-lease";

std::string_view node_name_of_pod(const json::object& pod) { return string_at(object_at(pod, "spec"), "nodeName"); }

// object[outer][key], null when either is missing.
const json::value* field_at(const json::object& object, std::string_view outer, std::string_view key) {
  const json::object* inner = object_at(object, outer);
  return inner ? inner->if_contains(key) : nullptr;
}

class NodeRestriction final : public Plugin {
 public:
  NodeRestriction(registry::Store* pods, registry::Store* nodes) : pods_(pods), nodes_(nodes) {}

  bool handles(const Attributes& attributes) const override {
    if (attributes.operation == Operation::Connect || !attributes.user) return false;
    return authorization::node::node_identity(*attributes.user).has_value();
  }
  bool mutates() const override { return true; }

  asio::awaitable<void> admit(Attributes& attributes) override {
    const std::string node = *authorization::node::node_identity(*attributes.user);
    if (node.empty())
      throw forbidden(attributes, "could not determine node from user " + base::go_quote(attributes.user->name));
    const std::string& group = attributes.resource.group;
    const std::string& resource = attributes.resource.resource;
    if (group.empty() && resource == "pods") {
      if (attributes.subresource.empty()) {
        co_await admit_pod(node, attributes);
      } else if (attributes.subresource == "status") {
        admit_pod_status(node, attributes);
      } else if (attributes.subresource == "eviction") {
        co_await admit_pod_eviction(node, attributes);
      } else {
        throw forbidden(attributes, "unexpected pod subresource " + base::go_quote(attributes.subresource) +
                                        ", only 'status' and 'eviction' are allowed");
      }
    } else if (group.empty() && resource == "nodes") {
      admit_node(node, attributes);
    } else if (group.empty() && resource == "persistentvolumeclaims") {
      if (attributes.subresource != "status") throw forbidden(attributes, "may only update PVC status");
      admit_pvc_status(node, attributes);
    } else if (group.empty() && resource == "serviceaccounts") {
      co_await admit_service_account(node, attributes);
    } else if (group == "coordination.k8s.io" && resource == "leases") {
      admit_lease(node, attributes);
    } else if (group == "storage.k8s.io" && resource == "csinodes") {
      admit_csi_node(node, attributes);
    }
  }

 private:
  // A pod from the informer kube reads (its lister): NotFound as the lister says it.
  asio::awaitable<json::object> existing_pod(const std::string& namespace_, const std::string& name) {
    std::optional<json::object> pod;
    if (pods_) pod = co_await find_object(*pods_, namespace_, name);
    if (!pod) throw apierrors::ApiError(apierrors::not_found("", "pods", name));
    co_return std::move(*pod);
  }

  asio::awaitable<void> admit_pod(const std::string& node, const Attributes& attributes) {
    if (attributes.operation == Operation::Create) {
      co_await admit_pod_create(node, attributes);
    } else if (attributes.operation == Operation::Delete) {
      const json::object existing = co_await existing_pod(attributes.namespace_, attributes.name);
      if (node_name_of_pod(existing) != node)
        throw forbidden(attributes,
                        "node " + base::go_quote(node) + " can only delete pods with spec.nodeName set to itself");
    } else {
      throw forbidden(attributes, "unexpected operation " + base::go_quote(to_string(attributes.operation)) +
                                      ", node " + base::go_quote(node) + " can only create and delete mirror pods");
    }
  }

  asio::awaitable<void> admit_pod_create(const std::string& node, const Attributes& attributes) {
    const json::object& pod = attributes.new_object();
    const json::object* annotations = object_at(object_at(pod, "metadata"), "annotations");
    if (!annotations || !annotations->contains(kMirrorPodAnnotation))
      throw forbidden(attributes, "pod does not have " + base::go_quote(kMirrorPodAnnotation) + " annotation, node " +
                                      base::go_quote(node) + " can only create mirror pods");
    if (node_name_of_pod(pod) != node)
      throw forbidden(attributes,
                      "node " + base::go_quote(node) + " can only create pods with spec.nodeName set to itself");
    const json::array* owners = array_at(object_at(pod, "metadata"), "ownerReferences");
    if (owners && owners->size() > 1)
      throw forbidden(attributes, "node " + base::go_quote(node) +
                                      " can only create pods with a single owner reference set to itself");
    if (owners && owners->size() == 1 && owners->front().is_object())
      co_await check_owner(node, owners->front().as_object(), attributes);

    const json::object* spec = object_at(pod, "spec");
    if (!string_at(spec, "serviceAccountName").empty())
      throw forbidden(attributes,
                      "node " + base::go_quote(node) + " can not create pods that reference a service account");
    if (spec && node_restriction::references_secrets(*spec))
      throw forbidden(attributes, "node " + base::go_quote(node) + " can not create pods that reference secrets");
    if (spec && node_restriction::references_config_maps(*spec))
      throw forbidden(attributes, "node " + base::go_quote(node) + " can not create pods that reference configmaps");
    if (spec && node_restriction::references_cluster_trust_bundles(*spec))
      throw forbidden(attributes,
                      "node " + base::go_quote(node) + " can not create pods that reference clustertrustbundles");
    if (spec && node_restriction::references_persistent_volume_claims(*spec))
      throw forbidden(attributes,
                      "node " + base::go_quote(node) + " can not create pods that reference persistentvolumeclaims");
    // The CVE-2025-4563 fix of the 1.32 branch: claims would reach the node's allocated devices.
    const json::array* claims = array_at(spec, "resourceClaims");
    if (claims && !claims->empty())
      throw forbidden(attributes,
                      "node " + base::go_quote(node) + " can not create pods that reference resourceclaims");
  }

  // The single owner a mirror pod may have: its node, as controller, without blockOwnerDeletion, with its uid.
  asio::awaitable<void> check_owner(const std::string& node, const json::object& owner, const Attributes& attributes) {
    if (string_at(owner, "apiVersion") != "v1" || string_at(owner, "kind") != "Node" ||
        string_at(owner, "name") != node)
      throw forbidden(attributes,
                      "node " + base::go_quote(node) + " can only create pods with an owner reference set to itself");
    if (!bool_at(owner, "controller"))
      throw forbidden(attributes, "node " + base::go_quote(node) +
                                      " can only create pods with a controller owner reference set to itself");
    if (bool_at(owner, "blockOwnerDeletion"))
      throw forbidden(attributes,
                      "node " + base::go_quote(node) + " must not set blockOwnerDeletion on an owner reference");
    std::optional<json::object> registered;
    if (nodes_) registered = co_await find_object(*nodes_, "", node);
    if (!registered) throw apierrors::ApiError(apierrors::not_found("", "nodes", node));
    const std::string_view uid = meta_string(*registered, "uid");
    if (string_at(owner, "uid") != uid)
      throw forbidden(attributes, "node " + node + " UID mismatch: expected " + std::string(string_at(owner, "uid")) +
                                      " got " + std::string(uid));
  }

  void admit_pod_status(const std::string& node, const Attributes& attributes) {
    if (attributes.operation != Operation::Update || !attributes.old_object || !attributes.object)
      throw forbidden(attributes, "unexpected operation " + base::go_quote(to_string(attributes.operation)));
    if (node_name_of_pod(*attributes.old_object) != node)
      throw forbidden(attributes, "node " + base::go_quote(node) +
                                      " can only update pod status for pods with spec.nodeName set to itself");
    const json::object& old_pod = *attributes.old_object;
    const json::object& new_pod = attributes.new_object();
    if (!node_restriction::semantically_equal(field_at(old_pod, "metadata", "labels"),
                                              field_at(new_pod, "metadata", "labels")))
      throw forbidden(attributes, "node " + base::go_quote(node) + " cannot update labels through pod status");
    if (!node_restriction::resource_claim_statuses_equal(
            array_at(object_at(old_pod, "status"), "resourceClaimStatuses"),
            array_at(object_at(new_pod, "status"), "resourceClaimStatuses")))
      throw forbidden(attributes, "node " + base::go_quote(node) + " cannot update resource claim statues");
  }

  asio::awaitable<void> admit_pod_eviction(const std::string& node, const Attributes& attributes) {
    if (attributes.operation != Operation::Create)
      throw forbidden(attributes, "unexpected operation " + std::string(to_string(attributes.operation)));
    std::string pod_name = attributes.name;
    if (pod_name.empty() && attributes.object) pod_name = std::string(meta_string(attributes.new_object(), "name"));
    if (pod_name.empty()) throw forbidden(attributes, "could not determine pod from request data");
    const json::object existing = co_await existing_pod(attributes.namespace_, pod_name);
    if (node_name_of_pod(existing) != node)
      throw forbidden(attributes, "node " + node + " can only evict pods with spec.nodeName set to itself");
  }

  void admit_pvc_status(const std::string& node, const Attributes& attributes) {
    if (attributes.operation != Operation::Update || !attributes.old_object || !attributes.object)
      throw forbidden(attributes, "unexpected operation " + base::go_quote(to_string(attributes.operation)));
    const std::string difference =
        node_restriction::pvc_difference_outside_status(*attributes.old_object, attributes.new_object());
    if (!difference.empty())
      throw forbidden(attributes, "node " + base::go_quote(node) +
                                      " is not allowed to update fields other than status.quantity and "
                                      "status.conditions: " +
                                      difference);
  }

  void admit_node(const std::string& node, const Attributes& attributes) {
    if (attributes.name != node)
      throw forbidden(attributes, "node " + base::go_quote(node) + " is not allowed to modify node " +
                                      base::go_quote(attributes.name));
    if (attributes.operation == Operation::Create && attributes.object) {
      const json::object& created = attributes.new_object();
      const json::value* config_source = field_at(created, "spec", "configSource");
      if (config_source && !config_source->is_null())
        throw forbidden(attributes,
                        "node " + base::go_quote(node) + " is not allowed to create pods with a non-nil configSource");
      const auto forbidden_labels =
          node_restriction::forbidden_labels(node_restriction::modified_labels(labels_of(created), nullptr));
      if (!forbidden_labels.empty())
        throw forbidden(attributes, "node " + base::go_quote(node) + " is not allowed to set the following labels: " +
                                        node_restriction::join(forbidden_labels));
    }
    if (attributes.operation == Operation::Update && attributes.object && attributes.old_object) {
      const json::object& updated = attributes.new_object();
      const json::object& old = *attributes.old_object;
      const json::value* config_source = field_at(updated, "spec", "configSource");
      if (config_source && !config_source->is_null() &&
          !node_restriction::semantically_equal(config_source, field_at(old, "spec", "configSource")))
        throw forbidden(attributes, "node " + base::go_quote(node) +
                                        " is not allowed to update configSource to a new non-nil configSource");
      if (!node_restriction::semantically_equal(field_at(updated, "spec", "taints"), field_at(old, "spec", "taints")))
        throw forbidden(attributes, "node " + base::go_quote(node) + " is not allowed to modify taints");
      // The CVE-2025-5187 fix of the 1.32 branch: an owner reference would let the garbage collector delete the Node.
      if (!node_restriction::semantically_equal(field_at(updated, "metadata", "ownerReferences"),
                                                field_at(old, "metadata", "ownerReferences")))
        throw forbidden(attributes, "node " + base::go_quote(node) + " is not allowed to modify ownerReferences");
      const auto forbidden_labels =
          node_restriction::forbidden_labels(node_restriction::modified_labels(labels_of(updated), labels_of(old)));
      if (!forbidden_labels.empty())
        throw forbidden(attributes, "is not allowed to modify labels: " + node_restriction::join(forbidden_labels));
    }
  }

  static const json::object* labels_of(const json::object& object) {
    return object_at(object_at(object, "metadata"), "labels");
  }

  asio::awaitable<void> admit_service_account(const std::string& node, const Attributes& attributes) {
    if (attributes.operation != Operation::Create || attributes.subresource != "token" || !attributes.object) co_return;
    const json::object* reference = object_at(object_at(attributes.new_object(), "spec"), "boundObjectRef");
    if (!reference || string_at(reference, "apiVersion") != "v1" || string_at(reference, "kind") != "Pod" ||
        string_at(reference, "name").empty())
      throw forbidden(attributes, "node requested token not bound to a pod");
    const std::string uid(string_at(reference, "uid"));
    if (uid.empty()) throw forbidden(attributes, "node requested token with a pod binding without a uid");
    const json::object pod = co_await existing_pod(attributes.namespace_, std::string(string_at(reference, "name")));
    if (uid != meta_string(pod, "uid"))
      throw forbidden(attributes, "the UID in the bound object reference (" + uid +
                                      ") does not match the UID in record. The object might have been deleted and "
                                      "then recreated");
    if (node_name_of_pod(pod) != node)
      throw forbidden(attributes, "node requested token bound to a pod scheduled on a different node");
  }

  static std::string name_on_request(const Attributes& attributes) {
    // On create kube reads the name from the proposed object.
    if (attributes.operation == Operation::Create && attributes.object)
      return std::string(meta_string(attributes.new_object(), "name"));
    return attributes.name;
  }

  void admit_lease(const std::string& node, const Attributes& attributes) {
    if (attributes.namespace_ != kNodeLeaseNamespace)
      throw forbidden(attributes,
                      "can only access leases in the " + base::go_quote(kNodeLeaseNamespace) + " system namespace");
    if (name_on_request(attributes) != node)
      throw forbidden(attributes, "can only access node lease with the same name as the requesting node");
  }

  void admit_csi_node(const std::string& node, const Attributes& attributes) {
    if (name_on_request(attributes) != node)
      throw forbidden(attributes, "can only access CSINode with the same name as the requesting node");
  }

  registry::Store* pods_;
  registry::Store* nodes_;
};

}  // namespace

std::unique_ptr<Plugin> make_node_restriction(const PluginContext& context) {
  return std::make_unique<NodeRestriction>(context.stores("", "pods"), context.stores("", "nodes"));
}

}  // namespace kapi::admission
