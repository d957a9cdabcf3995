#pragma once
// metav1validation.ValidateLabelSelector (k8s.io/apimachinery/pkg/apis/meta/v1/validation): the checks of a
// metav1.LabelSelector wherever a kind embeds one (aggregation rules, network policies, ...).
#include "server/validation/field_error.h"

#include <boost/json/object.hpp>

namespace kapi::validation {

// matchLabels as labels, each matchExpressions requirement's operator, key and values; without the opt-in that
// tolerates invalid label values.
ErrorList validate_label_selector(const boost::json::object& selector, const Path& path);

}  // namespace kapi::validation
