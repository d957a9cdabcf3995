// Sizes from schemas: kube's CRD size estimator (apiextensions-apiserver pkg/apiserver/schema/cel/compilation.go
// sizeEstimator, maxCardinality) and its request-size based maxima (apiserver pkg/cel/common/schemas.go).
#include "cel/cost.h"

namespace kapi::cel {

NodeSizeEstimator schema_size_estimator(Type root) {
  return [root = std::move(root)](const SizeQuery& node) -> std::optional<SizeEstimate> {
    if (node.path.empty()) return std::nullopt;
    // kube starts from the schema's root whatever the path's first element names.
    const Type* current = &root;
    for (std::size_t i = 1; i < node.path.size(); ++i) {
      const std::string& step = node.path[i];
      if (step == "@items" || step == "@values") {
        if (current->kind() == TypeKind::kList) {
          current = &current->element();
        } else if (current->kind() == TypeKind::kMap) {
          current = &current->value();
        } else {
          return std::nullopt;
        }
      } else if (step == "@keys") {
        if (current->kind() != TypeKind::kMap) return std::nullopt;
        current = &current->key();
      } else {
        const ObjectType* object = current->object_type();
        const Type* field = object != nullptr ? object->field(step) : nullptr;
        if (field == nullptr) return std::nullopt;
        current = field;
      }
    }
    return SizeEstimate{0, current->max_elements().value_or(0)};
  };
}

CostOptions kube_crd_cost_options(Type self_type) {
  CostOptions options;
  options.node_sizes = schema_size_estimator(std::move(self_type));
  options.type_size_hints = false;
  options.presence_test_has_cost = false;
  return options;
}

std::int64_t estimate_max_array_items(std::int64_t min_serialized_size) {
  return (cost_limits::kMaxRequestSizeBytes - 2) / (min_serialized_size + 1);
}

std::int64_t estimate_max_additional_properties(std::int64_t min_serialized_size) {
  const std::int64_t key_value_pair_size = min_serialized_size + 6;  // "":, and at least one character of key
  return (cost_limits::kMaxRequestSizeBytes - 2) / key_value_pair_size;
}

std::uint64_t max_cardinality(std::int64_t min_serialized_size) {
  const std::int64_t size = min_serialized_size + 1;  // at least one comma between elements
  return static_cast<std::uint64_t>(cost_limits::kMaxRequestSizeBytes / size);
}

}  // namespace kapi::cel
