#pragma once
// metav1.LabelSelectorAsSelector: a LabelSelector as objects store it (`matchLabels` and `matchExpressions`, in a
// workload's spec.selector or a ClusterRole's aggregationRule) turned into the selector that matches labels.
#include "server/selectors/label_selector.h"

#include <boost/json/object.hpp>

#include <optional>

namespace kapi::selectors {

// An empty selector ({}) matches everything; std::nullopt when an expression has an unknown operator or the
// requirements do not parse (validation refuses such selectors before they are stored).
std::optional<LabelSelector> label_selector_from_metav1(const boost::json::object& selector);

}  // namespace kapi::selectors
