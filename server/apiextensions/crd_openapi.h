#pragma once
// The OpenAPI description of the CustomResourceDefinition kind itself (apiextensions.k8s.io/v1), which kapi's
// type catalog does not hold: written out here so `kubectl explain crd` works and `kubectl apply` can compute
// its patches from the schema, as it does against kube-apiserver.
#include "server/schema/openapi.h"

namespace kapi::apiextensions {

// The customresourcedefinitions resource described for the OpenAPI documents (its schema and the definitions it
// references: names, versions, JSONSchemaProps, ...).
kapi::schema::SchemaResource customresourcedefinitions_openapi(const registry::ResourceDefinition& definition);

}  // namespace kapi::apiextensions
