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
#include <string_view>

#include "cel/compile.h"
#include "cel/env.h"

namespace kapi::cel::ext {

Env kube_base_env();
Env kube_stored_env();

// env.Compile as kube's environments run it: parse and check, then the AST validators of the extension libraries
// the checker does not know (ext.Strings' string.format validator). On failure the result has no ast and its
// message is the display form of every issue.
CheckResult compile_kube(const Env& env, std::string_view text);

}  // namespace kapi::cel::ext
