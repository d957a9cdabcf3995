#pragma once
// The connect subresources (pkg/registry/core/pod/rest/log.go and subresources.go, node/rest/proxy.go,
// service/proxy.go): pods/log, pods/exec, pods/attach, pods/portforward and nodes/proxy go to a kubelet,
// pods/proxy to the pod and services/proxy to one endpoint of the service.
#include "server/apis/core/kubelet_client.h"
#include "server/registry/strategy.h"

#include <memory>
#include <vector>

namespace kapi::apis::core {

std::vector<registry::ConnectSubresource> pod_connect_subresources(std::shared_ptr<const ConnectConfig> config);
registry::ConnectSubresource node_proxy(std::shared_ptr<const ConnectConfig> config);
registry::ConnectSubresource service_proxy(std::shared_ptr<const ConnectConfig> config);

}  // namespace kapi::apis::core
