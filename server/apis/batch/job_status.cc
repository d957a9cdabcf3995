// pkg/apis/batch/validation/validation.go (validateJobStatus, ValidateJobStatusUpdate) and
// pkg/registry/batch/job/strategy.go (getStatusValidationOptions).
#include "server/apis/batch/job_status.h"

#include "server/apis/core/core_validation.h"
#include "server/registry/json_fields.h"

#include <boost/json.hpp>

namespace kapi::apis::batch {
namespace {

namespace json = boost::json;
using namespace registry::fields;
using validation::Path;

bool condition_true(const json::object* status, std::string_view type) {
  bool found = false;
  for_each_object(status, "conditions", [&](const json::object& condition, std::size_t) {
    if (string_at(condition, "type") == type && string_at(condition, "status") == "True") found = true;
  });
  return found;
}

// What validateJobStatus reads of one job's status.
struct Facts {
  const json::object* status;
  bool complete, failed, failure_target, finished;
  std::string start_time, completion_time;
  std::int64_t active;

  explicit Facts(const json::object& job)
      : status(object_at(job, "status")),
        complete(condition_true(status, "Complete")),
        failed(condition_true(status, "Failed")),
        failure_target(condition_true(status, "FailureTarget")),
        finished(complete || failed),
        start_time(string_at(status, "startTime")),
        completion_time(string_at(status, "completionTime")),
        active(int_or_zero(status, "active")) {}
};

validation::FieldError omitted_value(const Path& path, std::string detail) {
  return validation::invalid_value(path, "", std::move(detail));
}

}  // namespace

validation::ErrorList validate_job_status_update(const json::object& job, const json::object& old) {
  validation::ErrorList errors;
  const Path status_path("status");
  const Facts now(job), before(old);
  for (std::string_view member : {"active", "succeeded", "failed", "ready", "terminating"})
    if (auto value = int_at(now.status, member); value && *value < 0)
      errors.push_back(validation::invalid_value(status_path.child(member), std::to_string(*value),
                                                 "must be greater than or equal to 0"));
  const bool finished_changed = now.finished != before.finished;
  const bool complete_changed = now.complete != before.complete;
  const bool failed_changed = now.failed != before.failed;
  const bool failure_target_changed = now.failure_target != before.failure_target;
  const bool start_changed = now.start_time != before.start_time;
  const bool completion_changed = now.completion_time != before.completion_time;
  const bool active_changed = now.active != before.active;
  const Path conditions = status_path.child("conditions");

  if ((complete_changed || failed_changed) && now.complete && now.failed)
    errors.push_back(omitted_value(conditions, "cannot set Complete=True and Failed=true conditions"));
  if ((complete_changed || failure_target_changed) && now.complete && now.failure_target)
    errors.push_back(omitted_value(conditions, "cannot set Complete=True and FailureTarget=true conditions"));
  if ((complete_changed || completion_changed) && !now.completion_time.empty() && !now.complete)
    errors.push_back(validation::invalid(status_path.child("completionTime"), now.completion_time,
                                         "cannot set completionTime when there is no Complete=True condition"));
  if ((complete_changed || completion_changed) && now.completion_time.empty() && now.complete)
    errors.push_back(validation::required(status_path.child("completionTime"), "completionTime is required for Complete jobs"));
  if ((start_changed || completion_changed) && !now.start_time.empty() && !now.completion_time.empty() &&
      core::parse_time(now.completion_time) < core::parse_time(now.start_time))
    errors.push_back(validation::invalid(status_path.child("completionTime"), now.completion_time,
                                         "completionTime cannot be set before startTime"));
  if ((failed_changed || failure_target_changed) && now.failed && !now.failure_target)
    errors.push_back(omitted_value(conditions, "cannot set Failed=True condition without the FailureTarget=true condition"));
  if ((finished_changed || active_changed) && now.active > 0 && now.finished)
    errors.push_back(validation::invalid_value(status_path.child("active"), std::to_string(now.active),
                                               "active>0 is invalid for finished job"));
  if ((finished_changed || start_changed) && now.start_time.empty() && now.finished)
    errors.push_back(validation::required(status_path.child("startTime"), "startTime is required for finished job"));

  for (std::string_view type : {"Failed", "Complete", "FailureTarget"})
    if (condition_true(before.status, type) && !condition_true(now.status, type))
      errors.push_back(omitted_value(conditions, "cannot disable the terminal " + std::string(type) + "=True condition"));
  if (int_or_zero(now.status, "failed") < int_or_zero(before.status, "failed"))
    errors.push_back(validation::invalid_value(status_path.child("failed"), std::to_string(int_or_zero(now.status, "failed")),
                                               "cannot decrease the failed counter"));
  if (!now.completion_time.empty() && !before.completion_time.empty() && now.completion_time != before.completion_time)
    errors.push_back(validation::invalid(status_path.child("completionTime"), now.completion_time,
                                         "completionTime cannot be mutated"));
  if (start_changed && !before.start_time.empty() && !bool_at(object_at(job, "spec"), "suspend"))
    errors.push_back(validation::required(status_path.child("startTime"), "startTime cannot be removed for unsuspended job"));
  return errors;
}

}  // namespace kapi::apis::batch
