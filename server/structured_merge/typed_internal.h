#pragma once
// What the typed walkers (validate, to_field_set, compare, merge, remove/extract) share: smd's typed/helpers.go.
// Values are walked by pointer: nullptr is smd's absent (nil) value, a JSON null is a value.
#include "server/structured_merge/fieldpath.h"
#include "server/structured_merge/schema.h"
#include "server/structured_merge/typed.h"

#include <boost/json/value.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::structured_merge::detail {

// One of smd's ValidationErrors: the path is built up as the walk unwinds (WithLazyPrefix).
struct ValidationError {
  std::string path;
  std::string message;
};
using ValidationErrors = std::vector<ValidationError>;

inline void add_error(ValidationErrors& errors, std::string message) { errors.push_back({{}, std::move(message)}); }

// Prefixes the errors from `first` on with `element` (`.name`, `[name="x"]`, `[="v"]`, `[0]`).
void prefix_errors(ValidationErrors& errors, std::size_t first, const PathElement& element);

// Throws the TypedError whose text is smd's ValidationErrors.Error(); nothing when `errors` is empty.
void throw_if_any(const ValidationErrors& errors);

// The null smd substitutes for a duplicated list item when merging (value.NewValueInterface(nil)).
const boost::json::value& null_value();

// smd's Atom as a set of what a type may be. deduce_atoms narrows it to the one a value is (deduceAtom), the
// handler is what handleAtom dispatches to: a map before a scalar before a list.
enum AtomBits : unsigned { kScalarAtom = 1, kListAtom = 2, kMapAtom = 4 };
unsigned deduce_atoms(TypeRef type, const boost::json::value* value);
enum class Handler { kMap, kScalar, kList, kInvalid };
Handler handler_for(unsigned atoms);
// handleAtom's error for a type that is nothing: "schema error: invalid atom: named type: X" / "...: inlined".
std::string invalid_atom_message(TypeRef type);

// The declared field `name` of a struct (Map.FindField); nullptr when the map has none.
const StructField* find_field(const TypeDef& type, std::string_view name);
// The type of member `name`: the declared field's, else the map's element type (nullptr when neither).
inline TypeRef member_type(const TypeDef& type, std::string_view name) {
  const StructField* field = find_field(type, name);
  return field != nullptr ? field->type : type.map_element;
}

// validateScalar: the message (after `prefix`) for a value that is not of `kind`; nullopt when it is (absent and
// null values are).
std::optional<std::string> scalar_error(ScalarKind kind, const boost::json::value* value, std::string_view prefix);

// listValue/mapValue's refusals: "expected list, got &{...}" (fmt's %v of smd's value wrapper).
std::string expected_list_message(const boost::json::value& value);
std::string expected_map_message(const boost::json::value& value);

// listItemToPathElement: how an item of an associative list is identified (by its key fields, or by its value in
// a set); nullopt with `error` set for an item that cannot be.
std::optional<PathElement> list_item_element(const TypeDef& list, const boost::json::value& item, std::string& error);

// For each list item, the index of the first item with the same path element (its own index when it is the
// first, or has none): duplicates found by sorting, without copying the elements.
std::vector<std::size_t> first_occurrences(const std::vector<std::optional<PathElement>>& elements);

// value.Equals: numbers by value (an int and a float are equal when the float is), maps regardless of order.
bool values_equal(const boost::json::value& lhs, const boost::json::value& rhs);

// Appending to and popping from the walkers' current path, as one scope.
class PathScope {
 public:
  PathScope(Path& path, PathElement element) : path_(path) { path_.push_back(std::move(element)); }
  ~PathScope() { path_.pop_back(); }
  PathScope(const PathScope&) = delete;
  PathScope& operator=(const PathScope&) = delete;

 private:
  Path& path_;
};

// The Set of a TypedValue's fields; the walk behind to_field_set, also used by extract_items.
Set field_set(const boost::json::value& value, TypeRef type, ValidationErrors& errors);

}  // namespace kapi::structured_merge::detail
