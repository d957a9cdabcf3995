#pragma once
// The status and scale subresources (kube's per-resource StatusREST and ScaleREST, generic here): a status
// write changes only `status`, a main-resource write keeps the stored `status`, and /scale reads and writes
// spec.replicas through an autoscaling/v1 Scale.
#include "server/endpoints/handlers/handlers.h"

#include <boost/json/object.hpp>

#include <functional>
#include <string>

namespace kapi::endpoints::handlers {

// Wraps a write's update function with the status split for resources that have a status subresource (and
// a namespace's finalize, which writes spec.finalizers only).
registry::UpdateFunction split_status(const Scope& scope, registry::UpdateFunction update);

// The update function of a scale write: `desired` turns the current Scale, with the managedFields its manager sees
// (ScaleHandler.ToSubresource), into the wanted one; the parent gets its replicas and the Scale's managedFields
// mapped back (ToParent).
registry::UpdateFunction scale_update(const Scope& scope,
                                      std::function<boost::json::object(boost::json::object)> desired);
// The Scale a write made from `old_scale`, recorded as `manager`'s Update.
boost::json::object track_scale_update(const Scope& scope, const boost::json::object& old_scale,
                                       boost::json::object scale, const std::string& manager);

asio::awaitable<void> get_scale(Scope scope);
asio::awaitable<void> update_scale(Scope scope);
asio::awaitable<void> patch_scale(Scope scope);

// A Scale in the representation Accept asks for: JSON or protobuf, its PartialObjectMetadata, or a Table (kube's
// printScale columns; a custom resource's, its CRD's columns).
asio::awaitable<void> write_scale(Scope& scope, int status, const boost::json::object& scale);

// The autoscaling/v1 Scale of a scalable object (spec.replicas, status.replicas, the selector as a string), or of
// a custom resource at its CRD's scale paths.
boost::json::object scale_of(const boost::json::object& object, const std::optional<registry::ScalePaths>& paths);

}  // namespace kapi::endpoints::handlers
