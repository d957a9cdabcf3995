#pragma once
// k8s.io/apimachinery/pkg/apis/meta/v1/validation: the checks of the metav1 types objects embed, a LabelSelector
// (matchLabels, matchExpressions) and a list of metav1.Conditions, with kube's field paths and messages.
#include "server/validation/field_error.h"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

namespace kapi::validation {

// ValidateLabelSelector; `allow_invalid_label_value` is LabelSelectorValidationOptions'
// AllowInvalidLabelValueInSelector (an update keeps tolerating what the stored object has).
ErrorList validate_label_selector(const boost::json::object& selector, const Path& path,
                                  bool allow_invalid_label_value = false);

// ValidateConditions: unique types, each a qualified name, status True/False/Unknown, observedGeneration >= 0,
// lastTransitionTime and a CamelCase-like reason set, message at most 32768 bytes.
ErrorList validate_conditions(const boost::json::array& conditions, const Path& path);

}  // namespace kapi::validation
