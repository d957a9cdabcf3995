#pragma once
// What every write does for server-side apply (handlers/rest.go, create.go, update.go, patch.go): the write's
// manager (?fieldManager=, else the User-Agent), the options checks kube runs on it, and metadata.managedFields
// recorded by the resource's FieldManager inside the Store's write, so that a retry after a lost race computes them
// again from the fresh object.
#include "server/endpoints/handlers/handlers.h"
#include "server/endpoints/negotiation.h"

#include <boost/json/object.hpp>

#include <functional>
#include <string>

namespace kapi::endpoints::handlers {

// The options kind a write's query parameters decode into, which names kube's 422 ("PatchOptions.meta.k8s.io").
enum class WriteOptionsKind { Create, Update, Patch, Apply };

// Checks ?fieldManager= (at most 128 bytes, printable characters) and ?force= (only for apply, where the manager is
// required) as ValidateCreateOptions/UpdateOptions/PatchOptions do, and returns the write's manager
// (managerOrUserAgent).
std::string write_manager(const Scope& scope, WriteOptionsKind kind);

// ?force= of an apply (PatchOptions.Force), read as kube's query parameters read a bool.
bool apply_force(const Scope& scope);

// What records a write through the request's subresource as `manager`'s Update (FieldManager.UpdateNoErrors), for
// registry::WriteOptions::record_managed_fields; empty when the resource tracks no managedFields there.
std::function<void(const boost::json::object*, boost::json::object&)> managed_fields_recorder(const Scope& scope,
                                                                                            std::string manager);

// The media types PATCH accepts for this resource, in kube's order (installer.go, crd_handler.go), for the 415.
std::string accepted_patch_types(const registry::Strategy& strategy);

// The patch type of a PATCH, among the ones the resource accepts (else 415 listing them).
BodyFormat patch_format(const Scope& scope);

// PATCH with application/apply-patch+yaml (apply.cc): the body decoded as YAML or JSON and applied by the
// request's manager; creates the object when it is missing.
asio::awaitable<void> apply_patch(Scope scope);
asio::awaitable<void> apply_scale_patch(Scope scope);

}  // namespace kapi::endpoints::handlers
