#include "server/plugin/admission/node_restriction_rules.h"

#include "server/registry/json_fields.h"

#include <array>
#include <string_view>

namespace kapi::admission::node_restriction {
namespace {

namespace json = boost::json;
using namespace registry::fields;

constexpr std::array<std::string_view, 3> kContainerLists{"initContainers", "containers", "ephemeralContainers"};

// k8s.io/kubelet/pkg/apis: the labels a kubelet sets on its Node, and the namespaces it owns.
constexpr std::array<std::string_view, 11> kKubeletLabels{"kubernetes.io/hostname",
                                                          "topology.kubernetes.io/zone",
                                                          "topology.kubernetes.io/region",
                                                          "failure-domain.beta.kubernetes.io/zone",
                                                          "failure-domain.beta.kubernetes.io/region",
                                                          "beta.kubernetes.io/instance-type",
                                                          "node.kubernetes.io/instance-type",
                                                          "kubernetes.io/os",
                                                          "kubernetes.io/arch",
                                                          "beta.kubernetes.io/os",
                                                          "beta.kubernetes.io/arch"};
constexpr std::array<std::string_view, 2> kKubeletLabelNamespaces{"kubelet.kubernetes.io", "node.kubernetes.io"};
constexpr std::string_view kNodeRestrictionNamespace =
    "node-restriction.kubernetes.io";  // v1.LabelNamespaceNodeRestriction

bool present(const json::object* object, std::string_view key) {
  return object && object->contains(key) && !object->at(key).is_null();
}

// Whether any container of the pod has an env or envFrom reference of the given kind.
bool containers_reference(const json::object& spec, std::string_view env_from_key, std::string_view key_ref_key) {
  bool found = false;
  for (std::string_view list : kContainerLists) {
    for_each_object(&spec, list, [&](const json::object& container, std::size_t) {
      for_each_object(&container, "envFrom", [&](const json::object& source, std::size_t) {
        if (present(&source, env_from_key)) found = true;
      });
      for_each_object(&container, "env", [&](const json::object& variable, std::size_t) {
        if (present(object_at(variable, "valueFrom"), key_ref_key)) found = true;
      });
    });
  }
  return found;
}

bool projected_source_present(const json::object& spec, std::string_view kind) {
  bool found = false;
  for_each_object(&spec, "volumes", [&](const json::object& volume, std::size_t) {
    for_each_object(object_at(volume, "projected"), "sources", [&](const json::object& source, std::size_t) {
      if (present(&source, kind)) found = true;
    });
  });
  return found;
}

bool empty_value(const json::value& value) {
  return value.is_null() || (value.is_array() && value.as_array().empty()) ||
         (value.is_object() && value.as_object().empty());
}

bool equal_values(const json::value& a, const json::value& b);

bool equal_objects(const json::object& a, const json::object& b) {
  for (const auto& [key, value] : a) {
    const json::value* other = b.if_contains(key);
    if (other ? !equal_values(value, *other) : !empty_value(value)) return false;
  }
  for (const auto& [key, value] : b)
    if (!a.contains(key) && !empty_value(value)) return false;
  return true;
}

bool equal_values(const json::value& a, const json::value& b) {
  if (empty_value(a) || empty_value(b)) return empty_value(a) && empty_value(b);
  if (a.is_object() && b.is_object()) return equal_objects(a.as_object(), b.as_object());
  if (a.is_array() && b.is_array()) {
    const json::array& left = a.as_array();
    const json::array& right = b.as_array();
    if (left.size() != right.size()) return false;
    for (std::size_t i = 0; i < left.size(); ++i)
      if (!equal_values(left[i], right[i])) return false;
    return true;
  }
  return a == b;
}

// The paths under `prefix` where `a` and `b` differ, appended to `out` comma-separated.
void collect_differences(const json::value* a, const json::value* b, const std::string& prefix, std::string& out) {
  const json::value empty;
  const json::value& left = a ? *a : empty;
  const json::value& right = b ? *b : empty;
  if (equal_values(left, right)) return;
  if (left.is_object() && right.is_object()) {
    std::set<std::string> keys;
    for (const auto& entry : left.as_object()) keys.emplace(entry.key());
    for (const auto& entry : right.as_object()) keys.emplace(entry.key());
    for (const std::string& key : keys)
      collect_differences(left.as_object().if_contains(key), right.as_object().if_contains(key),
                          prefix.empty() ? key : prefix + "." + key, out);
    return;
  }
  if (!out.empty()) out += ", ";
  out += prefix + ": " + json::serialize(left) + " != " + json::serialize(right);
}

void clear_writable_fields(json::object& pvc) {
  if (json::object* metadata = object_at(pvc, "metadata")) {
    metadata->erase("resourceVersion");
    metadata->erase("managedFields");
  }
  if (json::object* status = object_at(pvc, "status")) {
    for (std::string_view key : {"capacity", "conditions", "allocatedResources", "allocatedResourceStatuses"})
      status->erase(key);
  }
}

std::string_view label_namespace(std::string_view key) {
  const std::size_t slash = key.find('/');
  return slash == std::string_view::npos ? std::string_view{} : key.substr(0, slash);
}

bool in_namespace(std::string_view label_namespace, std::string_view domain) {
  return label_namespace == domain || (label_namespace.size() > domain.size() && label_namespace.ends_with(domain) &&
                                       label_namespace[label_namespace.size() - domain.size() - 1] == '.');
}

bool is_kubernetes_label(std::string_view key) {
  const std::string_view namespace_ = label_namespace(key);
  return in_namespace(namespace_, "kubernetes.io") || in_namespace(namespace_, "k8s.io");
}

bool is_kubelet_label(std::string_view key) {
  for (std::string_view label : kKubeletLabels)
    if (key == label) return true;
  const std::string_view namespace_ = label_namespace(key);
  for (std::string_view owned : kKubeletLabelNamespaces)
    if (in_namespace(namespace_, owned)) return true;
  return false;
}

}  // namespace

bool references_secrets(const json::object& spec) {
  if (array_at(spec, "imagePullSecrets") && !array_at(spec, "imagePullSecrets")->empty()) return true;
  if (containers_reference(spec, "secretRef", "secretKeyRef")) return true;
  bool found = false;
  for_each_object(&spec, "volumes", [&](const json::object& volume, std::size_t) {
    if (present(&volume, "secret") || present(&volume, "azureFile") ||
        present(object_at(volume, "cephfs"), "secretRef") || present(object_at(volume, "cinder"), "secretRef") ||
        present(object_at(volume, "flexVolume"), "secretRef") || present(object_at(volume, "rbd"), "secretRef") ||
        present(object_at(volume, "scaleIO"), "secretRef") || present(object_at(volume, "iscsi"), "secretRef") ||
        present(object_at(volume, "storageos"), "secretRef") ||
        present(object_at(volume, "csi"), "nodePublishSecretRef"))
      found = true;
  });
  return found || projected_source_present(spec, "secret");
}

bool references_config_maps(const json::object& spec) {
  if (containers_reference(spec, "configMapRef", "configMapKeyRef")) return true;
  bool found = false;
  for_each_object(&spec, "volumes", [&](const json::object& volume, std::size_t) {
    if (present(&volume, "configMap")) found = true;
  });
  return found || projected_source_present(spec, "configMap");
}

bool references_cluster_trust_bundles(const json::object& spec) {
  return projected_source_present(spec, "clusterTrustBundle");
}

bool references_persistent_volume_claims(const json::object& spec) {
  bool found = false;
  for_each_object(&spec, "volumes", [&](const json::object& volume, std::size_t) {
    if (present(&volume, "persistentVolumeClaim")) found = true;
  });
  return found;
}

bool semantically_equal(const json::value* a, const json::value* b) {
  const json::value empty;
  return equal_values(a ? *a : empty, b ? *b : empty);
}

bool resource_claim_statuses_equal(const json::array* a, const json::array* b) {
  const std::size_t size = a ? a->size() : 0;
  if (size != (b ? b->size() : 0)) return false;
  for (std::size_t i = 0; i < size; ++i) {
    const json::object* left = (*a)[i].if_object();
    const json::object* right = (*b)[i].if_object();
    if (string_at(left, "name") != string_at(right, "name")) return false;
    if (present(left, "resourceClaimName") != present(right, "resourceClaimName")) return false;
    if (string_at(left, "resourceClaimName") != string_at(right, "resourceClaimName")) return false;
  }
  return true;
}

std::string pvc_difference_outside_status(const json::object& old_pvc, const json::object& new_pvc) {
  json::object old_copy = old_pvc;
  json::object new_copy = new_pvc;
  clear_writable_fields(old_copy);
  clear_writable_fields(new_copy);
  const json::value left(std::move(old_copy));
  const json::value right(std::move(new_copy));
  std::string differences;
  collect_differences(&left, &right, "", differences);
  return differences;
}

LabelKeys modified_labels(const json::object* a, const json::object* b) {
  LabelKeys modified;
  auto compare = [&](const json::object* from, const json::object* to) {
    if (!from) return;
    for (const auto& [key, value] : *from) {
      const json::value* other = to ? to->if_contains(key) : nullptr;
      if (!other || *other != value) modified.emplace(key);
    }
  };
  compare(a, b);
  compare(b, a);
  return modified;
}

LabelKeys forbidden_labels(const LabelKeys& modified) {
  LabelKeys forbidden;
  for (const std::string& label : modified) {
    if (in_namespace(label_namespace(label), kNodeRestrictionNamespace)) forbidden.insert(label);
    if (is_kubernetes_label(label) && !is_kubelet_label(label)) forbidden.insert(label);
  }
  return forbidden;
}

std::string join(const LabelKeys& keys) {
  std::string joined;
  for (const std::string& key : keys) {
    if (!joined.empty()) joined += ", ";
    joined += key;
  }
  return joined;
}

}  // namespace kapi::admission::node_restriction
