// pkg/apis/batch/validation/validation.go (validateJobSpec, validatePodTemplateSpec, validatePodReplacementPolicy)
// and pkg/printers/internalversion/printers.go (the job printers' wide columns).
#include "server/apis/batch/job_spec.h"

#include "server/apis/apps/workload.h"
#include "server/apis/core/pod_defaults.h"
#include "server/apis/core/pod_validation.h"
#include "server/registry/json_fields.h"
#include "server/validation/object_meta.h"

namespace kapi::apis::batch {
namespace {

namespace json = boost::json;
using namespace registry::fields;
using validation::Path;

// maxParallelismForIndexedJob: an Indexed job tracks its completions in a bounded status string.
constexpr std::int64_t kMaxParallelismForIndexedJob = 100000;

void nonnegative(validation::ErrorList& errors, const json::object* spec, const Path& path, std::string_view member) {
  if (auto value = int_at(spec, member); value && *value < 0)
    errors.push_back(validation::invalid_value(path.child(member), std::to_string(*value),
                                               "must be greater than or equal to 0"));
}

void append(validation::ErrorList& errors, validation::ErrorList more) {
  for (auto& error : more) errors.push_back(std::move(error));
}

}  // namespace

validation::ErrorList validate_job_spec(const json::object* spec, const Path& path) {
  validation::ErrorList errors;
  for (std::string_view member : {"parallelism", "completions", "activeDeadlineSeconds", "backoffLimit",
                                  "ttlSecondsAfterFinished", "backoffLimitPerIndex", "maxFailedIndexes"})
    nonnegative(errors, spec, path, member);
  const bool indexed = string_at(spec, "completionMode") == "Indexed";
  if (int_at(spec, "backoffLimitPerIndex") && !indexed)
    errors.push_back(validation::forbidden(path.child("backoffLimitPerIndex"), "requires indexed completion mode"));
  if (int_at(spec, "maxFailedIndexes") && !int_at(spec, "backoffLimitPerIndex"))
    errors.push_back(validation::required(path.child("backoffLimitPerIndex"), "when maxFailedIndexes is specified"));
  if (spec && spec->contains("completionMode")) {
    std::string_view mode = string_at(spec, "completionMode");
    if (mode != "NonIndexed" && mode != "Indexed")
      errors.push_back(validation::not_supported(path.child("completionMode"), mode, {"NonIndexed", "Indexed"}));
    if (indexed) {
      if (!int_at(spec, "completions"))
        errors.push_back(validation::required(path.child("completions"), "when completion mode is Indexed"));
      if (auto parallelism = int_at(spec, "parallelism"); parallelism && *parallelism > kMaxParallelismForIndexedJob)
        errors.push_back(validation::invalid_value(
            path.child("parallelism"), std::to_string(*parallelism),
            "must be less than or equal to " + std::to_string(kMaxParallelismForIndexedJob) +
                " when completion mode is Indexed"));
    }
  }
  const bool has_failure_policy = object_at(spec, "podFailurePolicy") != nullptr;
  if (spec && spec->contains("podReplacementPolicy")) {
    std::string_view policy = string_at(spec, "podReplacementPolicy");
    if (has_failure_policy && policy != "Failed")
      errors.push_back(validation::not_supported(path.child("podReplacementPolicy"), policy, {"Failed"}));
    else if (policy != "TerminatingOrFailed" && policy != "Failed")
      errors.push_back(validation::not_supported(path.child("podReplacementPolicy"), policy,
                                                 {"TerminatingOrFailed", "Failed"}));
  }

  static const json::object kEmpty;
  const Path template_path = path.child("template");
  const json::object* template_ = object_at(spec, "template");
  if (const json::object* labels = object_at(object_at(template_, "metadata"), "labels"))
    append(errors, validation::validate_labels(*labels, template_path.child("metadata").child("labels")));
  if (const json::object* annotations = object_at(object_at(template_, "metadata"), "annotations"))
    append(errors, validation::validate_annotations(*annotations, template_path.child("metadata").child("annotations")));
  const json::object* pod_spec = object_at(template_, "spec");
  append(errors, core::validate_pod_spec(pod_spec ? *pod_spec : kEmpty, template_path.child("spec")));
  std::string_view restart_policy = string_at(pod_spec, "restartPolicy");
  if (restart_policy != "OnFailure" && restart_policy != "Never")
    errors.push_back(validation::not_supported(template_path.child("spec").child("restartPolicy"), restart_policy,
                                               {"OnFailure", "Never"}));
  else if (restart_policy == "OnFailure" && has_failure_policy)
    errors.push_back(validation::invalid(template_path.child("spec").child("restartPolicy"), restart_policy,
                                         "only \"Never\" is supported when podFailurePolicy is specified"));
  return errors;
}

void apply_job_template_defaults(json::object& job_spec) {
  if (json::object* pod_spec = object_at(object_at(&job_spec, "template"), "spec"))
    core::apply_pod_spec_defaults(*pod_spec);
}

std::string format_label_selector(const json::object* selector) {
  std::optional<std::string> formatted = apps::selector_string(selector);
  if (!formatted) return "<error>";
  return formatted->empty() ? "<none>" : *formatted;
}

std::vector<registry::TableColumn> job_wide_columns() {
  return {{"Containers", "string", "", "Names of each container in the template.", 1},
          {"Images", "string", "", "Images referenced by each container in the template.", 1},
          {"Selector", "string", "",
           "A label query over pods that should match the pod count. Normally, the system sets this field for you. "
           "More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
           1}};
}

}  // namespace kapi::apis::batch
