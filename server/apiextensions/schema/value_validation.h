#pragma once
// Validation of a custom resource against its CRD schema, as kube-apiserver 1.32 does it: kube-openapi's schema
// validator (type, format, enum, pattern, bounds, lengths, items, required, nullable, additionalProperties,
// property counts, uniqueItems, allOf/anyOf/oneOf/not) and apiextensions' translation of its results into field
// errors (kubeOpenAPIResultToFieldErrors), word for word:
//   spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"
//   spec.name: Required value
//   spec.size: Unsupported value: "huge": supported values: "small", "large"
//   <nil>: Invalid value: "": "spec.mode" must validate one and only one schema (oneOf). Found none valid
// Go walks properties in random map order, so kube's error order varies; kapi follows the schema's order.
#include "server/apiextensions/schema/structural.h"
#include "server/validation/field_error.h"

#include <boost/json/value.hpp>

#include <optional>

namespace kapi::apiextensions::schema {

// ValidateCustomResource(nil, object, validator): errors named from the object's root.
validation::ErrorList validate_value(const Schema& schema, const boost::json::value& value);

// ValidateCustomResourceUpdate with CRDValidationRatcheting (kube's RatchetingSchemaValidator): errors found at or
// below a node whose value the update leaves as it was (correlated by field name and map-list key) are dropped.
validation::ErrorList validate_value_update(const Schema& schema, const boost::json::value& value,
                                            const boost::json::value& old);

// ValidateCustomResource(base, value, validator): errors named under `base` (how CRD validation reports a
// `default` that does not validate: "...properties[a].default: Invalid value: ...").
validation::ErrorList validate_value(const Schema& schema, const boost::json::value& value,
                                     const validation::Path& base);

}  // namespace kapi::apiextensions::schema
