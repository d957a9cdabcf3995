#pragma once
// What a Job and a CronJob's jobTemplate share (pkg/apis/batch/validation validateJobSpec, printers'
// layoutContainerCells): the checks of a JobSpec apart from its selector, and the defaults of its pod template.
#include "server/registry/strategy.h"
#include "server/validation/field_error.h"

#include <boost/json.hpp>

#include <string>

namespace kapi::apis::batch {

// validateJobSpec at `path` ("spec", "spec.jobTemplate.spec"): the counters, completionMode,
// podReplacementPolicy, the pod template (ValidatePodTemplateSpec) and its restartPolicy (OnFailure or Never).
validation::ErrorList validate_job_spec(const boost::json::object* spec, const validation::Path& path);

// The pod template's code defaults (SetDefaults_PodSpec and SetDefaults_Container on spec.template.spec).
void apply_job_template_defaults(boost::json::object& job_spec);

// The SELECTOR cell of kube's job printers (metav1.FormatLabelSelector): "<none>" for a missing or empty selector.
std::string format_label_selector(const boost::json::object* selector);

// The -o wide columns of printJob and printCronJob: CONTAINERS, IMAGES, SELECTOR.
std::vector<registry::TableColumn> job_wide_columns();

}  // namespace kapi::apis::batch
