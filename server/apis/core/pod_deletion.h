#pragma once
// Graceful pod deletion (the pod strategy's CheckGracefulDelete): a pod bound to a node is not deleted at once
// but marked with a deletionTimestamp its grace period ahead (the registry's before_delete does the marking), so
// the node's kubelet can stop it and then delete it with a zero grace period.
#include <boost/json/object.hpp>

#include <cstdint>
#include <optional>

namespace kapi::apis::core {

// The grace period a DELETE of `pod` waits for: the request's (`requested`), else the pod's
// terminationGracePeriodSeconds; 0 for a pod no node has taken or one that has finished; negative ones become 1.
std::int64_t pod_deletion_grace_period(const boost::json::object& pod, std::optional<std::int64_t> requested);

}  // namespace kapi::apis::core
