// TypedValue.Merge (smd's typed/merge.go): a partially specified object merged into another, the rhs's leaves
// winning.
#include "server/structured_merge/typed_internal.h"

#include <boost/json.hpp>

#include <map>
#include <optional>
#include <set>
#include <vector>

namespace kapi::structured_merge {
namespace detail {
namespace {

namespace json = boost::json;

class MergeWalker {
 public:
  explicit MergeWalker(ValidationErrors& errors) : errors_(errors) {}

  // mergingWalker.merge: the merged value, nullopt for none (smd's nil out). The caller prefixes the errors.
  std::optional<json::value> merge(TypeRef type, const json::value* lhs, const json::value* rhs) {
    if (lhs == nullptr && rhs == nullptr) {
      add_error(errors_, "at least one of lhs and rhs must be provided");
      return std::nullopt;
    }
    Operands operands{type, lhs, rhs};
    const unsigned lhs_atoms = deduce_atoms(type, lhs);
    const unsigned rhs_atoms = deduce_atoms(type, rhs);
    // An absent side takes the other's form; sides of different forms are each walked as what they are, and the
    // rhs's walk makes the result.
    if (rhs == nullptr) {
      handle(lhs_atoms, operands);
    } else if (lhs == nullptr || lhs_atoms == rhs_atoms) {
      handle(rhs_atoms, operands);
    } else {
      Operands lhs_walk = operands;
      handle(lhs_atoms, lhs_walk);
      handle(rhs_atoms, operands);
    }
    return std::move(operands.out);
  }

 private:
  struct Operands {
    TypeRef type;
    const json::value* lhs;
    const json::value* rhs;
    bool in_leaf = false;  // inside an atomic map or list, a "big leaf"
    std::optional<json::value> out;
  };

  void handle(unsigned atoms, Operands& operands) {
    switch (handler_for(atoms)) {
      case Handler::kInvalid: add_error(errors_, invalid_atom_message(operands.type)); return;
      case Handler::kScalar: return merge_scalar(operands);
      case Handler::kList: return merge_list(operands);
      case Handler::kMap: return merge_map(operands);
    }
  }

  // ruleKeepRHS: a leaf is taken whole, from the rhs when it has one.
  static void leaf(Operands& operands) {
    if (operands.in_leaf) return;
    operands.in_leaf = true;
    if (operands.rhs != nullptr) {
      operands.out = *operands.rhs;
    } else if (operands.lhs != nullptr) {
      operands.out = *operands.lhs;
    }
  }

  void merge_scalar(Operands& operands) {
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

  void merge_list(Operands& operands) {
    const json::array* lhs = as_list(operands.lhs);
    const json::array* rhs = as_list(operands.rhs);
    // Both empty or null: a leaf, so that empty and null stay distinct.
    const bool empty = (lhs == nullptr || lhs->empty()) && (rhs == nullptr || rhs->empty());
    if (operands.type->list_relationship == ElementRelationship::kAtomic || empty) return leaf(operands);
    merge_list_items(*operands.type, lhs, rhs, operands.out);
  }

  struct IndexedItems {
    std::vector<PathElement> elements;                    // in list order, duplicates included
    std::map<PathElement, const json::value*> observed;  // a duplicated item maps to null
  };

  // indexListPathElements: the rhs may not repeat an item, the lhs (the live object) may.
  IndexedItems index_items(const TypeDef& type, const json::array* items, bool allow_duplicates) {
    IndexedItems indexed;
    if (items == nullptr) return indexed;
    indexed.elements.reserve(items->size());
    for (std::size_t i = 0; i < items->size(); ++i) {
      const json::value& item = (*items)[i];
      std::string error;
      std::optional<PathElement> element = list_item_element(type, item, error);
      if (!element) {
        add_error(errors_, "element " + std::to_string(i) + ": " + error);
        continue;
      }
      auto [position, inserted] = indexed.observed.try_emplace(*element, &item);
      if (!inserted) {
        if (!allow_duplicates) {
          add_error(errors_, "duplicate entries for key " + element->to_string());
          continue;
        }
        position->second = &null_value();  // duplicates are replaced by the rhs's item, not merged with it
      }
      indexed.elements.push_back(std::move(*element));
    }
    return indexed;
  }

  static const json::value* find(const IndexedItems& items, const PathElement& element) {
    auto found = items.observed.find(element);
    return found == items.observed.end() ? nullptr : found->second;
  }

  // The rhs's items in its order; the lhs's other items stay where they were relative to the items both have.
  void merge_list_items(const TypeDef& type, const json::array* lhs, const json::array* rhs,
                        std::optional<json::value>& out) {
    const std::size_t first_error = errors_.size();
    const IndexedItems rhs_items = index_items(type, rhs, false);
    const IndexedItems lhs_items = index_items(type, lhs, true);
    if (errors_.size() != first_error) return;

    const std::vector<PathElement>& lhs_elements = lhs_items.elements;
    const std::vector<PathElement>& rhs_elements = rhs_items.elements;
    std::vector<const PathElement*> shared;  // the items both sides have, in the rhs's order
    for (const PathElement& element : rhs_elements)
      if (lhs_items.observed.count(element) != 0) shared.push_back(&element);
    std::size_t next_shared_index = 0;
    auto advance_shared = [&]() -> const PathElement* {
      return next_shared_index < shared.size() ? shared[next_shared_index++] : nullptr;
    };
    const PathElement* next_shared = advance_shared();

    json::array merged;
    merged.reserve(std::max(lhs_elements.size(), rhs_elements.size()));
    std::set<PathElement> merged_rhs;
    const std::size_t lhs_count = lhs_elements.size(), rhs_count = rhs_elements.size();
    for (std::size_t l = 0, r = 0; l < lhs_count || r < rhs_count;) {
      if (l < lhs_count && r < rhs_count) {
        const PathElement& element = lhs_elements[l];
        if (element == rhs_elements[r]) {
          merged_rhs.insert(element);
          merge_item(type, find(lhs_items, element), find(rhs_items, element), merged);
          ++l;
          ++r;
          next_shared = advance_shared();
          continue;
        }
        if (rhs_items.observed.count(element) != 0 && next_shared != nullptr && !(*next_shared == element)) {
          ++l;  // a shared item, but not the one due now
          continue;
        }
      }
      if (l < lhs_count) {
        const PathElement& element = lhs_elements[l];
        if (rhs_items.observed.count(element) == 0) {
          merge_item(type, &(*lhs)[l], nullptr, merged);
          ++l;
          continue;
        }
        if (merged_rhs.count(element) != 0) ++l;  // merged with the rhs's already
      }
      if (r < rhs_count) {
        const PathElement& element = rhs_elements[r];
        merged_rhs.insert(element);
        merge_item(type, find(lhs_items, element), find(rhs_items, element), merged);
        ++r;
        if (next_shared != nullptr && *next_shared == element) next_shared = advance_shared();
      }
    }
    if (!merged.empty()) out = std::move(merged);
  }

  void merge_item(const TypeDef& list, const json::value* lhs, const json::value* rhs, json::array& merged) {
    // smd drops the errors of merging list items (its mergeListItem results are shadowed).
    ValidationErrors dropped;
    MergeWalker item_walker(dropped);
    if (auto out = item_walker.merge(list.list_element, lhs, rhs)) merged.push_back(std::move(*out));
  }

  void merge_map(Operands& operands) {
    const json::object* lhs = as_map(operands.lhs);
    const json::object* rhs = as_map(operands.rhs);
    const bool empty = (lhs == nullptr || lhs->empty()) && (rhs == nullptr || rhs->empty());
    if (operands.type->map_relationship == ElementRelationship::kAtomic || empty) return leaf(operands);
    const TypeDef& type = *operands.type;
    json::object merged;
    if (lhs != nullptr) {
      merged.reserve(lhs->size() + (rhs != nullptr ? rhs->size() : 0));
      for (const auto& member : *lhs) {
        merge_member(type, member.key(), &member.value(), rhs != nullptr ? rhs->if_contains(member.key()) : nullptr,
                     merged);
      }
    }
    if (rhs != nullptr) {
      for (const auto& member : *rhs)
        if (lhs == nullptr || !lhs->contains(member.key())) merge_member(type, member.key(), nullptr, &member.value(), merged);
    }
    if (!merged.empty()) operands.out = std::move(merged);
  }

  void merge_member(const TypeDef& type, std::string_view name, const json::value* lhs, const json::value* rhs,
                    json::object& merged) {
    const std::size_t first = errors_.size();
    std::optional<json::value> out = merge(member_type(type, name), lhs, rhs);
    if (errors_.size() > first) prefix_errors(errors_, first, PathElement::field(std::string(name)));
    if (out) merged.emplace(name, std::move(*out));
  }

  ValidationErrors& errors_;
};

}  // namespace
}  // namespace detail

TypedValue merge(const TypedValue& lhs, const TypedValue& rhs) {
  detail::ValidationErrors errors;
  if (lhs.schema != rhs.schema) detail::add_error(errors, "expected objects with types from the same schema");
  if (errors.empty() && lhs.type != rhs.type) {
    detail::add_error(errors, "expected objects of the same type, but got " +
                                  (lhs.type ? lhs.type->name : std::string("<nil>")) + " and " +
                                  (rhs.type ? rhs.type->name : std::string("<nil>")));
  }
  detail::throw_if_any(errors);
  std::optional<boost::json::value> out = detail::MergeWalker(errors).merge(lhs.type, &lhs.value, &rhs.value);
  detail::throw_if_any(errors);
  return TypedValue{out ? std::move(*out) : boost::json::value(), lhs.schema, lhs.type};
}

}  // namespace kapi::structured_merge
