#pragma once
// discovery.k8s.io/v1: EndpointSlices, and the slice kube-apiserver keeps for the `kubernetes` service.
#include "server/apis/core/service_allocator.h"
#include "server/apis/resource_storage.h"
#include "server/registry/store.h"

#include <asio/awaitable.hpp>
#include <boost/json/object.hpp>

namespace kapi::base {
class Logger;
}
namespace kapi::server {
class Lifecycle;
}

namespace kapi::apis {

ResourceStorage endpointslices();

// The EndpointSlice `kubernetes` in `default`, as kube's endpoint reconciler derives it from the `kubernetes`
// Endpoints (pkg/controlplane/reconcilers/endpointsadapter.go: endpointSliceFromEndpoints): the same address and
// port, labelled kubernetes.io/service-name=kubernetes.
boost::json::object kubernetes_endpoint_slice(const core::ServiceNetwork& network);
// Creates it when missing and puts its endpoints and ports right when they differ; retried while storage is
// unreachable, until shutdown.
asio::awaitable<void> ensure_kubernetes_endpoint_slice(registry::Store& endpoint_slices,
                                                       const core::ServiceNetwork& network,
                                                       const server::Lifecycle& lifecycle, base::Logger& logger);

}  // namespace kapi::apis
