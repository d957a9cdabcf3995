#pragma once
// kube-apiserver's checks of a CRD version's openAPIV3Schema (apiextensions/validation's
// validateCustomResourceDefinitionValidation for a new apiextensions.k8s.io/v1 CRD), with kube's paths and words:
//   spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields
//   spec.versions[0].schema.openAPIV3Schema.properties[spec].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive
// Go walks a schema's properties in random map order; kapi reports them in the schema's order, and sorts the
// structural errors by their text as kube does.
#include "server/apiextensions/schema/structural.h"
#include "server/validation/field_error.h"

namespace kapi::apiextensions::schema {

// All of it, for the schema at `path` (e.g. spec.versions[0].schema.openAPIV3Schema): the API rules, then (as
// kube) the structural invariants, and only when those hold, the defaults.
validation::ErrorList validate_crd_schema(const Schema& schema, const validation::Path& path);

// ValidateCustomResourceDefinitionOpenAPISchema with a v1 CRD's options (defaults allowed except in metadata,
// valid types required, atomic set items, map keys required or defaulted), plus `nullable` at the root.
validation::ErrorList validate_api_rules(const Schema& schema, const validation::Path& path);

// structuralschema.ValidateStructural: every specified field typed, junctors only restricting values, metadata
// restricted to name and generateName at the root, the int-or-string and embedded-resource invariants. Sorted.
validation::ErrorList validate_structural(const Schema& schema, const validation::Path& path);

// structuraldefaulting.ValidateDefaults(path, schema, isResourceRoot=true, requirePrunedDefaults=true): every
// `default` must be free of unknown fields and validate against its own schema.
validation::ErrorList validate_defaults(const Schema& schema, const validation::Path& path);

}  // namespace kapi::apiextensions::schema
