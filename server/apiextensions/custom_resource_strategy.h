#pragma once
// How custom resources of one CRD version differ in the generic registry Store (apiextensions-apiserver's
// pkg/registry/customresource strategy, validator and table convertor): bodies pruned and defaulted by the
// version's structural schema, validated against it, status and scale as the CRD's subresources say, and
// Table rows from its additionalPrinterColumns.
#include "server/apiextensions/crd_model.h"
#include "server/registry/strategy.h"
#include "server/schema/catalog.h"

#include <memory>

namespace kapi::apiextensions {

namespace cel { class Validator; }

// Compiles the version's x-kubernetes-validations rules. `catalog` (which outlives the strategy) decodes metadata.
std::shared_ptr<const registry::Strategy> custom_resource_strategy(const kapi::schema::Catalog& catalog, const Crd& crd,
                                                                   const CrdVersion& version);
// With rules compiled before (null: the version has none), so a CRD's rules compile once, not on every change
// of the served CRDs.
std::shared_ptr<const registry::Strategy> custom_resource_strategy(const kapi::schema::Catalog& catalog, const Crd& crd,
                                                                   const CrdVersion& version,
                                                                   std::shared_ptr<const cel::Validator> rules);

}  // namespace kapi::apiextensions
