#pragma once
// How custom resources of one CRD version differ in the generic registry Store (apiextensions-apiserver's
// pkg/registry/customresource strategy, validator and table convertor): bodies pruned and defaulted by the
// version's structural schema, validated against it, status and scale as the CRD's subresources say, and
// Table rows from its additionalPrinterColumns.
#include "server/apiextensions/crd_model.h"
#include "server/registry/strategy.h"

#include <memory>

namespace kapi::apiextensions {

std::shared_ptr<const registry::Strategy> custom_resource_strategy(const Crd& crd, const CrdVersion& version);

}  // namespace kapi::apiextensions
