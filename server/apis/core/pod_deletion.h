#pragma once
// Graceful pod deletion (the pod strategy's CheckGracefulDelete with genericregistry's BeforeDelete): a pod
// bound to a node is not deleted at once but marked with a deletionTimestamp its grace period ahead, so the
// node's kubelet can stop it and then delete it with a zero grace period.
#include <boost/json/object.hpp>

#include <cstdint>
#include <optional>

namespace kapi::apis::core {

// The pod to store instead of deleting it, or std::nullopt when it is to be deleted now.
// `grace_period_seconds` is the DeleteOptions' (absent: the pod's terminationGracePeriodSeconds).
std::optional<boost::json::object> graceful_pod_deletion(const boost::json::object& pod,
                                                         std::optional<std::int64_t> grace_period_seconds);

}  // namespace kapi::apis::core
