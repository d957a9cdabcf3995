// TypedValue.ToFieldSet (smd's typed/tofieldset.go): the set of fields a value sets.
#include "server/structured_merge/typed_internal.h"

#include <boost/json.hpp>

#include <optional>
#include <vector>

namespace kapi::structured_merge {
namespace detail {
namespace {

namespace json = boost::json;

class FieldSetWalker {
 public:
  explicit FieldSetWalker(ValidationErrors& errors) : errors_(errors) {}

  void walk(TypeRef type, const json::value& value) {
    switch (handler_for(deduce_atoms(type, &value))) {
      case Handler::kInvalid: add_error(errors_, invalid_atom_message(type)); return;
      case Handler::kScalar: set_.insert(path_); return;
      case Handler::kList: return walk_list(*type, value);
      case Handler::kMap: return walk_map(*type, value);
    }
  }

  Set take() { return std::move(set_); }

 private:
  void walk_list(const TypeDef& type, const json::value& value) {
    if (type.list_relationship == ElementRelationship::kAtomic) {
      set_.insert(path_);
      return;
    }
    if (!value.is_array()) return;
    const json::array& items = value.get_array();
    // Items are identified by key or value; an item that is there more than once is one leaf, not descended into.
    std::vector<std::optional<PathElement>> elements;
    elements.reserve(items.size());
    for (const json::value& item : items) {
      std::string error;  // validation reported it; such an item has no path
      elements.push_back(list_item_element(type, item, error));
    }
    const std::vector<std::size_t> first = first_occurrences(elements);
    std::vector<bool> duplicated(items.size(), false);
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (first[i] == i || duplicated[first[i]]) continue;
      duplicated[first[i]] = true;
      PathScope scope(path_, *elements[i]);
      set_.insert(path_);
    }
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (!elements[i] || duplicated[first[i]]) continue;
      PathScope scope(path_, std::move(*elements[i]));
      walk(type.list_element, items[i]);
      set_.insert(path_);
    }
  }

  void walk_map(const TypeDef& type, const json::value& value) {
    if (type.map_relationship == ElementRelationship::kAtomic) {
      set_.insert(path_);
      return;
    }
    if (!value.is_object()) return;
    for (const auto& member : value.get_object()) {
      const StructField* field = find_field(type, member.key());
      PathScope scope(path_, PathElement::field(std::string(member.key())));
      const json::value& child = member.value();
      walk(field != nullptr ? field->type : type.map_element, child);
      // A null or empty map is a leaf of its own, and so is every member a struct does not declare.
      if (child.is_null() || (child.is_object() && child.get_object().empty()) || field == nullptr)
        set_.insert(path_);
    }
  }

  ValidationErrors& errors_;
  Path path_;
  Set set_;
};

}  // namespace

Set field_set(const json::value& value, TypeRef type, ValidationErrors& errors) {
  FieldSetWalker walker(errors);
  walker.walk(type, value);
  return walker.take();
}

}  // namespace detail

Set to_field_set(const TypedValue& value) {
  detail::ValidationErrors errors;
  Set set = detail::field_set(value.value, value.type, errors);
  detail::throw_if_any(errors);
  return set;
}

}  // namespace kapi::structured_merge
