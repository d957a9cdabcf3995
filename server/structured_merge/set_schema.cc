#include "server/structured_merge/set_schema.h"

#include <algorithm>
#include <string>

namespace kapi::structured_merge::detail {
namespace {

bool has_named_field(TypeRef type, const std::string& name) {
  return std::any_of(type->fields.begin(), type->fields.end(),
                     [&](const StructField& field) { return field.name == name; });
}

// The type of the subtree under `element`, as smd resolves it: a member's type in a map, an item's type under a
// map-list key; nothing under set values or indices (their items have no named fields to add).
TypeRef child_type_for_named_fields(TypeRef type, const PathElement& element) {
  if (type == nullptr) return nullptr;
  if (element.is_field() && type->map) return type->member_type(element.field_name());
  if (element.is_key() && type->list) return type->list_element;
  return nullptr;
}

void add_named_fields(const Set& set, TypeRef type, Path& prefix, Set& out) {
  for (const PathElement& member : set.members()) {
    prefix.push_back(member);
    out.insert(prefix);
    prefix.pop_back();
  }
  for (const auto& [element, child] : set.children()) {
    prefix.push_back(element);
    if (element.is_field() && type != nullptr && type->map && has_named_field(type, element.field_name())) {
      out.insert(prefix);
    }
    add_named_fields(child, child_type_for_named_fields(type, element), prefix, out);
    prefix.pop_back();
  }
}

// A map with no fields whose members are of the deduced type (x-kubernetes-preserve-unknown-fields without
// properties): deduced types are never atomic, so there is nothing to reconcile under it.
bool is_untyped_deduced_map(TypeRef type) {
  TypeRef element = type->map_element;
  return type->fields.empty() && element != nullptr && element->scalar && element->scalar_kind == ScalarKind::kUntyped;
}

// The walk of smd's reconcileWithSchemaWalker: `owned` is the manager's subtree at `path` (nullptr when the path
// is only a member), `owned_whole` says the manager owns the value at `path` as a leaf.
class Reconciler {
 public:
  void reconcile(const Set* owned, TypeRef type, bool owned_whole) {
    if (type == nullptr) return;
    // smd's handleAtom looks at the map side of a type first, then scalar, then list.
    if (type->map) {
      if (is_untyped_deduced_map(type)) return;
      if (!owned_whole && type->map_relationship == ElementRelationship::kAtomic) {
        if (owned != nullptr && !owned->empty()) make_atomic();
        return;
      }
      if (owned != nullptr)
        visit_items(*owned, [&](const PathElement& element) -> TypeRef {
          return element.is_field() ? type->member_type(element.field_name()) : type->map_element;
        });
      return;
    }
    if (type->scalar) return;
    if (type->list) {
      if (!owned_whole && type->list_relationship == ElementRelationship::kAtomic) {
        make_atomic();
        return;
      }
      if (owned != nullptr) visit_items(*owned, [&](const PathElement&) { return type->list_element; });
    }
  }

  bool changed() const { return changed_; }
  Set result(const Set& set) const { return set.recursive_difference(to_remove_).union_with(to_add_); }

 private:
  // The manager owned parts of a value that is atomic now: it owns the value, and none of its parts.
  void make_atomic() {
    changed_ = true;
    if (path_.empty()) return;  // smd's sets hold no empty path: the whole object is never a member
    to_remove_.insert(path_);
    to_add_.insert(path_);
  }

  template <typename ElementType>
  void visit_items(const Set& owned, const ElementType& element_type) {
    auto visit = [&](const PathElement& element, bool is_member) {
      TypeRef type = element_type(element);
      if (type == nullptr) return;  // a field the schema does not know
      const Set* child = owned.child(element);
      path_.push_back(element);
      reconcile(child, type, is_member && child == nullptr);
      path_.pop_back();
    };
    for (const auto& [element, child] : owned.children()) {
      if (!owned.has_member(element)) visit(element, false);
    }
    for (const PathElement& member : owned.members()) visit(member, true);
  }

  Path path_;
  Set to_remove_;
  Set to_add_;
  bool changed_ = false;
};

}  // namespace

Set ensure_named_fields_are_members(const Set& set, TypeRef type) {
  Set out;
  Path prefix;
  add_named_fields(set, type, prefix, out);
  return out;
}

std::optional<Set> reconcile_field_set_with_schema(const Set& set, TypeRef type) {
  Reconciler reconciler;
  reconciler.reconcile(&set, type, false);
  if (!reconciler.changed()) return std::nullopt;
  return reconciler.result(set);
}

}  // namespace kapi::structured_merge::detail
