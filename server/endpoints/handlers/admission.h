#pragma once
// The request's admission, wired into the Store's write as kube's handlers wire it (create.go, update.go,
// patch.go, delete.go, rest.AdmissionToValidateObjectFunc / ...DeleteFunc): the mutating plugins see the object
// decoded and defaulted, before the strategy prepares it; the validating ones once it has passed the resource's
// own validation, each time the Store computes it. An update that creates its object is admitted as a CREATE.
#include "server/endpoints/handlers/handlers.h"

namespace kapi::endpoints::handlers {

// Sets options.admit and options.validate_admission (nothing when the scope has no admission chain).
// `manager`: the write's field manager, which the options AdmissionReview carries name.
void add_admission(const Scope& scope, registry::WriteOptions& options, const std::string& manager = {});

// Admits the body of a POST to a subresource of another kind (a pod's binding or eviction, a service account's
// token) as a CREATE of that subresource: mutating, then validating plugins, before the subresource acts.
asio::awaitable<void> admit_subresource_create(const Scope& scope, const registry::CreateSubresource& subresource,
                                               boost::json::object& body);

// Admits a rest.Connecter's request as a CONNECT, `options` (PodExecOptions, ...) as its object and no operation
// options: mutating, then validating plugins.
asio::awaitable<void> admit_connect(const Scope& scope, const registry::ConnectSubresource& subresource,
                                    boost::json::object& options);

// Sets options.admission for a DELETE (a collection's items are admitted without their names, as in kube).
void add_delete_admission(const Scope& scope, registry::DeleteOptions& options, bool collection = false);

}  // namespace kapi::endpoints::handlers
