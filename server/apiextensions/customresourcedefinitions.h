#pragma once
// apiextensions.k8s.io/v1 CustomResourceDefinition (apiextensions-apiserver's pkg/registry/customresourcedefinition):
// cluster-scoped, with /status; its strategy defaults and validates the CRD, keeps status.storedVersions and, on
// DELETE, marks it Terminating with the customresourcecleanup finalizer so its custom resources go first.
#include "server/registry/resource.h"
#include "server/registry/strategy.h"
#include "server/schema/catalog.h"

#include <boost/json/object.hpp>

#include <memory>
#include <string_view>

namespace kapi::apiextensions {

registry::ResourceDefinition customresourcedefinitions_definition();
// `catalog` (which outlives the strategy) conforms the CRD's ObjectMeta.
std::shared_ptr<const registry::Strategy> customresourcedefinitions_strategy(const kapi::schema::Catalog& catalog);

// Sets (or replaces) the status condition of `type`, keeping lastTransitionTime when the status is unchanged
// (apiextensionshelpers.SetCRDCondition).
void set_crd_condition(boost::json::object& crd, std::string_view type, std::string_view status,
                       std::string_view reason, std::string_view message);

}  // namespace kapi::apiextensions
