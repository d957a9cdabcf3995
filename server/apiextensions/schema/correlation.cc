// apiserver/pkg/cel/common/equality.go (CorrelatedObject) and maplist.go (MakeMapList, key strategies).
#include "server/apiextensions/schema/correlation.h"

#include "server/apiextensions/schema/go_values.h"

#include <boost/json.hpp>

namespace kapi::apiextensions::schema {
namespace {

namespace json = boost::json;

bool is_nil(const json::value* v) { return !v || v->is_null(); }

// A map-list item's composite key: the scalar values of the key fields; none when a key is missing or not
// scalar.
std::optional<std::string> composite_key(const Schema& list, const json::value& item) {
  if (!item.is_object()) return std::nullopt;
  std::string key;
  for (const auto& name : list.x_list_map_keys) {
    const json::value* v = item.get_object().if_contains(name);
    if (!v || v->is_object() || v->is_array()) return std::nullopt;
    key += json::serialize(*v);
    key += '\x1f';
  }
  return key;
}

}  // namespace

const json::value* correlated_map_list_item(const Schema& list, const json::array* old_items,
                                            const json::value& item) {
  if (!old_items || list.type != "array" || !list.x_list_type || *list.x_list_type != "map" ||
      list.x_list_map_keys.empty() || !list.items)
    return nullptr;
  auto key = composite_key(list, item);
  if (!key) return nullptr;
  for (const auto& old : *old_items)
    if (composite_key(list, old) == key) return &old;
  return nullptr;
}

bool Correlation::cached_deep_equal() {
  if (equal_) return *equal_;
  bool result = false;
  if (is_nil(value_) && is_nil(old_)) {
    result = true;
  } else if (is_nil(value_) || is_nil(old_)) {
    result = false;
  } else if (value_->is_array() != old_->is_array() || value_->is_object() != old_->is_object()) {
    result = false;
  } else if (value_->is_array()) {
    const json::array& now = value_->get_array();
    result = now.size() == old_->get_array().size();
    bool map_list = schema_ && schema_->x_list_type && *schema_->x_list_type == "map";
    for (std::size_t i = 0; result && i < now.size(); ++i) {
      Correlation* child = index(i);
      if (!child) {
        result = !map_list && go_deep_equal(*old_, *value_);
        break;
      }
      result = child->cached_deep_equal();
    }
  } else if (value_->is_object()) {
    const json::object& now = value_->get_object();
    result = now.size() == old_->get_object().size();
    for (auto it = now.begin(); result && it != now.end(); ++it) {
      Correlation* child = key(std::string(it->key()));
      result = child && child->cached_deep_equal();
    }
  } else {
    result = go_deep_equal(*old_, *value_);
  }
  equal_ = result;
  return result;
}

Correlation* Correlation::key(const std::string& field) {
  if (!schema_) return nullptr;
  if (auto it = fields_.find(field); it != fields_.end()) return it->second.get();
  if (is_nil(value_) || is_nil(old_) || !value_->is_object() || !old_->is_object()) return nullptr;
  const json::value* now = value_->get_object().if_contains(field);
  const json::value* before = old_->get_object().if_contains(field);
  if (!now || !before) return nullptr;
  const Schema* child_schema = schema_->property(field);
  if (!child_schema) child_schema = schema_->additional_properties_schema();
  if (!child_schema) return nullptr;
  auto& slot = fields_[field];
  slot = std::make_unique<Correlation>(now, before, child_schema);
  return slot.get();
}

Correlation* Correlation::index(std::size_t i) {
  if (!schema_) return nullptr;
  if (auto it = items_.find(i); it != items_.end()) return it->second.get();
  if (is_nil(value_) || !value_->is_array() || value_->get_array().size() <= i) return nullptr;
  if (is_nil(old_) || !old_->is_array()) return nullptr;
  const json::value& item = value_->get_array()[i];
  const json::value* before = correlated_map_list_item(*schema_, &old_->get_array(), item);
  if (!before || !schema_->items) return nullptr;
  auto& slot = items_[i];
  slot = std::make_unique<Correlation>(&item, before, schema_->items.get());
  return slot.get();
}

}  // namespace kapi::apiextensions::schema
