#pragma once
// The pod subresources that take a POST of another kind (pkg/registry/core/pod/storage): /binding, with which a
// scheduler assigns a pod to a node, and /eviction, with which `kubectl drain` asks a pod to go, within what its
// PodDisruptionBudget allows.
#include "server/registry/strategy.h"

#include <functional>
#include <string>
#include <vector>

namespace kapi::registry {
class Store;
}

namespace kapi::apis::core {

// Where an eviction finds the PodDisruptionBudgets that guard pods (the policy/v1 store; kube's eviction REST has
// a client of them); nullptr or an empty function: no budget guards any pod.
using DisruptionBudgetStore = std::function<registry::Store*()>;

std::vector<registry::CreateSubresource> pod_create_subresources(DisruptionBudgetStore budgets = {});

// BindingREST.Create: binds the pod `name` of `pods` to the binding's target node (a Success answer is nullopt).
asio::awaitable<registry::SubresourceAnswer> bind_pod(registry::Store& pods, std::string namespace_, std::string name,
                                                      boost::json::object binding, bool dry_run);

}  // namespace kapi::apis::core
