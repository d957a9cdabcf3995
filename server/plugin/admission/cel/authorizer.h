#pragma once
// The `authorizer` and `authorizer.requestResource` values of admission expressions (kube's
// library.NewAuthorizerVal and NewResourceAuthorizerVal over admission's CachingAuthorizer), over kapi's
// authorizer.
//
// Design: kube's authorizers may call out (a webhook authorizer), so cel-go's authz functions block on them. kapi's
// authorizers decide from memory and synchronously (authorization/authorizer.h), so the CEL functions call them
// directly during evaluation: nothing has to be precomputed before evaluation, and nothing blocks the reactor.
// Decisions are cached per request as kube's CachingAuthorizer caches them.
#include "cel/value.h"
#include "server/admission/attributes.h"

#include <optional>

namespace kapi::authorization { class Authorizer; }

namespace kapi::admission::cel_runtime {

std::optional<cel::Value> authorizer_value(const authorization::Authorizer& authorizer, const Attributes& attributes);
std::optional<cel::Value> resource_authorizer_value(const authorization::Authorizer& authorizer,
                                                    const Attributes& attributes,
                                                    const GroupVersionResource& resource);

}  // namespace kapi::admission::cel_runtime
