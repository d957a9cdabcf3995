#pragma once
// JSON text as Go's encoding/json writes it, which kube-apiserver's audit log is: compact, strings escaped with
// HTML escaping on, floats in Go's shortest form ('f' below 1e21 and from 1e-6, else 'e' with "e-7" exponents).
#include "base/go_json_string.h"

#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace kapi::audit {

using base::append_go_json;
using base::append_go_json_string;

// A JSON document re-written compactly (json.Compact of a RawMessage); std::nullopt when `text` is not JSON.
// With `omit_managed_fields`, metadata.managedFields is dropped from the object, from a list's items and from a
// Table's rows, as kube's copyWithoutManagedFields does.
std::optional<std::string> compact_go_json(std::string_view text, bool omit_managed_fields);

}  // namespace kapi::audit
