#pragma once
// Dropping the fields a structural schema does not specify, as kube-apiserver does to every custom resource it
// decodes (apiserver/schema/pruning): unknown object fields go, except under x-kubernetes-preserve-unknown-fields,
// and apiVersion, kind and metadata of the resource itself and of embedded resources are left to the metadata
// coercion (objectmeta.Coerce), which keeps only ObjectMeta's fields in embedded metadata.
#include "server/apiextensions/schema/structural.h"

#include <boost/json/value.hpp>

#include <string>
#include <vector>

namespace kapi::apiextensions::schema {

// pruning.PruneWithOptions(object, schema, isResourceRoot, {TrackUnknownFieldPaths: true}): removes unknown
// fields in place and returns their paths, sorted ("spec.foo", "spec.items[0].bar"), for kube's
// `unknown field "spec.foo"` warnings and fieldValidation=Strict errors.
std::vector<std::string> prune(boost::json::value& object, const Schema& schema, bool is_resource_root = true);

// The part of objectmeta.Coerce that shapes embedded resources' metadata (x-kubernetes-embedded-resource, not the
// resource's own): `metadata` keeps only ObjectMeta's fields, gains the `creationTimestamp: null` that Go's
// round trip through metav1.ObjectMeta writes, and the dropped fields' paths are returned
// ("spec.template.metadata.foo"). Run it after prune().
std::vector<std::string> coerce_embedded_metadata(boost::json::value& object, const Schema& schema);

}  // namespace kapi::apiextensions::schema
