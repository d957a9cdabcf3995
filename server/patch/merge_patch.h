#pragma once
// JSON Merge Patch (RFC 7386, application/merge-patch+json) as kube-apiserver applies it: evanphx/json-patch's
// MergePatch. null deletes a member, objects merge recursively, anything else replaces; nulls inside values that
// replace (arrays included) are dropped, as evanphx prunes them.
//
// Errors (PatchError): 400 BadRequest "Invalid JSON Patch" when the body is not JSON, null, or a scalar.
// An array body replaces the document (it is not an error here; decoding the result into an object is).
#include <boost/json.hpp>

#include <string_view>

namespace kapi::patch {

boost::json::value apply_merge_patch(boost::json::value document, std::string_view patch_json);

}  // namespace kapi::patch
