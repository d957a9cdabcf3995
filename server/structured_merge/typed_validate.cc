// AsTyped and its validation (smd's typed/validate.go).
#include "server/structured_merge/typed_internal.h"

#include <boost/json.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kapi::structured_merge {
namespace {

namespace json = boost::json;
using detail::ValidationErrors;

class Validator {
 public:
  explicit Validator(bool allow_duplicates) : allow_duplicates_(allow_duplicates) {}

  void validate(TypeRef type, const json::value& value, ValidationErrors& errors) const {
    switch (detail::handler_for(detail::deduce_atoms(type, &value))) {
      case detail::Handler::kInvalid: detail::add_error(errors, detail::invalid_atom_message(type)); return;
      case detail::Handler::kScalar:
        if (auto error = detail::scalar_error(type->scalar_kind, &value, "")) detail::add_error(errors, *error);
        return;
      case detail::Handler::kList: return validate_list(*type, value, errors);
      case detail::Handler::kMap: return validate_map(*type, value, errors);
    }
  }

 private:
  void validate_list(const TypeDef& type, const json::value& value, ValidationErrors& errors) const {
    if (value.is_null()) return;
    if (!value.is_array()) return detail::add_error(errors, detail::expected_list_message(value));
    const json::array& items = value.get_array();
    if (type.list_relationship != ElementRelationship::kAssociative) {
      for (std::size_t i = 0; i < items.size(); ++i) {
        const std::size_t first = errors.size();
        validate(type.list_element, items[i], errors);
        if (errors.size() > first) detail::prefix_errors(errors, first, PathElement::index(static_cast<int>(i)));
      }
      return;
    }
    // Without its path element nothing deeper can be reported: smd stops at the first item that has none.
    std::vector<std::optional<PathElement>> elements;
    elements.reserve(items.size());
    std::string element_error;
    for (const json::value& item : items) {
      std::optional<PathElement> element = detail::list_item_element(type, item, element_error);
      if (!element) break;
      elements.push_back(std::move(element));
    }
    const std::vector<std::size_t> first_occurrence = detail::first_occurrences(elements);
    for (std::size_t i = 0; i < elements.size(); ++i) {
      if (first_occurrence[i] != i && !allow_duplicates_)
        detail::add_error(errors, "duplicate entries for key " + elements[i]->to_string());
      const std::size_t first = errors.size();
      validate(type.list_element, items[i], errors);
      detail::prefix_errors(errors, first, *elements[i]);
    }
    if (elements.size() < items.size())
      detail::add_error(errors, "element " + std::to_string(elements.size()) + ": " + element_error);
  }

  void validate_map(const TypeDef& type, const json::value& value, ValidationErrors& errors) const {
    if (value.is_null()) return;
    if (!value.is_object()) return detail::add_error(errors, detail::expected_map_message(value));
    for (const auto& member : value.get_object()) {
      const TypeRef member_type = detail::member_type(type, member.key());
      const std::size_t first = errors.size();
      if (member_type == nullptr) {
        detail::add_error(errors, "field not declared in schema");
      } else {
        validate(member_type, member.value(), errors);
      }
      if (errors.size() > first) detail::prefix_errors(errors, first, PathElement::field(std::string(member.key())));
      if (member_type == nullptr) return;  // smd stops at the first undeclared field
    }
  }

  bool allow_duplicates_;
};

}  // namespace

TypedValue as_typed(json::value&& value, const Schema& schema, TypeRef type, bool allow_duplicates) {
  ValidationErrors errors;
  Validator(allow_duplicates).validate(type, value, errors);
  detail::throw_if_any(errors);
  return TypedValue{std::move(value), &schema, type};
}

}  // namespace kapi::structured_merge
