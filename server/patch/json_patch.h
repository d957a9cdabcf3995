#pragma once
// JSON Patch (RFC 6902, application/json-patch+json) as kube-apiserver applies it: gopkg.in/evanphx/json-patch.v4
// with its quirks (negative array indices, "replace" of a missing object member adds it, a path's first segment
// is not checked to be empty), bounded as patch.go bounds it.
//
// Errors (PatchError, an apierrors::ApiError):
//   400 BadRequest            the body is not a JSON array of operation objects (jsonpatch.DecodePatch)
//   413 RequestEntityTooLarge more than `max_operations` operations
//   422 Invalid               any operation fails, a "test" included; the Status hides why, detail() tells
#include <boost/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace kapi::patch {

struct JsonPatchLimits {
  // patch.go's maxJSONPatchOperations.
  std::size_t max_operations = 10000;
  // jsonpatch.AccumulatedCopySizeLimit as the apiserver arms it (JSONPatchMaxCopyBytes, 3 MiB): the total
  // serialized size "copy" operations may add. 0: unlimited.
  std::int64_t max_copy_bytes = 3 * 1024 * 1024;
};

// Applies `patch_json` to `document` (an object, or an array) and returns the patched document.
boost::json::value apply_json_patch(boost::json::value document, std::string_view patch_json,
                                    const JsonPatchLimits& limits = {});

}  // namespace kapi::patch
