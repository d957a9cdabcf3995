#include "server/validation/metav1_validation.h"

#include "base/go_regexp.h"
#include "base/name_validation.h"
#include "server/validation/object_meta.h"

#include <boost/json.hpp>

#include <set>
#include <algorithm>

namespace kapi::validation {
namespace {

namespace json = boost::json;

const json::array* array_member(const json::object& object, std::string_view key) {
  auto it = object.find(key);
  return it != object.end() && it->value().is_array() ? &it->value().as_array() : nullptr;
}

std::string_view string_member(const json::object& object, std::string_view key) {
  auto it = object.find(key);
  return it != object.end() && it->value().is_string() ? std::string_view(it->value().as_string()) : "";
}

void append(ErrorList& errors, ErrorList more) {
  errors.insert(errors.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
}

}  // namespace

ErrorList validate_label_selector(const json::object& selector, const Path& path, bool allow_invalid_label_value) {
  ErrorList errors;
  if (auto it = selector.find("matchLabels"); it != selector.end() && it->value().is_object())
    append(errors, validate_labels(it->value().as_object(), path.child("matchLabels")));
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
    if (values && !allow_invalid_label_value)
      for (std::size_t v = 0; v < values->size(); ++v)
        if (const json::string* value = (*values)[v].if_string())
          for (auto& message : is_valid_label_value(*value))
            errors.push_back(invalid(at.child("values").index(v), *value, message));
  }
  return errors;
}

ErrorList validate_conditions(const json::array& conditions, const Path& path) {
  constexpr std::size_t kMaxReasonLength = 1024, kMaxMessageLength = 32768;
  static const RE2 reason_pattern("^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$", base::go_regexp_options());
  const std::vector<std::string> statuses{"False", "True", "Unknown"};
  ErrorList errors;
  std::set<std::string> types;
  for (std::size_t i = 0; i < conditions.size(); ++i) {
    static const json::object kNotAnObject;
    const json::object& condition = conditions[i].is_object() ? conditions[i].as_object() : kNotAnObject;
    const Path at = path.index(i);
    const std::string type(string_member(condition, "type"));
    if (!types.insert(type).second) errors.push_back(duplicate(at.child("type"), type));
    for (auto& message : is_qualified_name(type)) errors.push_back(invalid(at.child("type"), type, message));
    const std::string_view status = string_member(condition, "status");
    if (std::find(statuses.begin(), statuses.end(), status) == statuses.end())
      errors.push_back(not_supported(at.child("status"), status, statuses));
    if (const json::value* generation = condition.if_contains("observedGeneration");
        generation && generation->is_int64() && generation->as_int64() < 0)
      errors.push_back(invalid_value(at.child("observedGeneration"), std::to_string(generation->as_int64()),
                                     "must be greater than or equal to zero"));
    if (string_member(condition, "lastTransitionTime").empty())
      errors.push_back(required(at.child("lastTransitionTime"), "must be set"));
    const std::string_view reason = string_member(condition, "reason");
    if (reason.empty()) {
      errors.push_back(required(at.child("reason"), "must be set"));
    } else {
      if (!RE2::FullMatch(re2::StringPiece(reason.data(), reason.size()), reason_pattern))
        errors.push_back(invalid(at.child("reason"), reason,
                                 "a condition reason must start with alphabetic character, optionally followed by a "
                                 "string of alphanumeric characters or '_,:', and must end with an alphanumeric "
                                 "character or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName',  or "
                                 "'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex used for validation is "
                                 "'[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')"));
      if (reason.size() > kMaxReasonLength) errors.push_back(too_long(at.child("reason"), kMaxReasonLength));
    }
    if (string_member(condition, "message").size() > kMaxMessageLength)
      errors.push_back(too_long(at.child("message"), kMaxMessageLength));
  }
  return errors;
}

}  // namespace kapi::validation
