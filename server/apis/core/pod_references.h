#pragma once
// The objects a pod names (k8s.io/kubernetes/pkg/api/v1/pod: VisitPodSecretNames, VisitPodConfigmapNames), for
// what follows them: the Node authorizer's graph, the ServiceAccount admission plugin.
#include <boost/json/object.hpp>

#include <functional>
#include <string_view>

namespace kapi::apis::core {

// Every secret `spec` names: image pull secrets, the env and envFrom of every container kind, and the volume
// sources that take one (secret, projected, azureFile, cephfs, cinder, flexVolume, rbd, scaleIO, iscsi,
// storageos, csi's nodePublishSecretRef). A name may come more than once.
void visit_pod_secret_names(const boost::json::object& spec, const std::function<void(std::string_view)>& visit);

// Every configmap `spec` names: env and envFrom of every container kind, configMap and projected volumes.
void visit_pod_configmap_names(const boost::json::object& spec, const std::function<void(std::string_view)>& visit);

}  // namespace kapi::apis::core
