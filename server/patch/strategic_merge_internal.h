#pragma once
// The parts of strategic_merge_patch shared between its map half (strategic_merge_patch.cc) and its list half
// (strategic_merge_list.cc). Names follow strategicpatch/patch.go so the two read side by side.
#include "server/patch/patch_schema.h"

#include <boost/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace kapi::patch::detail {

// The key of strategic merge patch directives ({"$patch": "delete"}, "replace", "merge").
inline constexpr std::string_view kDirective = "$patch";

enum class ElementKind { kMap, kScalar };

// mergeMap: merges `patch` into `original` under `schema` (nullptr: free-form).
boost::json::object merge_map(boost::json::object original, boost::json::object patch, const PatchSchema* schema);

// mergeSliceHandler. When `server_order` is given it receives the list Go's caller still sees as the original
// after the merge: the merge-key-only copies of the original's backing array, which deletions shift and appends
// overwrite in place (Go slice aliasing that $setElementOrder ordering depends on).
boost::json::array merge_slice_handler(boost::json::array original, boost::json::array patch,
                                       const PatchSchema* elements, std::string_view strategy,
                                       const std::string& merge_key, bool is_delete_list,
                                       boost::json::array* server_order);

// The kind shared by every element of `a` and `b` (sliceElementType).
ElementKind slice_element_kind(const boost::json::array& a, const boost::json::array& b);

// Splits `merged` into the elements found in `by` (by merge key, or by value when `merge_key` is empty) and the rest.
std::pair<boost::json::array, boost::json::array> partition_by_presence(boost::json::array merged,
                                                                        const boost::json::array& by,
                                                                        const std::string& merge_key);

// normalizeElementOrder: `patch_items` in `patch_order`, `server_only` in `server_order`, then interleaved.
boost::json::array normalize_element_order(boost::json::array patch_items, boost::json::array server_only,
                                           const boost::json::array& patch_order,
                                           const boost::json::array& server_order, const std::string& merge_key,
                                           ElementKind kind);

// validatePatchWithSetOrderList.
void validate_patch_with_set_order_list(const boost::json::array& patch_list, const boost::json::array& set_order,
                                        const std::string& merge_key);

// A copy of `item` that keeps only its merge key, which is all an order list is read for (items without one are
// kept whole, for the error that names them).
boost::json::value merge_key_only(const boost::json::value& item, const std::string& merge_key);
boost::json::array merge_keys_in_order(const boost::json::array& items, const std::string& merge_key);

// removeDirectives: nullopt when `v` is itself an object carrying $patch.
std::optional<boost::json::value> remove_directives(boost::json::value v);

// extractRetainKeysPatchStrategy: whether retainKeys is among the strategies, and the other one.
std::pair<bool, std::string> split_patch_strategy(std::string_view strategy);

// strategicpatch's and mergepatch's error texts.
std::string err_no_merge_key(const boost::json::value& map, std::string_view key);
std::string err_bad_arg_type(std::string_view expected, const boost::json::value& actual);
std::string err_bad_patch_type(const boost::json::value& directive, const boost::json::value& map);

inline constexpr std::string_view kMapType = "map[string]interface {}";
inline constexpr std::string_view kSliceType = "[]interface {}";

}  // namespace kapi::patch::detail
