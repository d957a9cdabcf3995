#include "server/selectors/metav1_label_selector.h"

#include <boost/json.hpp>

#include <string>

namespace kapi::selectors {
namespace {

namespace json = boost::json;

const json::value* member(const json::object& object, std::string_view key) {
  auto it = object.find(key);
  return it == object.end() ? nullptr : &it->value();
}

std::string string_member(const json::object& object, std::string_view key) {
  const json::value* value = member(object, key);
  return value && value->is_string() ? std::string(value->as_string()) : std::string();
}

}  // namespace

// Builds labels.Parse's text form, which sorts and checks the requirements as LabelSelectorAsSelector does.
std::optional<LabelSelector> label_selector_from_metav1(const json::object& selector) {
  std::string text;
  auto append = [&text](const std::string& requirement) { text += (text.empty() ? "" : ",") + requirement; };
  if (const json::value* labels = member(selector, "matchLabels"); labels && labels->is_object())
    for (const auto& [key, value] : labels->as_object())
      append(std::string(key) + "=" + (value.is_string() ? std::string(value.as_string()) : std::string()));
  if (const json::value* expressions = member(selector, "matchExpressions"); expressions && expressions->is_array()) {
    for (const auto& item : expressions->as_array()) {
      if (!item.is_object()) return std::nullopt;
      const json::object& expression = item.as_object();
      const std::string key = string_member(expression, "key");
      const std::string op = string_member(expression, "operator");
      std::string values;
      if (const json::value* list = member(expression, "values"); list && list->is_array())
        for (const auto& value : list->as_array())
          if (value.is_string()) values += (values.empty() ? "" : ",") + std::string(value.as_string());
      if (op == "In") append(key + " in (" + values + ")");
      else if (op == "NotIn") append(key + " notin (" + values + ")");
      else if (op == "Exists") append(key);
      else if (op == "DoesNotExist") append("!" + key);
      else return std::nullopt;
    }
  }
  try {
    return LabelSelector::parse(text);
  } catch (const SelectorParseError&) {
    return std::nullopt;
  }
}

}  // namespace kapi::selectors
