#pragma once
// The `authorizer` and `authorizer.requestResource` values of admission expressions (kube's
// library.NewAuthorizerVal and NewResourceAuthorizerVal over admission's CachingAuthorizer), over kapi's
// authorizer.
//
// Design: kube's authorizers may call out (a webhook authorizer), and cel-go's authz functions block on them.
// kapi's authorizers decide from memory and synchronously (authorization/authorizer.h: RBAC keeps its own index of
// the policy objects), so the CEL functions call them directly during evaluation: nothing is precomputed before
// evaluation, and nothing waits on I/O on the reactor. Decisions are cached per request as kube's
// CachingAuthorizer caches them.
#include "cel/value.h"
#include "server/admission/attributes.h"

#include <memory>

namespace kapi::authorization { class Authorizer; }
namespace kapi::cel::ext { class Authorizer; }

namespace kapi::admission::cel_runtime {

// One request's view of kapi's authorizer, its answers cached.
std::shared_ptr<const cel::ext::Authorizer> caching_authorizer(const authorization::Authorizer& authorizer);

cel::Value authorizer_value(std::shared_ptr<const cel::ext::Authorizer> authorizer, const Attributes& attributes);
// A ResourceCheck for the request's own resource, subresource, namespace and name.
cel::Value resource_authorizer_value(std::shared_ptr<const cel::ext::Authorizer> authorizer,
                                     const Attributes& attributes);

}  // namespace kapi::admission::cel_runtime
