#pragma once
// A custom resource's JSON seen as CEL values through its structural schema, read in place (kube's
// apiserver/pkg/cel/common/values.go UnstructuredToVal): objects with properties are maps keyed by their escaped
// property names, additionalProperties maps, arrays lists whose equality and `+` follow x-kubernetes-list-type
// (set: order-free equality and union; map: equality and merge by the list's map keys; atomic: as written),
// int-or-string strings or ints, integer ints, number doubles, formatted strings bytes / duration / timestamp.
// Data that does not fit the schema becomes a CEL error value with kube's message.
//
// The views point into the JSON and the schema: both must outlive every value made from them (callers evaluate
// and drop the values within one validation).
#include "cel/value.h"
#include "server/apiextensions/schema/structural.h"

#include <boost/json/value.hpp>

namespace kapi::apiextensions::cel {

// `is_resource_root` for the root of the custom resource (embedded resources are recognised by their schema):
// apiVersion, kind and metadata.name / metadata.generateName are then visible whatever the schema says.
kapi::cel::Value to_value(const boost::json::value& json, const schema::Schema& schema, bool is_resource_root = false);

// JSON without a schema (x-kubernetes-preserve-unknown-fields data): objects as maps, arrays as lists, integers as
// int, other numbers as double.
kapi::cel::Value untyped_value(const boost::json::value& json);

}  // namespace kapi::apiextensions::cel
