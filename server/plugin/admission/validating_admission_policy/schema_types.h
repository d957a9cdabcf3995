#pragma once
// CEL object types of the built-in kinds, derived from kapi's type schemas as kube derives them from the OpenAPI
// definitions (k8s.io/apiserver/pkg/cel/common/schemas.go SchemaDeclType over the built-in definitions): objects
// with their JSON fields, lists, string-keyed maps, timestamps for date-time strings; quantities and
// int-or-strings are strings, as their OpenAPI definitions say.
#include "cel/types.h"

#include <boost/json/object.hpp>

#include <optional>
#include <string_view>

namespace kapi::schema { class Catalog; }

namespace kapi::admission::policy {

// The type of kind `group`/`version`/`kind` named `type_name`, or nullopt when the catalog does not know it.
std::optional<cel::Type> kind_type(const schema::Catalog& catalog, std::string_view group, std::string_view version,
                                   std::string_view kind, std::string_view type_name);

// The type of a custom resource's objects as a policy sees them: kube takes the group version's published OpenAPI
// schema, which is the CRD's openAPIV3Schema with apiVersion, kind and metadata as the full ObjectMeta. nullopt when
// the schema exposes no object to CEL (none, or x-kubernetes-preserve-unknown-fields only).
std::optional<cel::Type> custom_kind_type(const schema::Catalog& catalog, const boost::json::object& openapi_schema,
                                          std::string_view type_name);

}  // namespace kapi::admission::policy
