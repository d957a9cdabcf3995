#pragma once
// Decoding a CustomResourceDefinition body as kube-apiserver decodes it into apiextensions/v1's Go structs
// (k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1: types.go, types_jsonschema.go) with their JSON
// unmarshalers (marshal.go). kapi's catalog has no apiextensions messages, so the structs are described here as the
// decoder meets them: a value of the wrong JSON type is refused with encoding/json's error, and what the
// unmarshalers drop is dropped.
//
// What encoding/json does, and so this does:
// - The first value of the wrong type is remembered and decoding goes on; an unmarshaler's error ends it at once
//   and wins. The schema's unmarshalers (JSONSchemaPropsOrArray, JSONSchemaPropsOrBool and
//   JSONSchemaPropsOrStringArray: items, additionalProperties, additionalItems, dependencies) decode their value with
//   a json.Unmarshal of their own, so a type error anywhere below them is such an error, and encoding/json names it
//   by the field that holds the unmarshaler: a wrong maxLength in items.items reports
//   "Go struct field JSONSchemaProps.spec.versions.schema.openAPIV3Schema.properties.items of type int64".
// - Unknown fields are dropped, and reported for fieldValidation; below those unmarshalers decoding is not strict,
//   and they are dropped without a word. An items or a
//   dependency that is neither a schema nor a list decodes as nothing (null); additionalProperties or
//   additionalItems that is neither a schema nor a boolean fails: "boolean or JSON schema expected".
// - metadata is metav1.ObjectMeta, conformed by the catalog as every kind's is.
#include "server/schema/catalog.h"

#include <boost/json/fwd.hpp>

#include <string>
#include <vector>

namespace kapi::apiextensions {

// Decodes `crd` in place. Throws ApiError 400 BadRequest with kube's message ("CustomResourceDefinition in version
// \"v1\" cannot be handled as a CustomResourceDefinition: json: cannot unmarshal string into Go struct field
// JSONSchemaProps.spec.versions.schema.openAPIV3Schema.properties.maxLength of type int64"); returns the paths of
// the unknown fields it dropped that kube's strict decoding reports ("spec.versions[0].schema.openAPIV3Schema.
// properties[spec].foo", "metadata.foo").
std::vector<std::string> decode_crd(const kapi::schema::Catalog& catalog, boost::json::object& crd);

}  // namespace kapi::apiextensions
