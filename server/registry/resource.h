#pragma once
// What a served resource is, as discovery, the installer and the registry Store all need to know it: the role of
// the APIResource a REST storage describes in k8s.io/apiserver/pkg/endpoints/installer.go.
#include <string>
#include <vector>

namespace kapi::registry {

struct ResourceDefinition {
  std::string group;     // "" for the legacy core group
  std::string version;   // "v1"
  std::string resource;  // plural, lower case: "configmaps"
  std::string kind;      // "ConfigMap"
  std::string singular;  // "configmap"
  bool namespaced = true;
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
  // The storage key segment after the prefix (kube's special cases: "minions" for nodes, "services/specs").
  std::string storage_resource;
  // Subresources served next to the main resource ("status", "finalize", ...).
  std::vector<std::string> subresources;
  // Served as unstructured objects (custom resources): list items keep their kind and apiVersion, as kube's
  // unstructured lists do; typed lists omit them.
  bool unstructured = false;
  // The verbs discovery and OpenAPI name: a registry Store's eight unless the resource says fewer (a Creater).
  std::vector<std::string> verbs{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"};

  std::string group_version() const { return group.empty() ? version : group + "/" + version; }
  std::string list_kind() const { return kind + "List"; }
  // "configmaps" or "deployments.apps": how kube names a resource in error messages.
  std::string qualified_resource() const { return group.empty() ? resource : resource + "." + group; }
};

}  // namespace kapi::registry
