#pragma once
// Strategic merge patch (application/strategic-merge-patch+json) as kube-apiserver applies it:
// k8s.io/apimachinery/pkg/util/strategicpatch StrategicMergeMapPatch (mergeMap/mergeSlice, server-side options:
// parallel lists merged, unmatched nulls ignored), driven by a PatchSchema instead of Go struct tags.
//
// Lists with strategy "merge" merge by `merge_key` (objects) or as sets (primitives); others are replaced.
// Directives: $patch replace|delete (in objects and list elements), $retainKeys, $setElementOrder/<list>,
// $deleteFromPrimitiveList/<list>; null deletes. Elements a patch adds without $setElementOrder go before the
// ones it leaves alone, as strategicpatch orders them. Fields with no schema merge like a JSON merge patch
// (objects recursively, lists replaced).
//
// Errors (PatchError), with kube's Status for each:
//   400 BadRequest  the body is not a JSON object (Go's json message), a malformed $retainKeys,
//                   $setElementOrder or $deleteFromPrimitiveList key or value
//   422 Invalid     lists of lists
//   500 (no reason) everything strategicpatch reports as a plain error: a missing merge key, "$patch: merge",
//                   an unknown directive, a $setElementOrder that contradicts the patch, mixed element types
#include "server/patch/patch_schema.h"

#include <boost/json.hpp>

#include <string_view>

namespace kapi::patch {

// `document` is the object to patch; `root` describes its type.
boost::json::value apply_strategic_merge_patch(boost::json::value document, std::string_view patch_json,
                                               const PatchSchema& root);

}  // namespace kapi::patch
