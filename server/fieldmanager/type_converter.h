#pragma once
// The structured-merge-diff types of kapi's kinds (kube: managedfields.NewTypeConverter over the OpenAPI models,
// kube-openapi's schemaconv). One source of types, two front ends:
// - built-in kinds from the catalog (protos/k8s markers): +listType / +listMapKey / +mapType / +structType, and,
//   where a list has no +listType, its +patchStrategy=merge (+patchMergeKey) as schemaconv reads
//   x-kubernetes-patch-strategy; IntOrString, Quantity, Time and the like are scalars; RawExtension is untyped and
//   atomic (schemaconv's "__untyped_atomic_"), FieldsV1 a map of deduced members; fields carry their OpenAPI
//   default (StructField::default_value), which keys map-list items missing a key field;
// - custom resources from a CRD version's structural schema (x-kubernetes-list-type / -list-map-keys / -map-type,
//   x-kubernetes-preserve-unknown-fields → deduced members, x-kubernetes-embedded-resource, x-kubernetes-int-or-string),
//   with apiVersion, kind and metadata (ObjectMeta's type) added as kube's CRD handler adds them.
#include "server/schema/catalog.h"
#include "server/structured_merge/schema.h"

#include <boost/json/object.hpp>

#include <memory>
#include <string>
#include <string_view>

namespace kapi::fieldmanager {

// Every message of the catalog as a named type ("io.k8s.api.apps.v1.Deployment", Catalog::openapi_name).
std::shared_ptr<const structured_merge::Schema> schema_from_catalog(const schema::Catalog& catalog);

// The type of a kind's objects in a schema made by schema_from_catalog; nullptr when the catalog lacks the kind.
structured_merge::TypeRef kind_type(const structured_merge::Schema& schema, const schema::Catalog& catalog,
                                    std::string_view group, std::string_view version, std::string_view kind);

// A custom resource version's types; `root_name` names the object type ("com.example.v1.Widget"). `catalog` gives
// ObjectMeta. Throws std::invalid_argument for a schema kube would refuse to convert.
struct CustomResourceSchema {
  std::shared_ptr<const structured_merge::Schema> schema;
  structured_merge::TypeRef root = nullptr;
};
CustomResourceSchema schema_from_structural(const boost::json::object& openapi_v3_schema, std::string root_name,
                                            const schema::Catalog& catalog);

}  // namespace kapi::fieldmanager
