#pragma once
// The node authorizer's graph (plugin/pkg/auth/authorizer/node/graph.go): which objects a node's kubelet may
// read, because a pod bound to that node uses them. kube keeps a directed graph whose edges all lead to nodes
//   node <- pod <- {secret, configmap, serviceaccount, pvc, resourceclaim}
//   pvc <- pv <- secret        node <- volumeattachment
// and answers "is there a path from this object to that node". kapi keeps the same relations as indexes that
// answer it without a walk: for each object a pod uses, how many pods on each node use it; for each PV, its
// claim; for each secret, the PVs that name it.
//
// Thread-safe: the feed (graph_feed.h) writes from its reflectors, requests read from any reactor thread.
#include <boost/json/object.hpp>

#include <map>
#include <set>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace kapi::authorization::node {

enum class VertexType { ConfigMap, Node, Pod, Pvc, Pv, ResourceClaim, Secret, VolumeAttachment, ServiceAccount };

// kube's names of the vertex types, as its denial reasons print them ("secret", "pvc", "serviceAccount").
std::string_view vertex_type_name(VertexType type);

class Graph {
 public:
  // A pod as stored: edges only once it is bound (spec.nodeName); a mirror pod grants nothing but itself.
  void set_pod(const boost::json::object& pod);
  void remove_pod(std::string_view namespace_, std::string_view name);
  void set_persistent_volume(const boost::json::object& pv);
  void remove_persistent_volume(std::string_view name);
  void set_volume_attachment(const boost::json::object& attachment);
  void remove_volume_attachment(std::string_view name);
  // A relist: forget every object of the kind first.
  void clear_pods();
  void clear_persistent_volumes();
  void clear_volume_attachments();

  // Whether the object (namespace "" for cluster-scoped kinds) leads to `node`.
  bool reaches(VertexType type, std::string_view namespace_, std::string_view name, std::string_view node) const;

 private:
  using ObjectKey = std::tuple<VertexType, std::string, std::string>;  // type, namespace, name
  struct Pod {
    std::string node;
    std::vector<ObjectKey> uses;  // every object the pod grants its node, itself included
  };
  struct PersistentVolume {
    ObjectKey claim;
    std::vector<ObjectKey> secrets;
  };

  void remove_pod_locked(const std::string& key);
  void remove_persistent_volume_locked(const std::string& name);
  bool reaches_locked(const ObjectKey& object, std::string_view node) const;

  mutable std::shared_mutex mutex_;
  std::map<std::string, Pod, std::less<>> pods_;  // by namespace/name
  // Per object a bound pod uses: the nodes of those pods, each with how many of them use it.
  std::map<ObjectKey, std::map<std::string, int, std::less<>>, std::less<>> used_on_;
  std::map<std::string, PersistentVolume, std::less<>> persistent_volumes_;
  std::map<ObjectKey, std::set<std::string>, std::less<>> volumes_naming_secret_;
  std::map<std::string, std::string, std::less<>> attachment_nodes_;
};

}  // namespace kapi::authorization::node
