#pragma once
// The checks kube-apiserver makes on resources embedded in a custom resource (x-kubernetes-embedded-resource,
// apiserver/schema/objectmeta/validation.go): apiVersion and kind are required strings of the right shape, and
// their metadata passes ValidateObjectMeta (a missing name is allowed).
#include "server/apiextensions/schema/structural.h"
#include "server/validation/field_error.h"

#include <boost/json/value.hpp>

namespace kapi::apiextensions::schema {

// objectmeta.Validate(nil, object, schema, isResourceRoot=false): errors for every embedded resource below the
// root, named by path ("spec.template.kind: Required value").
validation::ErrorList validate_embedded_resources(const boost::json::value& object, const Schema& schema);

}  // namespace kapi::apiextensions::schema
