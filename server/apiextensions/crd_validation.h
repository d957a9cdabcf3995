#pragma once
// kube-apiserver's defaulting and validation of apiextensions.k8s.io/v1 CustomResourceDefinitions
// (apiextensions-apiserver pkg/apis/apiextensions/v1/defaults.go and pkg/apis/apiextensions/validation/validation.go,
// Kubernetes 1.32), with kube's paths and words.
//
// kube validates the internal form of a CRD, which the v1 form converts to by moving per-version schemas,
// subresources and printer columns that are identical in every version up to spec.validation, spec.subresources
// and spec.additionalPrinterColumns (always so for a CRD with one version). Its errors name those internal paths,
// and so do these:
//   spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields
//   spec.versions[1].schema.openAPIV3Schema.type: ...   (when the versions' schemas differ)
// Generic metadata checks (name syntax, labels, annotations, immutable metadata on update) are the store's;
// these add what is particular to CRDs.
//
// Deliberate deviation: kapi does not call conversion webhooks, so spec.conversion.strategy Webhook is refused.
#include "server/validation/field_error.h"

#include <boost/json/object.hpp>

namespace kapi::apiextensions {

// SetObjectDefaults_CustomResourceDefinition (v1): names.singular (lower-case kind), names.listKind (kind+"List"),
// conversion {strategy: None}, the conversion webhook service's port 443, status.storedVersions (the storage
// version) when empty.
void default_crd(boost::json::object& crd);

// ValidateCustomResourceDefinition, for a create (the object as the strategy prepared it, status.storedVersions
// holding the storage version).
validation::ErrorList validate_crd(const boost::json::object& crd);

// ValidateCustomResourceDefinitionUpdate: the spec and status checks with the update's options (names and scope
// frozen once the old CRD is Established, group and plural always), stored versions kept in spec.versions.
validation::ErrorList validate_crd_update(const boost::json::object& crd, const boost::json::object& old);

// ValidateUpdateCustomResourceDefinitionStatus's own part: status.acceptedNames.
validation::ErrorList validate_crd_status(const boost::json::object& crd);

}  // namespace kapi::apiextensions
