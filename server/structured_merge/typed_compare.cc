// TypedValue.Compare (smd's typed/compare.go): the fields removed, modified and added from one value to another.
#include "server/structured_merge/typed_internal.h"

#include <boost/json.hpp>

#include <map>
#include <vector>

namespace kapi::structured_merge {
namespace detail {
namespace {

namespace json = boost::json;

class CompareWalker {
 public:
  CompareWalker(Comparison& comparison, ValidationErrors& errors) : comparison_(comparison), errors_(errors) {}

  // compareWalker.compare: the caller prefixes the errors it adds.
  void compare(TypeRef type, const json::value* lhs, const json::value* rhs) {
    if (lhs == nullptr && rhs == nullptr) {
      add_error(errors_, "at least one of lhs and rhs must be provided");
      return;
    }
    Operands operands{type, lhs, rhs};
    const unsigned lhs_atoms = deduce_atoms(type, lhs);
    const unsigned rhs_atoms = deduce_atoms(type, rhs);
    // An absent side takes the other's form; sides of different forms are each walked as what they are.
    if (rhs == nullptr) {
      handle(lhs_atoms, operands);
    } else if (lhs == nullptr || lhs_atoms == rhs_atoms) {
      handle(rhs_atoms, operands);
    } else {
      Operands lhs_walk = operands;
      handle(lhs_atoms, lhs_walk);
      handle(rhs_atoms, operands);
    }
    if (!operands.in_leaf) {
      if (lhs == nullptr) {
        comparison_.added.insert(path_);
      } else if (rhs == nullptr) {
        comparison_.removed.insert(path_);
      }
    }
  }

 private:
  struct Operands {
    TypeRef type;
    const json::value* lhs;
    const json::value* rhs;
    bool in_leaf = false;  // inside an atomic map or list, a "big leaf"
  };

  void handle(unsigned atoms, Operands& operands) {
    switch (handler_for(atoms)) {
      case Handler::kInvalid: add_error(errors_, invalid_atom_message(operands.type)); return;
      case Handler::kScalar: return compare_scalar(operands);
      case Handler::kList: return compare_list(operands);
      case Handler::kMap: return compare_map(operands);
    }
  }

  void leaf(Operands& operands) {
    if (operands.in_leaf) return;
    operands.in_leaf = true;
    if (operands.lhs == nullptr) {
      comparison_.added.insert(path_);
    } else if (operands.rhs == nullptr) {
      comparison_.removed.insert(path_);
    } else if (!values_equal(*operands.rhs, *operands.lhs)) {
      comparison_.modified.insert(path_);
    }
  }

  void compare_scalar(Operands& operands) {
    // One side of the expected kind is enough.
    auto lhs_error = scalar_error(operands.type->scalar_kind, operands.lhs, "lhs: ");
    auto rhs_error = scalar_error(operands.type->scalar_kind, operands.rhs, "rhs: ");
    if (lhs_error && rhs_error) {
      add_error(errors_, std::move(*lhs_error));
      add_error(errors_, std::move(*rhs_error));
      return;
    }
    leaf(operands);
  }

  static const json::array* as_list(const json::value* value) {
    return value != nullptr && value->is_array() ? &value->get_array() : nullptr;
  }
  static const json::object* as_map(const json::value* value) {
    return value != nullptr && value->is_object() ? &value->get_object() : nullptr;
  }

  void compare_list(Operands& operands) {
    const json::array* lhs = as_list(operands.lhs);
    const json::array* rhs = as_list(operands.rhs);
    // Both empty or null: a leaf, so that empty and null stay distinct.
    const bool empty = (lhs == nullptr || lhs->empty()) && (rhs == nullptr || rhs->empty());
    if (operands.type->list_relationship == ElementRelationship::kAtomic || empty) return leaf(operands);
    compare_list_items(*operands.type, lhs, rhs);
  }

  struct ItemOccurrences {
    PathElement element;
    std::vector<const json::value*> lhs;
    std::vector<const json::value*> rhs;
  };

  void index_items(const TypeDef& type, const json::array* items, bool lhs, std::vector<ItemOccurrences>& found,
                   std::map<PathElement, std::size_t>& by_element) {
    if (items == nullptr) return;
    for (std::size_t i = 0; i < items->size(); ++i) {
      const json::value& item = (*items)[i];
      std::string error;
      std::optional<PathElement> element = list_item_element(type, item, error);
      if (!element) {
        add_error(errors_, "element " + std::to_string(i) + ": " + error);
        continue;
      }
      auto [position, inserted] = by_element.try_emplace(*element, found.size());
      if (inserted) found.push_back({std::move(*element), {}, {}});
      ItemOccurrences& occurrences = found[position->second];
      (lhs ? occurrences.lhs : occurrences.rhs).push_back(&item);
    }
  }

  void compare_list_items(const TypeDef& type, const json::array* lhs, const json::array* rhs) {
    // Every item once, lhs's first; an item there more than once on a side is compared as a whole.
    std::vector<ItemOccurrences> items;
    std::map<PathElement, std::size_t> by_element;
    index_items(type, lhs, true, items, by_element);
    index_items(type, rhs, false, items, by_element);
    for (const ItemOccurrences& item : items) {
      const std::size_t lhs_count = item.lhs.size(), rhs_count = item.rhs.size();
      if (lhs_count <= 1 && rhs_count <= 1) {
        compare_item(type, item.element, lhs_count ? item.lhs[0] : nullptr, rhs_count ? item.rhs[0] : nullptr);
      } else if (lhs_count >= 2 && rhs_count >= 2) {
        const bool same = lhs_count == rhs_count &&
                          std::equal(item.lhs.begin(), item.lhs.end(), item.rhs.begin(),
                                     [](const json::value* l, const json::value* r) { return values_equal(*l, *r); });
        if (!same) insert_item(comparison_.modified, item.element);
      } else if (lhs_count >= 2) {
        // No longer duplicated: the item that stays is new, the duplicates are gone.
        if (rhs_count != 0) compare_item(type, item.element, nullptr, item.rhs[0]);
        insert_item(comparison_.removed, item.element);
      } else {
        if (lhs_count != 0) compare_item(type, item.element, item.lhs[0], nullptr);
        insert_item(comparison_.added, item.element);
      }
    }
  }

  void insert_item(Set& set, const PathElement& element) {
    PathScope scope(path_, element);
    set.insert(path_);
  }

  void compare_item(const TypeDef& list, const PathElement& element, const json::value* lhs, const json::value* rhs) {
    PathScope scope(path_, element);
    const std::size_t first = errors_.size();
    compare(list.list_element, lhs, rhs);
    prefix_errors(errors_, first, path_.back());
  }

  void compare_map(Operands& operands) {
    const json::object* lhs = as_map(operands.lhs);
    const json::object* rhs = as_map(operands.rhs);
    const bool empty = (lhs == nullptr || lhs->empty()) && (rhs == nullptr || rhs->empty());
    if (operands.type->map_relationship == ElementRelationship::kAtomic || empty) return leaf(operands);
    const TypeDef& type = *operands.type;
    if (lhs != nullptr) {
      for (const auto& member : *lhs)
        compare_member(type, member.key(), &member.value(), rhs != nullptr ? rhs->if_contains(member.key()) : nullptr);
    }
    if (rhs != nullptr) {
      for (const auto& member : *rhs)
        if (lhs == nullptr || !lhs->contains(member.key())) compare_member(type, member.key(), nullptr, &member.value());
    }
  }

  void compare_member(const TypeDef& type, std::string_view name, const json::value* lhs, const json::value* rhs) {
    PathScope scope(path_, PathElement::field(std::string(name)));
    const std::size_t first = errors_.size();
    compare(member_type(type, name), lhs, rhs);
    prefix_errors(errors_, first, path_.back());
  }

  Comparison& comparison_;
  ValidationErrors& errors_;
  Path path_;
};

}  // namespace
}  // namespace detail

Comparison compare(const TypedValue& lhs, const TypedValue& rhs) {
  detail::ValidationErrors errors;
  if (lhs.schema != rhs.schema) detail::add_error(errors, "expected objects with types from the same schema");
  if (errors.empty() && lhs.type != rhs.type) {
    detail::add_error(errors, "expected objects of the same type, but got " +
                                  (lhs.type ? lhs.type->name : std::string("<nil>")) + " and " +
                                  (rhs.type ? rhs.type->name : std::string("<nil>")));
  }
  detail::throw_if_any(errors);
  Comparison comparison;
  detail::CompareWalker(comparison, errors).compare(lhs.type, &lhs.value, &rhs.value);
  detail::throw_if_any(errors);
  return comparison;
}

}  // namespace kapi::structured_merge
