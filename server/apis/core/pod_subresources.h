#pragma once
// The pod subresources that take a POST of another kind (pkg/registry/core/pod/storage): /binding, with which a
// scheduler assigns a pod to a node, and /eviction, with which `kubectl drain` asks a pod to go.
#include "server/registry/strategy.h"

#include <string>
#include <vector>

namespace kapi::apis::core {

std::vector<registry::CreateSubresource> pod_create_subresources();

// BindingREST.Create: binds the pod `name` of `pods` to the binding's target node (a Success answer is nullopt).
asio::awaitable<registry::SubresourceAnswer> bind_pod(registry::Store& pods, std::string namespace_, std::string name,
                                                      boost::json::object binding, bool dry_run);

}  // namespace kapi::apis::core
