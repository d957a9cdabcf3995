#pragma once
// The rules a Job's status changes follow (pkg/apis/batch/validation ValidateJobStatusUpdate with the options
// kube 1.32's job status strategy derives, JobManagedBy being on): counters never negative, terminal conditions
// consistent with the times and counters, and what a finished job may no longer undo.
#include "server/validation/field_error.h"

#include <boost/json/object.hpp>

namespace kapi::apis::batch {

// `old` is the stored job. Rules that kube applies only when the fields they read changed are applied the same
// way, so a main-resource write (which keeps the status) never fails them.
validation::ErrorList validate_job_status_update(const boost::json::object& job, const boost::json::object& old);

}  // namespace kapi::apis::batch
