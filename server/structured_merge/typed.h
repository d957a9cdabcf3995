#pragma once
// Values with their type, and what server-side apply does with them (structured-merge-diff/v4/typed): the set of
// fields a value sets, the difference between two values, the merge of an applied configuration into the live
// object, and removing or extracting a set of fields.
#include "server/structured_merge/fieldpath.h"
#include "server/structured_merge/schema.h"

#include <boost/json/value.hpp>

#include <stdexcept>
#include <string>
#include <vector>

namespace kapi::structured_merge {

// A value that does not fit its type, or breaks a list's rules (a duplicate set item or map-list key, a map-list
// item without its key fields). `what()` is smd's ValidationErrors text: ".spec.ports[...]: duplicate entries for
// key [containerPort=80,protocol=\"TCP\"]"; one message per error, joined by "\n" as smd joins them.
class TypedError : public std::runtime_error {
 public:
  TypedError(std::vector<std::string> errors);
  const std::vector<std::string>& errors() const { return errors_; }

 private:
  std::vector<std::string> errors_;
};

// A JSON value and its type in a schema that outlives it. Absent members are absent; JSON null is a value.
struct TypedValue {
  boost::json::value value;
  const Schema* schema = nullptr;
  TypeRef type = nullptr;
};

// AsTyped: checks `value` against `type` (the errors above); throws TypedError. With `allow_duplicates`, duplicate
// items of sets and map lists are accepted (kube reads live objects that way: they may predate the rule). `value` is
// moved from only when it fits.
TypedValue as_typed(boost::json::value&& value, const Schema& schema, TypeRef type, bool allow_duplicates = false);

// The fields `value` sets (TypedValue.ToFieldSet): every member path, list items by key/value/index as their list
// type says; an atomic map or list is one leaf.
Set to_field_set(const TypedValue& value);

// What changed from `lhs` to `rhs` (TypedValue.Compare).
struct Comparison {
  Set removed;
  Set modified;
  Set added;
  bool is_same() const { return removed.empty() && modified.empty() && added.empty(); }
  // removed ∪ modified ∪ added excluding `ignored` (Comparison.ExcludeFields).
  Comparison exclude(const Set& ignored) const;
};
Comparison compare(const TypedValue& lhs, const TypedValue& rhs);

// `rhs` merged into `lhs` (TypedValue.Merge): members of granular maps and items of associative lists merged by
// name/key/value, atomic values replaced; item order as smd orders it (rhs's items, then lhs's others).
TypedValue merge(const TypedValue& lhs, const TypedValue& rhs);

// `value` without the paths of `items` (TypedValue.RemoveItems).
TypedValue remove_items(const TypedValue& value, const Set& items);
// Only the paths of `items` (TypedValue.ExtractItems); with `append_key_fields`, map-list items keep their key
// fields even when `items` does not name them.
TypedValue extract_items(const TypedValue& value, const Set& items, bool append_key_fields = false);

}  // namespace kapi::structured_merge
