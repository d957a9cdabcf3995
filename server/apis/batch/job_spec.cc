// pkg/apis/batch/validation/validation.go (validateJobSpec, validatePodTemplateSpec, validatePodReplacementPolicy)
// and pkg/printers/internalversion/printers.go (the job printers' wide columns).
#include "server/apis/batch/job_spec.h"

#include "base/name_validation.h"
#include "server/apis/apps/workload.h"
#include "server/apis/core/pod_defaults.h"
#include "server/apis/core/pod_validation.h"
#include "server/registry/json_fields.h"
#include "server/validation/object_meta.h"

#include <set>

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

validation::FieldError too_many(const Path& path, std::size_t actual, std::size_t most) {
  return {validation::ErrorType::TooMany, path.str(), std::to_string(actual),
          "must have at most " + std::to_string(most) + " items"};
}

// Go's %#v of a []int32.
std::string int32_slice_literal(const json::array* values) {
  std::string out = "[]int32{";
  if (values)
    for (std::size_t i = 0; i < values->size(); ++i)
      out += (i ? ", " : "") + std::to_string((*values)[i].is_int64() ? (*values)[i].as_int64() : 0);
  return out + "}";
}

// validatePodFailurePolicyRuleOnExitCodes.
void validate_on_exit_codes(validation::ErrorList& errors, const json::object& requirement, const Path& path,
                            const std::set<std::string, std::less<>>& container_names) {
  std::string_view operator_ = string_at(requirement, "operator");
  if (operator_.empty())
    errors.push_back(validation::required(path.child("operator"), "valid values: [\"In\" \"NotIn\"]"));
  else if (operator_ != "In" && operator_ != "NotIn")
    errors.push_back(validation::not_supported(path.child("operator"), operator_, {"In", "NotIn"}));
  if (requirement.contains("containerName") && !container_names.contains(string_at(requirement, "containerName")))
    errors.push_back(validation::invalid(path.child("containerName"), string_at(requirement, "containerName"),
                                         "must be one of the container or initContainer names in the pod template"));
  const json::array* values = array_at(requirement, "values");
  const Path values_path = path.child("values");
  if (!values || values->empty()) {
    errors.push_back(validation::invalid_value(values_path, int32_slice_literal(values), "at least one value is required"));
    return;
  }
  if (values->size() > 255) {
    errors.push_back(too_many(values_path, values->size(), 255));
    return;
  }
  std::set<std::int64_t> seen;
  bool ordered = true;
  for (std::size_t j = 0; j < values->size(); ++j) {
    const std::int64_t code = (*values)[j].is_int64() ? (*values)[j].as_int64() : 0;
    if (operator_ == "In" && code == 0)
      errors.push_back(validation::invalid_value(values_path.index(j), "0", "must not be 0 for the In operator"));
    if (!seen.insert(code).second)
      errors.push_back({validation::ErrorType::Duplicate, values_path.index(j).str(), std::to_string(code), ""});
    if (j > 0 && (*values)[j - 1].is_int64() && (*values)[j - 1].as_int64() > code) ordered = false;
  }
  if (!ordered) errors.push_back(validation::invalid_value(values_path, int32_slice_literal(values), "must be ordered"));
}

// validatePodFailurePolicy: at most 20 rules, each with a known action and exactly one kind of requirement.
void validate_pod_failure_policy(validation::ErrorList& errors, const json::object& spec, const Path& path) {
  const json::array* rules = array_at(object_at(spec, "podFailurePolicy"), "rules");
  const Path rules_path = path.child("podFailurePolicy").child("rules");
  if (rules && rules->size() > 20) errors.push_back(too_many(rules_path, rules->size(), 20));
  std::set<std::string, std::less<>> container_names;
  const json::object* pod_spec = object_at(object_at(spec, "template"), "spec");
  for (std::string_view list : {"containers", "initContainers"})
    for_each_object(pod_spec, list, [&](const json::object& container, std::size_t) {
      container_names.emplace(string_at(container, "name"));
    });
  for_each_object(object_at(spec, "podFailurePolicy"), "rules", [&](const json::object& rule, std::size_t i) {
    const Path rule_path = rules_path.index(i);
    std::string_view action = string_at(rule, "action");
    if (action.empty())
      errors.push_back(validation::required(rule_path.child("action"),
                                            "valid values: [\"Count\" \"FailIndex\" \"FailJob\" \"Ignore\"]"));
    else if (action == "FailIndex" && !int_at(spec, "backoffLimitPerIndex"))
      errors.push_back(validation::invalid(rule_path.child("action"), action, "requires the backoffLimitPerIndex to be set"));
    else if (action != "FailIndex" && action != "Count" && action != "FailJob" && action != "Ignore")
      errors.push_back(validation::not_supported(rule_path.child("action"), action, {"Count", "FailIndex", "FailJob", "Ignore"}));
    const json::object* on_exit_codes = object_at(rule, "onExitCodes");
    if (on_exit_codes) validate_on_exit_codes(errors, *on_exit_codes, rule_path.child("onExitCodes"), container_names);
    const json::array* patterns = array_at(rule, "onPodConditions");
    const bool has_patterns = patterns && !patterns->empty();
    if (has_patterns) {
      const Path patterns_path = rule_path.child("onPodConditions");
      if (patterns->size() > 20) errors.push_back(too_many(patterns_path, patterns->size(), 20));
      for_each_object(&rule, "onPodConditions", [&](const json::object& pattern, std::size_t j) {
        std::string_view type = string_at(pattern, "type");
        for (auto& message : validation::is_qualified_name(type))
          errors.push_back(validation::invalid(patterns_path.index(j).child("type"), type, message));
        std::string_view status = string_at(pattern, "status");
        if (status.empty())
          errors.push_back(validation::required(patterns_path.index(j).child("status"),
                                                "valid values: [\"False\" \"True\" \"Unknown\"]"));
        else if (status != "False" && status != "True" && status != "Unknown")
          errors.push_back(validation::not_supported(patterns_path.index(j).child("status"), status,
                                                     {"False", "True", "Unknown"}));
      });
    }
    if (on_exit_codes && has_patterns)
      errors.push_back(validation::invalid_value(rule_path, "", "specifying both OnExitCodes and OnPodConditions is not supported"));
    if (!on_exit_codes && !has_patterns)
      errors.push_back(validation::invalid_value(rule_path, "", "specifying one of OnExitCodes and OnPodConditions is required"));
  });
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
  if (has_failure_policy) validate_pod_failure_policy(errors, *spec, path);
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
