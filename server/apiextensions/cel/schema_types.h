#pragma once
// The CEL type of a structural schema node (apiserver/pkg/cel/common/schemas.go SchemaDeclType and
// apiserver/pkg/cel/types.go DeclType.MaybeAssignTypeName): objects become object types named after their place
// under the rule's `self` ("selfType123.spec.ports.@idx"), maps (additionalProperties) map(string, T), arrays
// list(T), x-kubernetes-int-or-string dyn, formatted strings bytes / duration / timestamp. Size hints come from
// maxLength / maxItems / maxProperties or, without them, from how many values fit in a 3 MiB request, as kube
// estimates them for the cost estimator.
#include "cel/cost.h"
#include "cel/types.h"
#include "server/apiextensions/schema/structural.h"

#include <cstdint>
#include <optional>
#include <string>

namespace kapi::apiextensions::cel {

// apiserver/pkg/apis/cel: the request size kube's estimates assume.
inline constexpr std::int64_t kMaxRequestSizeBytes = kapi::cel::cost_limits::kMaxRequestSizeBytes;

struct DeclType {
  kapi::cel::Type type;
  // The fewest bytes a value of this type takes in JSON, which bounds how many fit in a request.
  std::int64_t min_serialized_size = 1;
};

// The type of values of `schema`, or nullopt when kube does not expose the node to CEL (no type and not
// int-or-string, an array without items, a map whose values are not exposed). `is_resource_root` for the root of
// the custom resource and of x-kubernetes-embedded-resource objects, which always expose apiVersion, kind and
// metadata.name / metadata.generateName. Object types are named `name`, their fields' objects `name.field`.
std::optional<DeclType> schema_decl_type(const schema::Schema& schema, bool is_resource_root,
                                         const std::string& name);

// kube's generateUniqueSelfTypeName: "selfType" and the clock's nanoseconds, so rule authors cannot depend on it.
std::string unique_self_type_name();

// The properties of a resource root as CEL sees them (model.WithTypeAndObjectMeta): the schema's own when it
// already declares apiVersion and kind as strings and metadata with string name and generateName; otherwise for
// apiVersion, kind and metadata the string / {name, generateName} schemas kube substitutes.
const schema::Schema* resource_property(const schema::Schema& schema, std::string_view name);

// The most times a value of min_serialized_size fits in a request (compilation.go maxCardinality).
std::uint64_t max_cardinality(std::int64_t min_serialized_size);

}  // namespace kapi::apiextensions::cel
