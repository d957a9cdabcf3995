#pragma once
// A rule's fieldPath, checked against the node's schema and normalized (kube's cel.ValidFieldPath): ".a.b",
// "['a.b']" and ".m['key']" steps; named steps must be properties, bracketed steps on maps take any key.
#include "server/apiextensions/schema/structural.h"

#include <string>
#include <string_view>
#include <variant>

namespace kapi::apiextensions::cel {

struct FieldPathResult {
  std::string path;  // field.Path's String(): "a.b[key]"; empty for an empty fieldPath
  const schema::Schema* schema = nullptr;
};

// The normalized path, or the error text kube gives ("does not refer to a valid field", ...).
std::variant<FieldPathResult, std::string> valid_field_path(std::string_view json_path, const schema::Schema& schema,
                                                            bool allow_array_notation = true);

}  // namespace kapi::apiextensions::cel
