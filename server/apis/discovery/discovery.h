#pragma once
// discovery.k8s.io/v1: EndpointSlices, and the slice kube-apiserver keeps for the `kubernetes` service.
#include "server/apis/resource_storage.h"
#include "server/registry/store.h"

#include <asio/awaitable.hpp>
#include <boost/json/object.hpp>

namespace kapi::apis {

ResourceStorage endpointslices();

// The EndpointSlice `kubernetes` in `default`, as kube's endpoint reconciler derives it from the `kubernetes`
// Endpoints (pkg/controlplane/reconcilers/endpointsadapter.go: endpointSliceFromEndpoints): the same addresses and
// ports, labelled kubernetes.io/service-name=kubernetes.
boost::json::object kubernetes_endpoint_slice(const boost::json::object& endpoints);
// Creates it when missing and puts its endpoints and ports right when they differ (EnsureEndpointSliceFromEndpoints).
// Throws what storage or validation refuses (409 when another server created it meanwhile).
asio::awaitable<void> ensure_kubernetes_endpoint_slice(registry::Store& endpoint_slices,
                                                       const boost::json::object& endpoints);

}  // namespace kapi::apis
