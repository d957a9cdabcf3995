#pragma once
// The libraries kube-apiserver 1.32 adds to CEL, each a cel::Library (declarations with kube's and cel-go's
// overload ids, plus implementations). kube_env.h assembles them into kube's base environments.
//
// cel-go extensions (github.com/google/cel-go/ext, v0.22):
//   strings_library  ext.Strings(ext.StringsVersion(2)): charAt, indexOf, lastIndexOf, lowerAscii, upperAscii,
//                    replace, split, substring, trim, join, format, strings.quote
//   sets_library     ext.Sets(): sets.contains, sets.equivalent, sets.intersects
//   two_var_comprehensions_library  ext.TwoVarComprehensions(): its macros and cel.@mapInsert
// kube's libraries (k8s.io/apiserver/pkg/cel/library):
//   lists, regex, urls, quantity, ip, cidr, format, authz, authz_selectors
#include "cel/function.h"

namespace kapi::cel::ext {

Library strings_library();
Library sets_library();
Library two_var_comprehensions_library();

Library lists_library();
Library regex_library();
Library urls_library();
Library quantity_library();
Library ip_library();
Library cidr_library();
Library format_library();
Library authz_library();            // see authz.h for the values the server binds to `authorizer`
Library authz_selectors_library();  // fieldSelector and labelSelector on ResourceCheck (AuthorizeWithSelectors)

}  // namespace kapi::cel::ext
