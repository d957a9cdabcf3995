// TypedValue.RemoveItems and ExtractItems (smd's typed/remove.go, typed.go): a value without, or with only, a set
// of its fields.
#include "server/structured_merge/typed_internal.h"

#include <boost/json.hpp>

#include <optional>

namespace kapi::structured_merge {
namespace detail {
namespace {

namespace json = boost::json;

// removingWalker: the value without the fields of `items`, or (extracting) with only those; null for nothing
// left, as smd leaves a map or list whose every member went.
class RemovingWalker {
 public:
  explicit RemovingWalker(bool extract) : extract_(extract) {}

  json::value walk(TypeRef type, const json::value& value, const Set& items) const {
    switch (handler_for(deduce_atoms(type, &value))) {
      case Handler::kInvalid: return nullptr;  // smd ignores the schema error and keeps nothing
      case Handler::kScalar: return value;
      case Handler::kList: return walk_list(*type, value, items);
      case Handler::kMap: return walk_map(*type, value, items);
    }
    return nullptr;
  }

 private:
  json::value walk_list(const TypeDef& type, const json::value& value, const Set& items) const {
    if (!value.is_array()) return nullptr;
    const json::array& list = value.get_array();
    // An empty list, like an atomic one, is extracted whole and removed by nothing but its parent.
    if (list.empty() || type.list_relationship == ElementRelationship::kAtomic) return extract_ ? value : nullptr;
    json::array kept;
    for (const json::value& item : list) {
      std::string error;  // validated already: an item without a path matches nothing
      const std::optional<PathElement> element = list_item_element(type, item, error);
      const bool exact = element && items.has_member(*element);
      const Set* under = element ? items.child(*element) : nullptr;
      const bool prefix = under != nullptr && !under->empty();
      if (extract_) {
        if (prefix) {
          kept.push_back(walk(type.list_element, item, *under));
        } else if (exact) {
          kept.push_back(item);
        }
      } else if (!exact) {
        kept.push_back(prefix ? walk(type.list_element, item, *under) : item);
      }
    }
    if (kept.empty()) return nullptr;
    return kept;
  }

  json::value walk_map(const TypeDef& type, const json::value& value, const Set& items) const {
    if (!value.is_object()) return nullptr;
    const json::object& map = value.get_object();
    if (map.empty() || type.map_relationship == ElementRelationship::kAtomic) return extract_ ? value : nullptr;
    json::object kept;
    for (const auto& member : map) {
      const PathElement element = PathElement::field(std::string(member.key()));
      const TypeRef member_type = detail::member_type(type, member.key());
      if (items.has_member(element)) {
        // smd extracts the member with the whole set, not the member's part of it.
        if (extract_) kept.emplace(member.key(), walk(member_type, member.value(), items));
        continue;
      }
      const Set* under = items.child(element);
      if (under != nullptr && !under->empty()) {
        kept.emplace(member.key(), walk(member_type, member.value(), *under));
      } else if (!extract_) {
        kept.emplace(member.key(), member.value());
      }
    }
    if (kept.empty()) return nullptr;
    return kept;
  }

  bool extract_;
};

// WithAppendKeyFields: for each path of `items` that `value` has, the key fields of the map-list items on it.
Set key_fields_of(const TypedValue& value, const Set& items) {
  ValidationErrors errors;
  const Set fields = field_set(value.value, value.type, errors);
  Set key_fields;
  if (!errors.empty()) return key_fields;  // smd appends nothing when the value's fields cannot be listed
  items.for_each([&](const Path& path) {
    if (!fields.has(path)) return;
    for (std::size_t i = 0; i < path.size(); ++i) {
      if (!path[i].is_key()) continue;
      for (const KeyField& key_field : path[i].key_fields()) {
        Path key_path(path.begin(), path.begin() + static_cast<std::ptrdiff_t>(i) + 1);
        key_path.push_back(PathElement::field(key_field.name));
        key_fields.insert(key_path);
      }
    }
  });
  return key_fields;
}

}  // namespace
}  // namespace detail

TypedValue remove_items(const TypedValue& value, const Set& items) {
  return TypedValue{detail::RemovingWalker(false).walk(value.type, value.value, items), value.schema, value.type};
}

TypedValue extract_items(const TypedValue& value, const Set& items, bool append_key_fields) {
  const detail::RemovingWalker extractor(true);
  if (!append_key_fields) return TypedValue{extractor.walk(value.type, value.value, items), value.schema, value.type};
  const Set with_keys = items.union_with(detail::key_fields_of(value, items));
  return TypedValue{extractor.walk(value.type, value.value, with_keys), value.schema, value.type};
}

}  // namespace kapi::structured_merge
