#include "server/plugin/auth/node/graph.h"

#include "server/apis/core/pod_references.h"
#include "server/registry/json_fields.h"

#include <boost/json.hpp>

#include <mutex>

namespace kapi::authorization::node {
namespace {

using namespace registry::fields;

}  // namespace

std::string_view vertex_type_name(VertexType type) {
  switch (type) {
    case VertexType::ConfigMap: return "configmap";
    case VertexType::Node: return "node";
    case VertexType::Pod: return "pod";
    case VertexType::Pvc: return "pvc";
    case VertexType::Pv: return "pv";
    case VertexType::ResourceClaim: return "resourceclaim";
    case VertexType::Secret: return "secret";
    case VertexType::VolumeAttachment: return "volumeattachment";
    case VertexType::ServiceAccount: return "serviceAccount";
  }
  return "";
}

void Graph::set_pod(const json::object& pod) {
  const json::object* metadata = object_at(&pod, "metadata");
  const json::object* spec = object_at(&pod, "spec");
  const std::string namespace_(string_at(metadata, "namespace"));
  const std::string name(string_at(metadata, "name"));
  const std::string key = namespace_ + "/" + name;
  Pod entry{std::string(string_at(spec, "nodeName")), {}};
  std::unique_lock lock(mutex_);
  remove_pod_locked(key);
  if (entry.node.empty()) return;  // unbound pods grant nothing yet
  entry.uses.emplace_back(VertexType::Pod, namespace_, name);
  // A node must never create a pod that grants it other objects (NodeRestriction refuses such mirror pods too).
  const json::object* annotations = object_at(metadata, "annotations");
  if (!annotations || !annotations->contains("kubernetes.io/config.mirror")) {
    if (std::string account(string_at(spec, "serviceAccountName")); !account.empty())
      entry.uses.emplace_back(VertexType::ServiceAccount, namespace_, std::move(account));
    auto uses = [&](VertexType type) {
      return [&, type](std::string_view name) { entry.uses.emplace_back(type, namespace_, std::string(name)); };
    };
    if (spec) {
      apis::core::visit_pod_secret_names(*spec, uses(VertexType::Secret));
      apis::core::visit_pod_configmap_names(*spec, uses(VertexType::ConfigMap));
    }
    for_each_object(spec, "volumes", [&](const json::object& volume, std::size_t) {
      std::string claim(string_at(object_at(&volume, "persistentVolumeClaim"), "claimName"));
      // An ephemeral volume's claim is named after the pod and the volume (ephemeral.VolumeClaimName).
      if (claim.empty() && volume.contains("ephemeral")) claim = name + "-" + std::string(string_at(&volume, "name"));
      if (!claim.empty()) entry.uses.emplace_back(VertexType::Pvc, namespace_, std::move(claim));
    });
    // The claims of pod.status.resourceClaimStatuses (resourceclaim.Name): generated names are only known there.
    for_each_object(object_at(&pod, "status"), "resourceClaimStatuses", [&](const json::object& status, std::size_t) {
      if (std::string claim(string_at(&status, "resourceClaimName")); !claim.empty())
        entry.uses.emplace_back(VertexType::ResourceClaim, namespace_, std::move(claim));
    });
    for_each_object(spec, "resourceClaims", [&](const json::object& claim, std::size_t) {
      if (std::string claim_name(string_at(&claim, "resourceClaimName")); !claim_name.empty())
        entry.uses.emplace_back(VertexType::ResourceClaim, namespace_, std::move(claim_name));
    });
  }
  for (const ObjectKey& used : entry.uses) ++used_on_[used][entry.node];
  pods_.emplace(key, std::move(entry));
}

void Graph::remove_pod(std::string_view namespace_, std::string_view name) {
  std::unique_lock lock(mutex_);
  remove_pod_locked(std::string(namespace_) + "/" + std::string(name));
}

void Graph::remove_pod_locked(const std::string& key) {
  auto pod = pods_.find(key);
  if (pod == pods_.end()) return;
  for (const ObjectKey& used : pod->second.uses) {
    auto nodes = used_on_.find(used);
    if (nodes == used_on_.end()) continue;
    auto count = nodes->second.find(pod->second.node);
    if (count != nodes->second.end() && --count->second == 0) nodes->second.erase(count);
    if (nodes->second.empty()) used_on_.erase(nodes);
  }
  pods_.erase(pod);
}

void Graph::clear_pods() {
  std::unique_lock lock(mutex_);
  pods_.clear();
  used_on_.clear();
}

void Graph::set_persistent_volume(const json::object& pv) {
  const std::string name(string_at(object_at(&pv, "metadata"), "name"));
  const json::object* spec = object_at(&pv, "spec");
  const json::object* claim = object_at(spec, "claimRef");
  std::unique_lock lock(mutex_);
  remove_persistent_volume_locked(name);
  if (!claim) return;
  const std::string claim_namespace(string_at(claim, "namespace"));
  PersistentVolume entry{{VertexType::Pvc, claim_namespace, std::string(string_at(claim, "name"))}, {}};
  // pvutil.VisitPVSecretNames, the secrets a kubelet reads (kubeletVisible); they default to the claim's namespace.
  auto add = [&](const json::object* reference, std::string_view name_key = "name") {
    std::string secret(string_at(reference, name_key));
    if (secret.empty()) return;
    std::string namespace_(string_at(reference, "namespace"));
    entry.secrets.emplace_back(VertexType::Secret, namespace_.empty() ? claim_namespace : namespace_,
                               std::move(secret));
  };
  if (const json::object* azure = object_at(spec, "azureFile")) {
    std::string secret(string_at(azure, "secretName"));
    std::string namespace_(string_at(azure, "secretNamespace"));
    if (!secret.empty())
      entry.secrets.emplace_back(VertexType::Secret, namespace_.empty() ? claim_namespace : namespace_,
                                 std::move(secret));
  }
  for (std::string_view plugin : {"cephfs", "cinder", "flexVolume", "rbd", "scaleIO", "iscsi", "storageos"})
    add(object_at(object_at(spec, plugin), "secretRef"));
  if (const json::object* csi = object_at(spec, "csi"))
    for (std::string_view reference : {"nodePublishSecretRef", "nodeStageSecretRef", "nodeExpandSecretRef"})
      add(object_at(csi, reference));
  for (const ObjectKey& secret : entry.secrets) volumes_naming_secret_[secret].insert(name);
  persistent_volumes_.emplace(name, std::move(entry));
}

void Graph::remove_persistent_volume(std::string_view name) {
  std::unique_lock lock(mutex_);
  remove_persistent_volume_locked(std::string(name));
}

void Graph::remove_persistent_volume_locked(const std::string& name) {
  auto pv = persistent_volumes_.find(name);
  if (pv == persistent_volumes_.end()) return;
  for (const ObjectKey& secret : pv->second.secrets) {
    auto volumes = volumes_naming_secret_.find(secret);
    if (volumes == volumes_naming_secret_.end()) continue;
    volumes->second.erase(name);
    if (volumes->second.empty()) volumes_naming_secret_.erase(volumes);
  }
  persistent_volumes_.erase(pv);
}

void Graph::clear_persistent_volumes() {
  std::unique_lock lock(mutex_);
  persistent_volumes_.clear();
  volumes_naming_secret_.clear();
}

void Graph::set_volume_attachment(const json::object& attachment) {
  const std::string name(string_at(object_at(&attachment, "metadata"), "name"));
  std::string node(string_at(object_at(&attachment, "spec"), "nodeName"));
  std::unique_lock lock(mutex_);
  if (node.empty()) attachment_nodes_.erase(name);
  else attachment_nodes_[name] = std::move(node);
}

void Graph::remove_volume_attachment(std::string_view name) {
  std::unique_lock lock(mutex_);
  if (auto it = attachment_nodes_.find(name); it != attachment_nodes_.end()) attachment_nodes_.erase(it);
}

void Graph::clear_volume_attachments() {
  std::unique_lock lock(mutex_);
  attachment_nodes_.clear();
}

bool Graph::reaches(VertexType type, std::string_view namespace_, std::string_view name, std::string_view node) const {
  std::shared_lock lock(mutex_);
  return reaches_locked({type, std::string(namespace_), std::string(name)}, node);
}

bool Graph::reaches_locked(const ObjectKey& object, std::string_view node) const {
  const auto& [type, namespace_, name] = object;
  if (type == VertexType::VolumeAttachment) {
    auto attachment = attachment_nodes_.find(name);
    return attachment != attachment_nodes_.end() && attachment->second == node;
  }
  if (type == VertexType::Pv) {
    auto pv = persistent_volumes_.find(name);
    return pv != persistent_volumes_.end() && reaches_locked(pv->second.claim, node);
  }
  if (auto nodes = used_on_.find(object); nodes != used_on_.end() && nodes->second.contains(node)) return true;
  if (type != VertexType::Secret) return false;
  auto volumes = volumes_naming_secret_.find(object);
  if (volumes == volumes_naming_secret_.end()) return false;
  for (const std::string& volume : volumes->second)
    if (reaches_locked({VertexType::Pv, "", volume}, node)) return true;
  return false;
}

}  // namespace kapi::authorization::node
