#pragma once
// The Go value printing custom resource validation shares with server-side apply (server/validation/go_values.h).
#include "server/validation/go_values.h"

namespace kapi::apiextensions::schema {

using validation::go_float;
using validation::go_number;
using validation::go_sharp_v;
using validation::field_error_value;
using validation::go_deep_equal;
using validation::go_enum_matches;
using validation::is_float_a_json_integer;
using validation::openapi_type_of;

}  // namespace kapi::apiextensions::schema
