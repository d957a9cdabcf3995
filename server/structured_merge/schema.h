#pragma once
// The type model server-side apply works on, as sigs.k8s.io/structured-merge-diff/v4/schema has it: each type is
// a scalar, a list or a map (a struct being a map with named fields), and says how its elements merge:
// - maps and structs: "separable" (granular: each member owned on its own) or "atomic" (owned and replaced whole);
// - lists: "atomic", or "associative" — a set when it has no keys (items are scalars, identified by value), a map
//   list when it has keys (items are objects identified by those fields).
// kube derives these from OpenAPI's x-kubernetes-list-type / -list-map-keys / -map-type (and, where a built-in type
// has none, from x-kubernetes-patch-strategy / -patch-merge-key): see type_converter.h.
//
// A Schema owns its TypeDefs; a TypeRef points into it and stays valid while the Schema lives (it never moves
// them). Immutable once built: const use from any thread.
#include <boost/json/value.hpp>

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::structured_merge {

enum class ElementRelationship { kSeparable, kAtomic, kAssociative };
enum class ScalarKind { kNumeric, kString, kBoolean, kUntyped };

struct TypeDef;
using TypeRef = const TypeDef*;

struct StructField {
  std::string name;
  TypeRef type = nullptr;
  // The OpenAPI default (smd's StructField.Default; null: none). Only a map list's key fields use it: an item that
  // omits such a key field is keyed by its default ({"containerPort": 80} is [containerPort=80,protocol="TCP"]).
  boost::json::value default_value;
};

struct TypeDef {
  std::string name;  // "io.k8s.api.core.v1.Pod"; empty for an inlined type
  // What a value of this type may be. smd's "deduced" type (for fields without a schema: unknown fields kept by
  // x-kubernetes-preserve-unknown-fields) is all three: granular maps, atomic lists and scalars.
  bool scalar = false;
  bool list = false;
  bool map = false;
  ScalarKind scalar_kind = ScalarKind::kUntyped;

  // map: named fields (sorted by name; non-empty for a struct), the type of any other member (nullptr: none,
  // e.g. a struct), and separable or atomic.
  std::vector<StructField> fields;
  TypeRef map_element = nullptr;
  ElementRelationship map_relationship = ElementRelationship::kSeparable;

  // list: the item type, atomic or associative, and the key fields of a map list (empty for a set).
  TypeRef list_element = nullptr;
  ElementRelationship list_relationship = ElementRelationship::kAtomic;
  std::vector<std::string> keys;

  // The member `name` of a struct/map: its field's type, else map_element; nullptr when neither.
  TypeRef member_type(std::string_view name) const;
  bool is_deduced() const { return scalar && list && map; }
};

class Schema {
 public:
  Schema();  // holds the deduced type
  Schema(Schema&&) noexcept = default;
  Schema& operator=(Schema&&) noexcept = default;

  // Adds a type (named or not) and returns its stable reference; its TypeRefs may point to types added later
  // (builders fill them in afterwards through mutable_type).
  TypeDef& add(TypeDef type);
  TypeRef find(std::string_view name) const;  // nullptr when unknown
  TypeRef deduced() const { return deduced_; }

 private:
  std::deque<TypeDef> types_;
  std::map<std::string, TypeDef*, std::less<>> by_name_;
  TypeRef deduced_ = nullptr;
};

}  // namespace kapi::structured_merge
