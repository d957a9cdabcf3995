#include "server/plugin/auth/node/graph.h"

#include <boost/json.hpp>

#include <mutex>

namespace kapi::authorization::node {
namespace {

namespace json = boost::json;

const json::object* object_at(const json::object* parent, std::string_view key) {
  if (!parent) return nullptr;
  const json::value* value = parent->if_contains(key);
  return value && value->is_object() ? &value->as_object() : nullptr;
}

const json::array* array_at(const json::object* parent, std::string_view key) {
  if (!parent) return nullptr;
  const json::value* value = parent->if_contains(key);
  return value && value->is_array() ? &value->as_array() : nullptr;
}

std::string string_at(const json::object* parent, std::string_view key) {
  if (!parent) return {};
  const json::value* value = parent->if_contains(key);
  return value && value->is_string() ? std::string(value->as_string()) : std::string();
}

template <typename Visit>
void each_object(const json::array* items, Visit visit) {
  if (!items) return;
  for (const json::value& item : *items)
    if (item.is_object()) visit(item.as_object());
}

// podutil.VisitContainers over containers, initContainers and ephemeralContainers.
template <typename Visit>
void each_container(const json::object* spec, Visit visit) {
  for (std::string_view list : {"initContainers", "containers", "ephemeralContainers"})
    each_object(array_at(spec, list), visit);
}

// podutil.VisitPodSecretNames and VisitPodConfigmapNames.
void add_pod_references(const json::object* spec, const std::string& namespace_, std::vector<std::tuple<VertexType, std::string, std::string>>& uses) {
  auto add = [&](VertexType type, std::string name) {
    if (!name.empty()) uses.emplace_back(type, namespace_, std::move(name));
  };
  each_object(array_at(spec, "imagePullSecrets"),
              [&](const json::object& reference) { add(VertexType::Secret, string_at(&reference, "name")); });
  each_container(spec, [&](const json::object& container) {
    each_object(array_at(&container, "envFrom"), [&](const json::object& source) {
      add(VertexType::Secret, string_at(object_at(&source, "secretRef"), "name"));
      add(VertexType::ConfigMap, string_at(object_at(&source, "configMapRef"), "name"));
    });
    each_object(array_at(&container, "env"), [&](const json::object& variable) {
      const json::object* from = object_at(&variable, "valueFrom");
      add(VertexType::Secret, string_at(object_at(from, "secretKeyRef"), "name"));
      add(VertexType::ConfigMap, string_at(object_at(from, "configMapKeyRef"), "name"));
    });
  });
  each_object(array_at(spec, "volumes"), [&](const json::object& volume) {
    add(VertexType::Secret, string_at(object_at(&volume, "secret"), "secretName"));
    add(VertexType::Secret, string_at(object_at(&volume, "azureFile"), "secretName"));
    for (std::string_view plugin : {"cephfs", "cinder", "flexVolume", "rbd", "scaleIO", "iscsi", "storageos"})
      add(VertexType::Secret, string_at(object_at(object_at(&volume, plugin), "secretRef"), "name"));
    add(VertexType::Secret, string_at(object_at(object_at(&volume, "csi"), "nodePublishSecretRef"), "name"));
    add(VertexType::ConfigMap, string_at(object_at(&volume, "configMap"), "name"));
    each_object(array_at(object_at(&volume, "projected"), "sources"), [&](const json::object& source) {
      add(VertexType::Secret, string_at(object_at(&source, "secret"), "name"));
      add(VertexType::ConfigMap, string_at(object_at(&source, "configMap"), "name"));
    });
  });
}

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
  const std::string namespace_ = string_at(metadata, "namespace");
  const std::string name = string_at(metadata, "name");
  const std::string key = namespace_ + "/" + name;
  Pod entry{string_at(spec, "nodeName"), {}};
  std::unique_lock lock(mutex_);
  remove_pod_locked(key);
  if (entry.node.empty()) return;  // unbound pods grant nothing yet
  entry.uses.emplace_back(VertexType::Pod, namespace_, name);
  // A node must never create a pod that grants it other objects (NodeRestriction refuses such mirror pods too).
  const json::object* annotations = object_at(metadata, "annotations");
  if (!annotations || !annotations->contains("kubernetes.io/config.mirror")) {
    if (std::string account = string_at(spec, "serviceAccountName"); !account.empty())
      entry.uses.emplace_back(VertexType::ServiceAccount, namespace_, std::move(account));
    add_pod_references(spec, namespace_, entry.uses);
    each_object(array_at(spec, "volumes"), [&](const json::object& volume) {
      std::string claim = string_at(object_at(&volume, "persistentVolumeClaim"), "claimName");
      // An ephemeral volume's claim is named after the pod and the volume (ephemeral.VolumeClaimName).
      if (claim.empty() && volume.contains("ephemeral")) claim = name + "-" + string_at(&volume, "name");
      if (!claim.empty()) entry.uses.emplace_back(VertexType::Pvc, namespace_, std::move(claim));
    });
    // The claims of pod.status.resourceClaimStatuses (resourceclaim.Name): generated names are only known there.
    each_object(array_at(object_at(&pod, "status"), "resourceClaimStatuses"), [&](const json::object& status) {
      if (std::string claim = string_at(&status, "resourceClaimName"); !claim.empty())
        entry.uses.emplace_back(VertexType::ResourceClaim, namespace_, std::move(claim));
    });
    each_object(array_at(spec, "resourceClaims"), [&](const json::object& claim) {
      if (std::string claim_name = string_at(&claim, "resourceClaimName"); !claim_name.empty())
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
  const std::string name = string_at(object_at(&pv, "metadata"), "name");
  const json::object* spec = object_at(&pv, "spec");
  const json::object* claim = object_at(spec, "claimRef");
  std::unique_lock lock(mutex_);
  remove_persistent_volume_locked(name);
  if (!claim) return;
  const std::string claim_namespace = string_at(claim, "namespace");
  PersistentVolume entry{{VertexType::Pvc, claim_namespace, string_at(claim, "name")}, {}};
  // pvutil.VisitPVSecretNames, the secrets a kubelet reads (kubeletVisible); they default to the claim's namespace.
  auto add = [&](const json::object* reference, std::string_view name_key = "name") {
    std::string secret = string_at(reference, name_key);
    if (secret.empty()) return;
    std::string namespace_ = string_at(reference, "namespace");
    entry.secrets.emplace_back(VertexType::Secret, namespace_.empty() ? claim_namespace : namespace_,
                               std::move(secret));
  };
  if (const json::object* azure = object_at(spec, "azureFile")) {
    std::string secret = string_at(azure, "secretName");
    std::string namespace_ = string_at(azure, "secretNamespace");
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
  const std::string name = string_at(object_at(&attachment, "metadata"), "name");
  std::string node = string_at(object_at(&attachment, "spec"), "nodeName");
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
