#pragma once
// The uniqueness invariants of a custom resource's lists, as kube-apiserver 1.32 checks them after schema
// validation (apiextensions-apiserver/pkg/apiserver/schema/listtype, ValidateListSetsAndMaps):
//   - an array with `x-kubernetes-list-type: set` holds no element twice:
//       spec.tags[2]: Duplicate value: "a"
//   - an array with `x-kubernetes-list-type: map` holds objects (or nulls) whose `x-kubernetes-list-map-keys`
//     values are unique; an element without a key field counts as having that key unspecified:
//       spec.ports[1]: Duplicate value: map[string]interface {}{"name":"http"}
//       spec.ports[0]: Invalid value: "x": must be an object for an array of list-type map
// Scalars compare as Go's == does on interface{} values (int64 1 and float64 1.0 differ); objects and arrays
// compare by their JSON encoding (so there 1 and 1.0 are the same). The walk follows properties,
// additionalProperties and items only; Go walks maps in random order, kapi in the document's order.
#include "server/apiextensions/schema/structural.h"
#include "server/validation/field_error.h"

#include <boost/json/value.hpp>

namespace kapi::apiextensions::schema {

// ValidateListSetsAndMaps(nil, schema, object): errors named from the object's root ("spec.tags[2]").
// A non-object `object` has nothing to check.
validation::ErrorList validate_lists(const boost::json::value& object, const Schema& schema);

}  // namespace kapi::apiextensions::schema
