#include "server/validation/label_selector.h"

#include "server/validation/names.h"
#include "server/validation/object_meta.h"

#include <boost/json.hpp>

namespace kapi::validation {
namespace {

namespace json = boost::json;

std::string_view string_member(const json::object& object, std::string_view key) {
  const json::value* value = object.if_contains(key);
  return value && value->is_string() ? std::string_view(value->as_string()) : std::string_view();
}

const json::array* array_member(const json::object& object, std::string_view key) {
  const json::value* value = object.if_contains(key);
  return value ? value->if_array() : nullptr;
}

}  // namespace

ErrorList validate_label_selector(const json::object& selector, const Path& path) {
  ErrorList errors;
  if (auto it = selector.find("matchLabels"); it != selector.end() && it->value().is_object())
    for (auto& error : validate_labels(it->value().as_object(), path.child("matchLabels"))) errors.push_back(std::move(error));
  const json::array* expressions = array_member(selector, "matchExpressions");
  if (!expressions) return errors;
  for (std::size_t i = 0; i < expressions->size(); ++i) {
    const json::object* requirement = (*expressions)[i].if_object();
    if (!requirement) continue;
    Path at = path.child("matchExpressions").index(i);
    std::string_view op = string_member(*requirement, "operator");
    const json::array* values = array_member(*requirement, "values");
    const std::size_t value_count = values ? values->size() : 0;
    if (op == "In" || op == "NotIn") {
      if (value_count == 0)
        errors.push_back(required(at.child("values"), "must be specified when `operator` is 'In' or 'NotIn'"));
    } else if (op == "Exists" || op == "DoesNotExist") {
      if (value_count > 0)
        errors.push_back(forbidden(at.child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
    } else {
      errors.push_back(invalid(at.child("operator"), op, "not a valid selector operator"));
    }
    std::string_view key = string_member(*requirement, "key");
    for (auto& message : is_qualified_name(key)) errors.push_back(invalid(at.child("key"), key, message));
    if (values)
      for (std::size_t v = 0; v < values->size(); ++v)
        if (const json::string* value = (*values)[v].if_string())
          for (auto& message : is_valid_label_value(*value))
            errors.push_back(invalid(at.child("values").index(v), *value, message));
  }
  return errors;
}

}  // namespace kapi::validation
