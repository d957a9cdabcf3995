// kube's library.NewAuthorizerVal / NewResourceAuthorizerVal (k8s.io/apiserver/pkg/cel/library/authz.go) bound to
// kapi's authorizer. Until the authz library lands in cel/ext, expressions that read the authorizer find it unbound.
#include "server/plugin/admission/cel/authorizer.h"

namespace kapi::admission::cel_runtime {

std::optional<cel::Value> authorizer_value(const authorization::Authorizer&, const Attributes&) { return std::nullopt; }

std::optional<cel::Value> resource_authorizer_value(const authorization::Authorizer&, const Attributes&,
                                                    const GroupVersionResource&) {
  return std::nullopt;
}

}  // namespace kapi::admission::cel_runtime
