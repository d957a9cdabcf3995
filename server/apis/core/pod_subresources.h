#pragma once
// The pod subresources that take a POST of another kind (pkg/registry/core/pod/storage): /binding, with which a
// scheduler assigns a pod to a node, and /eviction, with which `kubectl drain` asks a pod to go.
#include "server/registry/strategy.h"

#include <vector>

namespace kapi::apis::core {

std::vector<registry::CreateSubresource> pod_create_subresources();

}  // namespace kapi::apis::core
