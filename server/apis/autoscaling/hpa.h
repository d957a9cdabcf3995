#pragma once
// What the HorizontalPodAutoscaler files share: validation of the storage (v2) form and the v1 ⇄ v2 conversion.
#include "server/registry/version_conversion.h"
#include "server/validation/field_error.h"

#include <boost/json/object.hpp>

#include <memory>

namespace kapi::apis::autoscaling {

// ValidateHorizontalPodAutoscaler's spec checks (pkg/apis/autoscaling/validation): `min_replicas_lower_bound` is 1,
// or 0 on an update of an autoscaler that already scales to zero.
validation::ErrorList validate_hpa_spec(const boost::json::object& hpa, std::int64_t min_replicas_lower_bound);
// ValidateHorizontalPodAutoscalerStatusUpdate's checks.
validation::ErrorList validate_hpa_status(const boost::json::object& hpa);

// pkg/apis/autoscaling/v1/conversion.go.
std::shared_ptr<const registry::VersionConversion> hpa_v1_conversion();

}  // namespace kapi::apis::autoscaling
