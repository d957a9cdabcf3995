#pragma once
// Structural defaulting, as kube-apiserver applies `default:` to custom resources (apiserver/schema/defaulting):
// first nulls that a non-nullable field without a default may not hold are dropped, then defaults fill absent
// fields (and non-nullable nulls), walking properties, additionalProperties and items.
#include "server/apiextensions/schema/structural.h"

#include <boost/json/value.hpp>

namespace kapi::apiextensions::schema {

// defaulting.PruneNonNullableNullsWithoutDefaults.
void prune_non_nullable_nulls_without_defaults(boost::json::value& object, const Schema& schema);

// defaulting.Default: copies of the schema's defaults into absent fields, recursively (a defaulted object is
// defaulted inside too).
void apply_defaults(boost::json::value& object, const Schema& schema);

}  // namespace kapi::apiextensions::schema
