#include "base/go_quote.h"
#include "server/patch/go_json.h"
#include "server/structured_merge/typed_internal.h"

#include <boost/json.hpp>

#include <algorithm>
#include <cstdint>

namespace kapi::structured_merge {
namespace {

namespace json = boost::json;

// ValidationErrors.Error(): one error alone, else "errors:" and each indented on its own line.
std::string validation_errors_text(const std::vector<std::string>& errors) {
  if (errors.size() == 1) return errors.front();
  std::string text = "errors:";
  for (const std::string& error : errors) text.append("\n  ").append(error);
  return text;
}

}  // namespace

TypedError::TypedError(std::vector<std::string> errors)
    : std::runtime_error(validation_errors_text(errors)), errors_(std::move(errors)) {}

Comparison Comparison::exclude(const Set& ignored) const {
  if (ignored.empty()) return *this;
  return {removed.recursive_difference(ignored), modified.recursive_difference(ignored),
          added.recursive_difference(ignored)};
}

namespace detail {

void prefix_errors(ValidationErrors& errors, std::size_t first, const PathElement& element) {
  if (first >= errors.size()) return;
  const std::string prefix = element.to_string();
  for (std::size_t i = first; i < errors.size(); ++i) errors[i].path.insert(0, prefix);
}

void throw_if_any(const ValidationErrors& errors) {
  if (errors.empty()) return;
  std::vector<std::string> messages;
  messages.reserve(errors.size());
  for (const ValidationError& error : errors)
    messages.push_back(error.path.empty() ? error.message : error.path + ": " + error.message);
  throw TypedError(std::move(messages));
}

const json::value& null_value() {
  static const json::value kNull;
  return kNull;
}

namespace {

bool is_scalar(const json::value& value) {
  return value.is_number() || value.is_string() || value.is_bool();
}

unsigned type_atoms(TypeRef type) {
  if (type == nullptr) return 0;
  return (type->scalar ? kScalarAtom : 0u) | (type->list ? kListAtom : 0u) | (type->map ? kMapAtom : 0u);
}

}  // namespace

unsigned deduce_atoms(TypeRef type, const json::value* value) {
  const unsigned atoms = type_atoms(type);
  if (value == nullptr) return atoms;
  if (is_scalar(*value) && (atoms & kScalarAtom)) return kScalarAtom;
  if (value->is_array() && (atoms & kListAtom)) return kListAtom;
  if (value->is_object() && (atoms & kMapAtom)) return kMapAtom;
  return atoms;  // nothing fits: the handler reports it
}

Handler handler_for(unsigned atoms) {
  if (atoms & kMapAtom) return Handler::kMap;
  if (atoms & kScalarAtom) return Handler::kScalar;
  if (atoms & kListAtom) return Handler::kList;
  return Handler::kInvalid;
}

std::string invalid_atom_message(TypeRef type) {
  if (type != nullptr && !type->name.empty()) return "schema error: invalid atom: named type: " + type->name;
  return "schema error: invalid atom: inlined";
}

const StructField* find_field(const TypeDef& type, std::string_view name) {
  auto found = std::lower_bound(type.fields.begin(), type.fields.end(), name,
                                [](const StructField& field, std::string_view wanted) { return field.name < wanted; });
  return found != type.fields.end() && found->name == name ? &*found : nullptr;
}

namespace {

// fmt's %v and %#v of smd's *valueUnstructured, the wrapper kube's unstructured objects are read through.
std::string value_v(const json::value& value) { return "&{" + patch::detail::go_value(value) + "}"; }
std::string value_sharp_v(const json::value& value) {
  return "&value.valueUnstructured{Value:" + patch::detail::go_sharp_value(value) + "}";
}

}  // namespace

std::optional<std::string> scalar_error(ScalarKind kind, const json::value* value, std::string_view prefix) {
  if (value == nullptr || value->is_null()) return std::nullopt;
  std::string message(prefix);
  switch (kind) {
    case ScalarKind::kNumeric:
      if (value->is_number()) return std::nullopt;
      return message + "expected numeric (int or float), got " + patch::detail::go_type_name(*value);
    case ScalarKind::kString:
      if (value->is_string()) return std::nullopt;
      return message + "expected string, got " + value_sharp_v(*value);
    case ScalarKind::kBoolean:
      if (value->is_bool()) return std::nullopt;
      return message + "expected boolean, got " + value_v(*value);
    case ScalarKind::kUntyped:
      if (is_scalar(*value)) return std::nullopt;
      return message + "expected any scalar, got " + value_v(*value);
  }
  return std::nullopt;
}

std::string expected_list_message(const json::value& value) { return "expected list, got " + value_v(value); }
std::string expected_map_message(const json::value& value) { return "expected map, got " + value_v(value); }

namespace {

std::optional<PathElement> keyed_item_element(const TypeDef& list, const json::value& item, std::string& error) {
  if (item.is_null()) {
    error = "associative list with keys may not have a null element";
    return std::nullopt;
  }
  if (!item.is_object()) {
    error = "associative list with keys may not have non-map elements";
    return std::nullopt;
  }
  const json::object& object = item.get_object();
  Key key;
  key.reserve(list.keys.size());
  for (const std::string& name : list.keys) {
    if (const json::value* field = object.if_contains(name)) {
      key.push_back({name, *field});
      continue;
    }
    // getAssociativeKeyDefault: the item type's default for the key field.
    if (list.list_element == nullptr) {
      error = "couldn't find default value for " + name + ": invalid elementType for list";
      return std::nullopt;
    }
    if (!list.list_element->map) {
      error = "couldn't find default value for " + name + ": associative list may not have non-map types";
      return std::nullopt;
    }
    const StructField* declared = find_field(*list.list_element, name);
    if (declared == nullptr || declared->default_value.is_null()) {
      error = "associative list with keys has an element that omits key field " + base::go_quote(name) +
              " (and doesn't have default value)";
      return std::nullopt;
    }
    key.push_back({name, declared->default_value});
  }
  return PathElement::key(std::move(key));
}

std::optional<PathElement> set_item_element(const json::value& item, std::string& error) {
  if (item.is_object()) {
    error = "associative list without keys has an element that's a map type";
  } else if (item.is_array()) {
    error = "not supported: associative list with lists as elements";
  } else if (item.is_null()) {
    error = "associative list without keys has an element that's an explicit null";
  } else {
    return PathElement::value(item);
  }
  return std::nullopt;
}

}  // namespace

std::optional<PathElement> list_item_element(const TypeDef& list, const json::value& item, std::string& error) {
  if (list.list_relationship != ElementRelationship::kAssociative) {
    error = "invalid indexing of non-associative list";
    return std::nullopt;
  }
  if (!list.keys.empty()) return keyed_item_element(list, item, error);
  return set_item_element(item, error);
}

std::vector<std::size_t> first_occurrences(const std::vector<std::optional<PathElement>>& elements) {
  std::vector<std::size_t> first(elements.size());
  std::vector<std::size_t> order;
  order.reserve(elements.size());
  for (std::size_t i = 0; i < elements.size(); ++i) {
    first[i] = i;
    if (elements[i]) order.push_back(i);
  }
  // Stable: within a run of equal elements the lowest index comes first.
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return *elements[a] < *elements[b]; });
  for (std::size_t k = 1; k < order.size(); ++k) {
    if (*elements[order[k]] == *elements[order[k - 1]]) first[order[k]] = first[order[k - 1]];
  }
  return first;
}

namespace {

std::optional<double> as_float(const json::value& value) {
  if (value.is_double()) return value.get_double();
  if (value.is_int64()) return static_cast<double>(value.get_int64());
  if (value.is_uint64()) return static_cast<double>(value.get_uint64());
  return std::nullopt;
}

bool is_int(const json::value& value) { return value.is_int64() || value.is_uint64(); }

bool ints_equal(const json::value& lhs, const json::value& rhs) {
  if (lhs.is_int64() && rhs.is_int64()) return lhs.get_int64() == rhs.get_int64();
  if (lhs.is_uint64() && rhs.is_uint64()) return lhs.get_uint64() == rhs.get_uint64();
  const json::value& signed_side = lhs.is_int64() ? lhs : rhs;
  const json::value& unsigned_side = lhs.is_int64() ? rhs : lhs;
  return signed_side.get_int64() >= 0 &&
         static_cast<std::uint64_t>(signed_side.get_int64()) == unsigned_side.get_uint64();
}

}  // namespace

bool values_equal(const json::value& lhs, const json::value& rhs) {
  if (lhs.is_double() || rhs.is_double()) {
    auto left = as_float(lhs);
    auto right = as_float(rhs);
    return left && right && *left == *right;
  }
  if (is_int(lhs) || is_int(rhs)) return is_int(lhs) && is_int(rhs) && ints_equal(lhs, rhs);
  if (lhs.kind() != rhs.kind()) return false;
  switch (lhs.kind()) {
    case json::kind::string: return lhs.get_string() == rhs.get_string();
    case json::kind::bool_: return lhs.get_bool() == rhs.get_bool();
    case json::kind::null: return true;
    case json::kind::array: {
      const json::array& left = lhs.get_array();
      const json::array& right = rhs.get_array();
      return std::equal(left.begin(), left.end(), right.begin(), right.end(),
                        [](const json::value& l, const json::value& r) { return values_equal(l, r); });
    }
    case json::kind::object: {
      const json::object& left = lhs.get_object();
      const json::object& right = rhs.get_object();
      if (left.size() != right.size()) return false;
      for (const auto& member : left) {
        const json::value* other = right.if_contains(member.key());
        if (other == nullptr || !values_equal(member.value(), *other)) return false;
      }
      return true;
    }
    default: return false;
  }
}

}  // namespace detail
}  // namespace kapi::structured_merge
