#pragma once
// The FieldManagers of a custom resource version (apiextensions-apiserver's crdHandler makes one per served version
// and subresource, remade with the CRD).
#include "server/apiextensions/crd_model.h"
#include "server/endpoints/field_managers.h"
#include "server/registry/strategy.h"
#include "server/schema/catalog.h"
#include "server/structured_merge/schema.h"

#include <memory>

namespace kapi::apiextensions {

// The types of every served version of `crd` (converted between them as its None conversion does), status and scale
// as `version`'s subresources say, defaulted as `strategy` conforms objects; `builtin_types` (schema_from_catalog)
// gives ObjectMeta's and Scale's types.
endpoints::FieldManagers custom_resource_field_managers(const Crd& crd, const CrdVersion& version,
                                                       std::shared_ptr<const registry::Strategy> strategy,
                                                       const kapi::schema::Catalog& catalog,
                                                       std::shared_ptr<const structured_merge::Schema> builtin_types);

}  // namespace kapi::apiextensions
