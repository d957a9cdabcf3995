#include "server/patch/strategic_merge_patch.h"

#include "base/go_json_errors.h"
#include "server/patch/go_json.h"
#include "server/patch/patch_error.h"
#include "server/patch/strategic_merge_internal.h"

#include <string>
#include <vector>

namespace kapi::patch {
namespace detail {
namespace {

using boost::json::array;
using boost::json::object;
using boost::json::value;

constexpr std::string_view kRetainKeys = "$retainKeys";
constexpr std::string_view kDeleteFromPrimitiveList = "$deleteFromPrimitiveList";
constexpr std::string_view kSetElementOrder = "$setElementOrder";

bool is_string(const value& v, std::string_view s) { return v.is_string() && v.get_string() == s; }

// extractKey: "<prefix>/<field>" -> field.
std::string extract_key(std::string_view key, std::string_view prefix) {
  std::size_t slash = key.find('/');
  if (slash == std::string_view::npos || key.substr(0, slash) != prefix) {
    throw_bad_request(prefix == kDeleteFromPrimitiveList ? "invalid patch format of primitive list"
                                                         : "invalid patch format of setElementOrder list");
  }
  return std::string(key.substr(slash + 1));
}

// discardNullValuesFromPatch: what a patch adds outright carries no nulls (nulls directly inside lists stay).
void discard_null_values(value& v) {
  if (v.is_object()) {
    object& members = v.get_object();
    for (auto it = members.begin(); it != members.end();) {
      if (it->value().is_null()) {
        it = members.erase(it);
      } else {
        discard_null_values(it->value());
        ++it;
      }
    }
  } else if (v.is_array()) {
    for (value& item : v.get_array()) discard_null_values(item);
  }
}

// A patch value taken as it is (new field, or one whose type changed): nulls and directives stripped.
void assign_patch_value(object& original, const std::string& key, value patch_value) {
  discard_null_values(patch_value);
  std::optional<value> kept = remove_directives(std::move(patch_value));
  if (kept) {
    original[key] = std::move(*kept);
  } else {
    original.erase(key);
  }
}

// applyRetainKeysDirective: clear what the list does not name; the patch itself may only set named fields.
void apply_retain_keys(object& original, object& patch) {
  value* directive = patch.if_contains(kRetainKeys);
  if (!directive) return;
  value retain = std::move(*directive);
  patch.erase(kRetainKeys);
  const std::string bad_format = "invalid patch format of retainKeys";
  if (!retain.is_array()) throw_bad_request(bad_format);
  auto retained = [&](std::string_view key) {
    for (const value& name : retain.get_array()) {
      if (is_string(name, key)) return true;
    }
    return false;
  };
  for (const auto& member : patch) {
    std::string_view key = member.key();
    if (member.value().is_null() || key.starts_with(kDeleteFromPrimitiveList) || key.starts_with(kSetElementOrder)) {
      continue;
    }
    if (!retained(key)) throw_bad_request(bad_format);
  }
  for (auto it = original.begin(); it != original.end();) {
    if (retained(it->key())) {
      ++it;
    } else {
      it = original.erase(it);
    }
  }
}

// mergePatchIntoOriginal: each $setElementOrder/<field> with its list, merged and put in the order the client
// asked for; both leave the patch so the main merge does not see them again.
void merge_set_element_order(object& original, object& patch, const PatchSchema* schema) {
  std::vector<std::string> directives;
  for (const auto& member : patch) {
    if (member.key().starts_with(kSetElementOrder)) directives.emplace_back(member.key());
  }
  for (const std::string& directive : directives) {
    value order_value = std::move(patch.at(directive));
    patch.erase(directive);
    if (!order_value.is_array()) throw_unconverted(err_bad_arg_type(kSliceType, order_value));
    const array& set_order = order_value.get_array();
    std::string field = extract_key(directive, kSetElementOrder);

    value* original_list = original.if_contains(field);
    value* patch_list = patch.if_contains(field);
    if (original_list && !original_list->is_array()) throw_unconverted(err_bad_arg_type(kSliceType, *original_list));
    if (patch_list && !patch_list->is_array()) throw_unconverted(err_bad_arg_type(kSliceType, *patch_list));
    PatchMeta meta;
    const PatchSchema* list_schema = schema ? schema->field(field, &meta) : nullptr;
    std::string strategy = split_patch_strategy(meta.strategy).second;
    const array none;
    validate_patch_with_set_order_list(patch_list ? patch_list->get_array() : none, set_order, meta.merge_key);
    if (!original_list && !patch_list) continue;

    ElementKind kind = slice_element_kind(original_list ? original_list->get_array() : none,
                                          patch_list ? patch_list->get_array() : none);
    array merged;
    array server_order;
    if (original_list && patch_list) {
      merged = merge_slice_handler(std::move(original_list->get_array()), std::move(patch_list->get_array()),
                                   list_schema ? list_schema->elements() : nullptr, strategy, meta.merge_key,
                                   false, &server_order);
    } else if (original_list) {
      merged = std::move(original_list->get_array());
      server_order = merge_keys_in_order(merged, meta.merge_key);
    } else {
      merged = std::move(remove_directives(std::move(*patch_list))->get_array());
    }
    auto [patch_items, server_only] = partition_by_presence(std::move(merged), set_order, meta.merge_key);
    original[field] = normalize_element_order(std::move(patch_items), std::move(server_only), set_order,
                                              server_order, meta.merge_key, kind);
    patch.erase(field);
  }
}

}  // namespace

object merge_map(object original, object patch, const PatchSchema* schema) {
  if (value* directive = patch.if_contains(kDirective)) {
    if (is_string(*directive, "replace")) {
      patch.erase(kDirective);
      return patch;
    }
    if (is_string(*directive, "delete")) return {};
    throw_unconverted(err_bad_patch_type(*directive, patch));
  }
  apply_retain_keys(original, patch);
  merge_set_element_order(original, patch, schema);

  for (auto& member : patch) {
    std::string key(member.key());
    value& patch_value = member.value();
    bool is_delete_list = false;
    if (key.starts_with(kDeleteFromPrimitiveList)) {
      std::string field = extract_key(key, kDeleteFromPrimitiveList);
      is_delete_list = true;
      if (!field.empty()) key = std::move(field);
    }
    if (patch_value.is_null()) {
      original.erase(key);
      continue;
    }
    value* current = original.if_contains(key);
    if (!current || go_type(*current) != go_type(patch_value)) {
      // A deletion list for a list that is not there deletes nothing.
      if (!is_delete_list) assign_patch_value(original, key, std::move(patch_value));
      continue;
    }
    PatchMeta meta;
    const PatchSchema* field_schema = schema ? schema->field(key, &meta) : nullptr;
    std::string strategy = split_patch_strategy(meta.strategy).second;
    if (current->is_object()) {
      if (strategy == "replace") {
        *current = std::move(patch_value);
      } else {
        *current = merge_map(std::move(current->get_object()), std::move(patch_value.get_object()), field_schema);
      }
    } else if (current->is_array()) {
      *current = merge_slice_handler(std::move(current->get_array()), std::move(patch_value.get_array()),
                                     field_schema ? field_schema->elements() : nullptr, strategy, meta.merge_key,
                                     is_delete_list, nullptr);
    } else {
      *current = std::move(patch_value);
    }
  }
  return original;
}

std::optional<value> remove_directives(value v) {
  if (v.is_object()) {
    object& members = v.get_object();
    if (members.contains(kDirective)) return std::nullopt;
    for (auto it = members.begin(); it != members.end();) {
      std::optional<value> kept = remove_directives(std::move(it->value()));
      if (kept) {
        it->value() = std::move(*kept);
        ++it;
      } else {
        it = members.erase(it);
      }
    }
  } else if (v.is_array()) {
    array kept;
    for (value& item : v.get_array()) {
      if (std::optional<value> element = remove_directives(std::move(item))) kept.push_back(std::move(*element));
    }
    return value(std::move(kept));
  }
  return v;
}

std::pair<bool, std::string> split_patch_strategy(std::string_view strategy) {
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    std::size_t comma = strategy.find(',', start);
    parts.push_back(strategy.substr(start, comma == std::string_view::npos ? comma : comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  constexpr std::string_view kRetain = "retainKeys";
  if (parts.size() == 1) {
    if (parts[0] == kRetain) return {true, ""};
    return {false, std::string(parts[0])};
  }
  if (parts.size() == 2 && parts[0] == kRetain) return {true, std::string(parts[1])};
  if (parts.size() == 2 && parts[1] == kRetain) return {true, std::string(parts[0])};
  std::string listed = "[";
  for (std::string_view part : parts) listed.append(listed.size() > 1 ? " " : "").append(part);
  throw_unconverted("unexpected patch strategy: " + listed + "]");
}

std::string err_no_merge_key(const value& map, std::string_view key) {
  return "map: " + go_value(map) + " does not contain declared merge key: " + std::string(key);
}

std::string err_bad_arg_type(std::string_view expected, const value& actual) {
  return "expected a " + std::string(expected) + ", but received a " + go_type_name(actual);
}

std::string err_bad_patch_type(const value& directive, const value& map) {
  return "unknown patch type: " + go_string_verb(directive) + " in map: " + go_value(map);
}

}  // namespace detail

boost::json::value apply_strategic_merge_patch(boost::json::value document, std::string_view patch_json,
                                               const PatchSchema& root) {
  std::string error;
  std::optional<boost::json::value> patch = detail::parse_json(patch_json, error);
  if (!patch) detail::throw_bad_request(error);
  if (patch->is_null()) return document;  // Go decodes null into a nil map: nothing to merge
  if (!patch->is_object()) {
    detail::throw_bad_request("json: cannot unmarshal " + std::string(base::go_json_kind(*patch)) +
                              " into Go value of type map[string]interface {}");
  }
  if (!document.is_object()) detail::throw_bad_request("invalid JSON document");  // mergepatch.ErrBadJSONDoc
  return detail::merge_map(std::move(document.get_object()), std::move(patch->get_object()), &root);
}

}  // namespace kapi::patch
