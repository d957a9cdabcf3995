// The list half of strategic merge patch: strategicpatch's mergeSlice and the ordering it enforces afterwards.
#include "server/patch/go_json.h"
#include "server/patch/patch_error.h"
#include "server/patch/strategic_merge_internal.h"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

namespace kapi::patch::detail {
namespace {

using boost::json::array;
using boost::json::object;
using boost::json::value;

bool has_directive(const value& item) { return item.is_object() && item.get_object().contains(kDirective); }

bool is_delete_directive(const value& item) {
  const value* directive = item.is_object() ? item.get_object().if_contains(kDirective) : nullptr;
  return directive && directive->is_string() && directive->get_string() == "delete";
}

// What index() compares: an object's merge-key value (null when it has none), or a primitive itself.
const value& identity(const value& item, const std::string& merge_key, ElementKind kind) {
  static const value kNull;
  if (kind != ElementKind::kMap) return item;
  const value* key = item.is_object() ? item.get_object().if_contains(merge_key) : nullptr;
  return key ? *key : kNull;
}

std::size_t index_of(const array& order, const value& item, const std::string& merge_key, ElementKind kind) {
  const value& wanted = identity(item, merge_key, kind);
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (go_equal(identity(order[i], merge_key, kind), wanted)) return i;
  }
  return std::numeric_limits<std::size_t>::max();
}

// findMapInSliceBasedOnKeyValue.
std::optional<std::size_t> find_map(const array& items, const std::string& merge_key, const value& key_value) {
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (!items[i].is_object()) throw_unconverted("value for key " + std::to_string(i) + " is not a map");
    const value* candidate = items[i].get_object().if_contains(merge_key);
    if (candidate && go_equal(*candidate, key_value)) return i;
  }
  return std::nullopt;
}

const value& merge_key_value(const value& item, const std::string& merge_key) {
  const value* key = item.is_object() ? item.get_object().if_contains(merge_key) : nullptr;
  if (!key) throw_unconverted(err_no_merge_key(item, merge_key));
  return *key;
}

void validate_merge_keys(const std::string& merge_key, const array& items) {
  for (const value& item : items) {
    if (!item.is_object()) throw_unconverted(err_bad_arg_type(kMapType, item));
    merge_key_value(item, merge_key);
  }
}

// normalizeSliceOrder: `to_sort` in the order of `order`; objects marked "$patch: delete" go last.
array normalize_slice_order(array to_sort, const array& order, const std::string& merge_key, ElementKind kind) {
  array deleted;
  if (kind == ElementKind::kMap) {
    validate_merge_keys(merge_key, to_sort);
    validate_merge_keys(merge_key, order);
    array kept;
    for (value& item : to_sort) (is_delete_directive(item) ? deleted : kept).push_back(std::move(item));
    to_sort = std::move(kept);
  }
  std::vector<std::pair<std::size_t, value>> ranked;
  ranked.reserve(to_sort.size());
  for (value& item : to_sort) {
    std::size_t rank = index_of(order, item, merge_key, kind);
    ranked.emplace_back(rank, std::move(item));
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& l, const auto& r) { return l.first < r.first; });
  array sorted;
  sorted.reserve(ranked.size() + deleted.size());
  for (auto& entry : ranked) sorted.push_back(std::move(entry.second));
  for (value& item : deleted) sorted.push_back(std::move(item));
  return sorted;
}

// mergeSortedSlice: interleaves two sorted lists. A server-only item goes first only when `server_order` places it
// before the next patch item; patch items the server never had therefore lead.
array merge_sorted_slice(array left, array right, const array& server_order, const std::string& merge_key,
                         ElementKind kind) {
  constexpr std::size_t kAbsent = std::numeric_limits<std::size_t>::max();
  array out;
  out.reserve(left.size() + right.size());
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < left.size() || j < right.size()) {
    if (i >= left.size()) {
      out.push_back(std::move(right[j++]));
    } else if (j >= right.size()) {
      out.push_back(std::move(left[i++]));
    } else {
      std::size_t li = index_of(server_order, left[i], merge_key, kind);
      std::size_t ri = index_of(server_order, right[j], merge_key, kind);
      if (li != kAbsent && ri != kAbsent && li < ri) {
        out.push_back(std::move(left[i++]));
      } else {
        out.push_back(std::move(right[j++]));
      }
    }
  }
  return out;
}

bool contains_value(const array& items, const value& v) {
  return std::any_of(items.begin(), items.end(), [&](const value& item) { return go_equal(item, v); });
}

// mergeSlice for primitives: a set union (or, for a $deleteFromPrimitiveList, a set difference).
array merge_primitives(array original, array patch, bool is_delete_list, array* server_order) {
  if (server_order) *server_order = original;
  if (is_delete_list) {
    array kept;
    for (value& item : original) {
      if (!contains_value(patch, item)) kept.push_back(std::move(item));
    }
    return kept;
  }
  array merged;
  for (const array* source : {&original, &patch}) {
    for (const value& item : *source) {
      if (!contains_value(merged, item)) merged.push_back(item);
    }
  }
  auto [patch_items, server_only] = partition_by_presence(std::move(merged), patch, "");
  return normalize_element_order(std::move(patch_items), std::move(server_only), patch, original, "",
                                 ElementKind::kScalar);
}

// mergeSlice for objects, which Go runs over a slice sharing the original's backing array: `aliased` mirrors that
// array (as merge-key-only copies) so the caller can order by what Go's caller sees.
array merge_objects(array original, array patch, const PatchSchema* elements, const std::string& merge_key,
                    array* server_order) {
  if (merge_key.empty()) {
    throw_unconverted("cannot merge lists without merge key for " +
                      std::string(elements ? elements->name() : std::string_view()));
  }
  const std::size_t capacity = original.size();
  array aliased = merge_keys_in_order(original, merge_key);
  std::size_t live = capacity;

  // mergeSliceWithSpecialElements.
  array plain;
  bool replace = false;
  for (value& item : patch) {
    const value* directive = item.get_object().if_contains(kDirective);
    if (!directive) {
      plain.push_back(std::move(item));
    } else if (directive->is_string() && directive->get_string() == "delete") {
      const value& key = merge_key_value(item, merge_key);
      while (std::optional<std::size_t> at = find_map(original, merge_key, key)) {
        original.erase(original.begin() + static_cast<std::ptrdiff_t>(*at));
        for (std::size_t k = *at; k + 1 < live; ++k) aliased[k] = aliased[k + 1];  // append(s[:i], s[i+1:]...)
        --live;
      }
    } else if (directive->is_string() && directive->get_string() == "replace") {
      replace = true;  // keep going: the other directives still apply
    } else if (directive->is_string() && directive->get_string() == "merge") {
      throw_unconverted("merging lists cannot yet be specified in the patch");
    } else {
      throw_unconverted(err_bad_patch_type(*directive, item));
    }
  }
  if (replace) {
    original = std::move(plain);
    plain = array();
  }
  array order_of_original = merge_keys_in_order(original, merge_key);
  array order_of_patch = merge_keys_in_order(plain, merge_key);

  // mergeSliceWithoutSpecialElements: merge into the element with the same key, or append.
  bool detached = replace;
  for (value& item : plain) {
    const value& key = merge_key_value(item, merge_key);
    if (std::optional<std::size_t> at = find_map(original, merge_key, key)) {
      value& target = original[*at];
      target = merge_map(std::move(target.get_object()), std::move(item.get_object()), elements);
      continue;
    }
    original.push_back(std::move(item));
    if (detached) continue;
    if (live < capacity) {
      aliased[live++] = merge_key_only(original.back(), merge_key);
    } else {
      detached = true;  // append outgrew the backing array; Go's caller no longer sees the appends
    }
  }
  if (server_order) *server_order = std::move(aliased);
  auto [patch_items, server_only] = partition_by_presence(std::move(original), order_of_patch, merge_key);
  return normalize_element_order(std::move(patch_items), std::move(server_only), order_of_patch, order_of_original,
                                 merge_key, ElementKind::kMap);
}

}  // namespace

array merge_slice_handler(array original, array patch, const PatchSchema* elements, std::string_view strategy,
                          const std::string& merge_key, bool is_delete_list, array* server_order) {
  if (strategy != "merge" && !is_delete_list) {
    if (server_order) *server_order = merge_keys_in_order(original, merge_key);
    return patch;
  }
  if (original.empty() && patch.empty()) {
    if (server_order) *server_order = array();
    return original;
  }
  if (slice_element_kind(original, patch) != ElementKind::kMap) {
    return merge_primitives(std::move(original), std::move(patch), is_delete_list, server_order);
  }
  return merge_objects(std::move(original), std::move(patch), elements, merge_key, server_order);
}

ElementKind slice_element_kind(const array& a, const array& b) {
  std::optional<GoType> first;
  for (const array* list : {&a, &b}) {
    for (const value& item : *list) {
      GoType type = go_type(item);
      if (!first) {
        first = type;
        if (type == GoType::kSlice) throw_unprocessable("lists of lists are not supported");
      } else if (*first != type) {
        throw_unconverted("list element types are not identical: " + go_value(array{a, b}));
      }
    }
  }
  if (!first) throw_unconverted("no elements in any of the given slices");
  return *first == GoType::kMap ? ElementKind::kMap : ElementKind::kScalar;
}

std::pair<array, array> partition_by_presence(array merged, const array& by, const std::string& merge_key) {
  array present;
  array absent;
  for (value& item : merged) {
    bool found = false;
    if (merge_key.empty()) {
      found = contains_value(by, item);
    } else {
      if (!item.is_object()) throw_unconverted(err_bad_arg_type(kMapType, item));
      found = find_map(by, merge_key, merge_key_value(item, merge_key)).has_value();
    }
    (found ? present : absent).push_back(std::move(item));
  }
  return {std::move(present), std::move(absent)};
}

array normalize_element_order(array patch_items, array server_only, const array& patch_order,
                              const array& server_order, const std::string& merge_key, ElementKind kind) {
  patch_items = normalize_slice_order(std::move(patch_items), patch_order, merge_key, kind);
  server_only = normalize_slice_order(std::move(server_only), server_order, merge_key, kind);
  return merge_sorted_slice(std::move(server_only), std::move(patch_items), server_order, merge_key, kind);
}

void validate_patch_with_set_order_list(const array& patch_list, const array& set_order,
                                        const std::string& merge_key) {
  if (patch_list.empty() || set_order.empty()) return;
  std::vector<const value*> candidates;
  for (const value& item : patch_list) {
    if (!merge_key.empty()) {
      if (!item.is_object()) throw_unconverted(err_bad_arg_type(kMapType, item));
      if (is_delete_directive(item)) continue;
    }
    candidates.push_back(&item);
  }
  auto same = [&](const value& left, const value& right) {
    if (merge_key.empty()) return go_equal(left, right);
    for (const value* side : {&left, &right}) {
      if (!side->is_object()) throw_unconverted(err_bad_arg_type(kMapType, *side));
    }
    return go_equal(merge_key_value(left, merge_key), merge_key_value(right, merge_key));
  };
  std::size_t patch_index = 0;
  std::size_t order_index = 0;
  while (patch_index < candidates.size() && order_index < set_order.size()) {
    if (has_directive(*candidates[patch_index])) {
      ++patch_index;
      continue;
    }
    if (same(*candidates[patch_index], set_order[order_index])) ++patch_index;
    ++order_index;
  }
  if (patch_index < candidates.size() && order_index >= set_order.size()) {
    throw_unconverted("the order in patch list:\n" + go_value(patch_list) + "\n doesn't match $setElementOrder list:\n" +
                      go_value(set_order));
  }
}

value merge_key_only(const value& item, const std::string& merge_key) {
  if (merge_key.empty() || !item.is_object()) return item;
  const value* key = item.get_object().if_contains(merge_key);
  if (!key) return item;
  object key_only;
  key_only[merge_key] = *key;
  return key_only;
}

array merge_keys_in_order(const array& items, const std::string& merge_key) {
  array keys;
  keys.reserve(items.size());
  for (const value& item : items) keys.push_back(merge_key_only(item, merge_key));
  return keys;
}

}  // namespace kapi::patch::detail
