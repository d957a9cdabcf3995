#pragma once
// The status and scale subresources (kube's per-resource StatusREST and ScaleREST, generic here): a status
// write changes only `status`, a main-resource write keeps the stored `status`, and /scale reads and writes
// spec.replicas through an autoscaling/v1 Scale.
#include "server/endpoints/handlers/handlers.h"

#include <boost/json/object.hpp>

namespace kapi::endpoints::handlers {

// Wraps a write's update function with the status split for resources that have a status subresource (and
// a namespace's finalize, which writes spec.finalizers only).
registry::UpdateFunction split_status(const Scope& scope, registry::UpdateFunction update);

asio::awaitable<void> get_scale(Scope scope);
asio::awaitable<void> update_scale(Scope scope);
asio::awaitable<void> patch_scale(Scope scope);

// The autoscaling/v1 Scale of a scalable object (spec.replicas, status.replicas, the selector as a string), or of
// a custom resource at its CRD's scale paths.
boost::json::object scale_of(const boost::json::object& object, const std::optional<registry::ScalePaths>& paths);

}  // namespace kapi::endpoints::handlers
