#pragma once
// The environments kube-apiserver 1.32 compiles CEL with (k8s.io/apiserver/pkg/cel/environment/base.go,
// MustBaseEnvSet at the default compatibility version 1.31): cel-go's standard environment with optional types,
// plus the extension and kube libraries enabled up to that version. AuthorizeWithSelectors is beta and on by
// default in 1.32, so its library is in both.
//
// kube keeps two flavours, which differ at 1.32 only by what 1.32 introduced:
// - kube_base_env(): NewExpressions, for expressions being written (CRD rules, policies on create/update).
// - kube_stored_env(): StoredExpressions, for expressions already stored; adds ext.TwoVarComprehensions.
// Callers add their variables (self, oldSelf, object, request, params, authorizer, ...) to a copy.
#include "cel/env.h"

namespace kapi::cel::ext {

Env kube_base_env();
Env kube_stored_env();

}  // namespace kapi::cel::ext
