#include "server/patch/merge_patch.h"

#include "server/patch/go_json.h"
#include "server/patch/patch_error.h"

#include <string>

namespace kapi::patch {
namespace {

using boost::json::array;
using boost::json::object;
using boost::json::value;

void prune_nulls(value& v);

void prune_object_nulls(object& members) {
  for (auto it = members.begin(); it != members.end();) {
    if (it->value().is_null()) {
      it = members.erase(it);
    } else {
      prune_nulls(it->value());
      ++it;
    }
  }
}

void prune_array_nulls(array& items) {
  array kept;
  kept.reserve(items.size());
  for (value& item : items) {
    if (item.is_null()) continue;
    prune_nulls(item);
    kept.push_back(std::move(item));
  }
  items = std::move(kept);
}

void prune_nulls(value& v) {
  if (v.is_object()) {
    prune_object_nulls(v.get_object());
  } else if (v.is_array()) {
    prune_array_nulls(v.get_array());
  }
}

void merge_objects(object& doc, object& patch);

// evanphx's merge(): a patch object merges into an object; onto anything else the patch (pruned) replaces it.
// A non-object patch replaces an object unpruned, as evanphx returns it untouched there.
value merge(value current, value patch) {
  if (!current.is_object()) {
    prune_nulls(patch);
    return patch;
  }
  if (!patch.is_object()) return patch;
  merge_objects(current.get_object(), patch.get_object());
  return current;
}

void merge_objects(object& doc, object& patch) {
  for (auto& member : patch) {
    value& patch_value = member.value();
    if (patch_value.is_null()) {
      doc.erase(member.key());
      continue;
    }
    value* current = doc.if_contains(member.key());
    if (!current || current->is_null()) {
      prune_nulls(patch_value);
      doc[member.key()] = std::move(patch_value);
    } else {
      *current = merge(std::move(*current), std::move(patch_value));
    }
  }
}

}  // namespace

value apply_merge_patch(value document, std::string_view patch_json) {
  const std::string bad_patch = "Invalid JSON Patch";  // jsonpatch.ErrBadJSONPatch
  std::string error;
  std::optional<value> patch = detail::parse_json(patch_json, error);
  if (!patch || patch->is_null()) detail::throw_bad_request(bad_patch);
  if (patch->is_array()) {
    prune_array_nulls(patch->get_array());
    return std::move(*patch);
  }
  if (!patch->is_object()) detail::throw_bad_request(bad_patch);
  if (document.is_null()) detail::throw_unconverted("Invalid JSON Document");  // jsonpatch.ErrBadJSONDoc
  if (!document.is_object()) {
    prune_object_nulls(patch->get_object());
    return std::move(*patch);
  }
  merge_objects(document.get_object(), patch->get_object());
  return document;
}

}  // namespace kapi::patch
