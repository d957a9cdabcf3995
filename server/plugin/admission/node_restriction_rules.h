#pragma once
// The object comparisons and label rules of kube's NodeRestriction (plugin/pkg/admission/noderestriction), apart
// from the plugin so that each can be read (and tested) on its own.
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <set>
#include <string>

namespace kapi::admission::node_restriction {

using LabelKeys = std::set<std::string>;  // sorted, as kube's sets.String.List()

// podutil.VisitPodSecretNames / VisitPodConfigmapNames over every container kind: whether the pod spec holds any
// reference (kube counts a reference even when its name is empty).
bool references_secrets(const boost::json::object& spec);
bool references_config_maps(const boost::json::object& spec);
bool references_cluster_trust_bundles(const boost::json::object& spec);
bool references_persistent_volume_claims(const boost::json::object& spec);

// apiequality.Semantic.DeepEqual over JSON: a missing field, null, an empty list and an empty map are alike (Go's
// nil and empty slices and maps are equal to it).
bool semantically_equal(const boost::json::value* a, const boost::json::value* b);

// resourceClaimStatusesEqual: the same claims, in order, with the same resourceClaimName (or none).
bool resource_claim_statuses_equal(const boost::json::array* a, const boost::json::array* b);

// The paths where two PVCs differ outside what a node may write (resourceVersion, managedFields, status.capacity,
// status.conditions and, as RecoverVolumeExpansionFailure is on in 1.32, status.allocatedResources and
// status.allocatedResourceStatuses); "" when they do not.
std::string pvc_difference_outside_status(const boost::json::object& old_pvc, const boost::json::object& new_pvc);

// getModifiedLabels: the keys added, removed or changed between two label maps (either may be null).
LabelKeys modified_labels(const boost::json::object* a, const boost::json::object* b);
// getForbiddenLabels: those of `modified` a kubelet may not set: node-restriction.kubernetes.io, and kubernetes.io
// or k8s.io labels that are not the kubelet's own (kubeletapis.IsKubeletLabel).
LabelKeys forbidden_labels(const LabelKeys& modified);
// strings.Join(keys, ", ").
std::string join(const LabelKeys& keys);

}  // namespace kapi::admission::node_restriction
