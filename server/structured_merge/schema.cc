#include "server/structured_merge/schema.h"

#include <algorithm>

namespace kapi::structured_merge {

TypeRef TypeDef::member_type(std::string_view name) const {
  auto found = std::lower_bound(fields.begin(), fields.end(), name,
                                [](const StructField& field, std::string_view wanted) { return field.name < wanted; });
  if (found != fields.end() && found->name == name) return found->type;
  return map_element;
}

Schema::Schema() {
  // smd's "__untyped_deduced_": a scalar, an atomic list or a granular map of more of the same, as the value is.
  TypeDef& deduced = types_.emplace_back();
  deduced.name = "__untyped_deduced_";
  deduced.scalar = deduced.list = deduced.map = true;
  deduced.map_element = deduced.list_element = &deduced;
  deduced.list_relationship = ElementRelationship::kAtomic;
  deduced.map_relationship = ElementRelationship::kSeparable;
  by_name_.emplace(deduced.name, &deduced);
  deduced_ = &deduced;
}

TypeDef& Schema::add(TypeDef type) {
  std::sort(type.fields.begin(), type.fields.end(),
            [](const StructField& a, const StructField& b) { return a.name < b.name; });
  TypeDef& added = types_.emplace_back(std::move(type));
  if (!added.name.empty()) by_name_.emplace(added.name, &added);
  return added;
}

TypeRef Schema::find(std::string_view name) const {
  auto found = by_name_.find(name);
  return found == by_name_.end() ? nullptr : found->second;
}

}  // namespace kapi::structured_merge
