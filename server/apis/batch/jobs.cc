// batch/v1 Job (pkg/registry/batch/job/strategy.go: generateSelector, GetAttrs; pkg/apis/batch/v1/defaults.go
// SetDefaults_Job; pkg/apis/batch/validation ValidateJob, ValidateJobUpdate, ValidateJobUpdateStatus;
// printers.printJob).
#include "base/name_validation.h"
#include "server/apis/apps/workload.h"
#include "server/apis/batch/batch.h"
#include "server/apis/batch/job_spec.h"
#include "server/apis/batch/job_status.h"
#include "server/apis/core/core_validation.h"
#include "server/registry/object_meta.h"
#include "server/selectors/metav1_label_selector.h"

#include <chrono>
#include <limits>

namespace kapi::apis {
namespace {

using namespace apps;
using validation::Path;
using registry::fields::bool_at;

constexpr std::string_view kLegacyJobNameLabel = "job-name";
constexpr std::string_view kLegacyControllerUidLabel = "controller-uid";
constexpr std::string_view kJobNameLabel = "batch.kubernetes.io/job-name";
constexpr std::string_view kControllerUidLabel = "batch.kubernetes.io/controller-uid";

bool condition_true(const json::object& job, std::string_view type) {
  bool found = false;
  registry::fields::for_each_object(object_at(job, "status"), "conditions", [&](const json::object& condition, std::size_t) {
    if (string_at(&condition, "type") == type && string_at(&condition, "status") == "True") found = true;
  });
  return found;
}

// ValidateHasLabel on the pod template's metadata.
void require_label(validation::ErrorList& errors, const json::object& job, std::string_view key,
                   std::string_view expected) {
  const json::object* labels = object_at(object_at(object_at(object_at(job, "spec"), "template"), "metadata"), "labels");
  Path path = Path("spec").child("template").child("metadata").child("labels").key(key);
  const json::value* value = labels ? labels->if_contains(key) : nullptr;
  if (!value)
    errors.push_back(validation::required(path, std::string(expected)));
  else if (!value->is_string() || value->as_string() != expected)
    errors.push_back(validation::invalid_value(path, label_map_literal(labels), "must be '" + std::string(expected) + "'"));
}

// The pod template with what a suspended job that never started may change (node affinity, node selector,
// tolerations, scheduling gates, labels and annotations) taken from `now`: validatePodTemplateUpdate.
json::object template_without_scheduling_directives(const json::object& old_template, const json::object& now) {
  json::object result = old_template;
  const json::object* now_spec = object_at(now, "spec");
  json::object& spec = ensure_object(result, "spec");
  const json::object* now_affinity = object_at(now_spec, "affinity");
  json::object* old_affinity = object_at(spec, "affinity");
  if (!now_affinity && old_affinity) {
    old_affinity->erase("nodeAffinity");
    if (old_affinity->empty()) spec.erase("affinity");
  } else if (now_affinity && !old_affinity) {
    json::object affinity;
    if (auto it = now_affinity->find("nodeAffinity"); it != now_affinity->end()) affinity["nodeAffinity"] = it->value();
    spec["affinity"] = std::move(affinity);
  } else if (now_affinity && old_affinity) {
    if (auto it = now_affinity->find("nodeAffinity"); it != now_affinity->end()) (*old_affinity)["nodeAffinity"] = it->value();
    else old_affinity->erase("nodeAffinity");
  }
  auto take = [](json::object& into, const json::object* from, std::string_view member) {
    if (const json::value* value = from ? from->if_contains(member) : nullptr) into[member] = *value;
    else into.erase(member);
  };
  take(spec, now_spec, "nodeSelector");
  take(spec, now_spec, "tolerations");
  take(spec, now_spec, "schedulingGates");
  json::object& meta = ensure_object(result, "metadata");
  take(meta, object_at(now, "metadata"), "annotations");
  take(meta, object_at(now, "metadata"), "labels");
  return result;
}

std::string optional_int_literal(const json::object* spec, std::string_view member) {
  auto value = int_at(spec, member);
  return value ? std::to_string(*value) : "null";
}

std::string optional_string_literal(const json::object* spec, std::string_view member) {
  return spec && spec->contains(member) ? validation::quoted(string_at(spec, member)) : "null";
}

class JobStrategy final : public registry::Strategy {
 public:
  // batch/v1 orphans a Job's pods unless asked otherwise, for compatibility; kube's Job REST says so.
  registry::GarbageCollectionPolicy default_garbage_collection_policy() const override {
    return registry::GarbageCollectionPolicy::kOrphanDependents;
  }
  std::string_view default_orphaning_warning() const override {
    return "child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove "
           "them or set propagationPolicy=Orphan to suppress this warning";
  }
  bool tracks_generation() const override { return true; }

  void apply_scheme_defaults(json::object& object) const override { apply_defaults(object); }

  void prepare_for_create(json::object& object) const override {
    object["status"] = json::object();
    apply_defaults(object);
    if (!bool_at(object_at(object, "spec"), "manualSelector")) generate_selector(object);
  }
  void prepare_for_update(json::object& object, const json::object& /*old*/) const override { apply_defaults(object); }

  validation::ErrorList validate(const json::object& object) const override { return validate_job(object, true); }

  validation::ErrorList validate_update(const json::object& object, const json::object& old) const override {
    const json::object* old_labels =
        object_at(object_at(object_at(object_at(old, "spec"), "template"), "metadata"), "labels");
    const bool had_prefixed_labels =
        old_labels && old_labels->contains(kJobNameLabel) && old_labels->contains(kControllerUidLabel);
    validation::ErrorList errors = validate_job(object, had_prefixed_labels);
    for (auto& error : validate_spec_update(object, old)) errors.push_back(std::move(error));
    for (auto& error : batch::validate_job_status_update(object, old)) errors.push_back(std::move(error));
    return errors;
  }

  std::vector<std::string> selectable_field_names() const override { return {"status.successful"}; }
  void selectable_fields(const json::object& object, registry::SelectableFields& fields) const override {
    fields["status.successful"] = std::to_string(int_or_zero(object_at(object, "status"), "succeeded"));
  }

  std::vector<registry::TableColumn> table_columns() const override {
    std::vector<registry::TableColumn> columns{
        registry::name_column(),
        {"Status", "string", "", "Status of the job.", 0},
        {"Completions", "string", "",
         "The number of pods which reached phase Succeeded. The value increases monotonically for a given spec. "
         "However, it may decrease in reaction to scale down of elastic indexed jobs.",
         0},
        {"Duration", "string", "", "Time required to complete the job.", 0},
        registry::age_column()};
    auto wide = batch::job_wide_columns();
    columns.insert(columns.end(), wide.begin(), wide.end());
    return columns;
  }
  json::array table_cells(const json::object& object) const override {
    const json::object* spec = object_at(object, "spec");
    const json::object* status = object_at(object, "status");
    const std::int64_t succeeded = int_or_zero(status, "succeeded");
    std::string completions;
    if (auto wanted = int_at(spec, "completions")) {
      completions = std::to_string(succeeded) + "/" + std::to_string(*wanted);
    } else {
      const std::int64_t parallelism = int_at(spec, "parallelism").value_or(0);
      completions = std::to_string(succeeded) + "/1" + (parallelism > 1 ? " of " + std::to_string(parallelism) : "");
    }
    std::string duration;
    if (std::string_view start = string_at(status, "startTime"); !start.empty()) {
      std::string_view completion = string_at(status, "completionTime");
      if (completion.empty())
        duration = core::since(start);
      else
        duration = registry::human_duration(std::chrono::seconds(core::parse_time(completion) - core::parse_time(start)));
    }
    json::array cells{json::string(registry::meta_string(object, "name")), json::string(status_cell(object)),
                      json::string(completions), json::string(duration), json::string(registry::age_of(object))};
    cells.push_back(containers_cell(object));
    cells.push_back(images_cell(object));
    cells.push_back(json::string(batch::format_label_selector(object_at(spec, "selector"))));
    return cells;
  }

 private:
  static std::string status_cell(const json::object& job) {
    if (condition_true(job, "Complete")) return "Complete";
    if (condition_true(job, "Failed")) return "Failed";
    if (!registry::meta_string(job, "deletionTimestamp").empty()) return "Terminating";
    if (condition_true(job, "Suspended")) return "Suspended";
    if (condition_true(job, "FailureTarget")) return "FailureTarget";
    if (condition_true(job, "SuccessCriteriaMet")) return "SuccessCriteriaMet";
    return "Running";
  }

  // SetDefaults_Job, and SetDefaults_PodSpec on the template.
  static void apply_defaults(json::object& object) {
    json::object& spec = ensure_object(object, "spec");
    if (!int_at(&spec, "completions") && !int_at(&spec, "parallelism")) {
      spec["completions"] = 1;
      spec["parallelism"] = 1;
    }
    if (!int_at(&spec, "parallelism")) spec["parallelism"] = 1;
    if (!int_at(&spec, "backoffLimit"))
      spec["backoffLimit"] = int_at(&spec, "backoffLimitPerIndex") ? std::numeric_limits<std::int32_t>::max() : 6;
    const json::object* template_labels = object_at(object_at(object_at(&spec, "template"), "metadata"), "labels");
    json::object& meta = ensure_object(object, "metadata");
    const json::object* labels = object_at(meta, "labels");
    if (template_labels && (!labels || labels->empty())) meta["labels"] = *template_labels;
    if (!spec.contains("completionMode")) spec["completionMode"] = "NonIndexed";
    if (!spec.contains("suspend")) spec["suspend"] = false;
    registry::fields::for_each_object(object_at(&spec, "podFailurePolicy"), "rules", [](json::object& rule, std::size_t) {
      registry::fields::for_each_object(&rule, "onPodConditions", [](json::object& pattern, std::size_t) {
        registry::fields::default_string(pattern, "status", "True");
      });
    });
    if (!spec.contains("podReplacementPolicy"))
      spec["podReplacementPolicy"] = object_at(spec, "podFailurePolicy") ? "Failed" : "TerminatingOrFailed";
    if (!spec.contains("manualSelector")) spec["manualSelector"] = false;
    batch::apply_job_template_defaults(spec);
  }

  // generateSelector: the template carries the job's name and uid under both label spellings, and the selector
  // picks the uid.
  static void generate_selector(json::object& job) {
    const std::string name(registry::meta_string(job, "name"));
    const std::string uid(registry::meta_string(job, "uid"));
    json::object& spec = ensure_object(job, "spec");
    json::object& labels = ensure_object(ensure_object(ensure_object(spec, "template"), "metadata"), "labels");
    for (std::string_view key : {kLegacyJobNameLabel, kJobNameLabel})
      if (!labels.contains(key)) labels[key] = name;
    for (std::string_view key : {kLegacyControllerUidLabel, kControllerUidLabel})
      if (!labels.contains(key)) labels[key] = uid;
    json::object& match_labels = ensure_object(ensure_object(spec, "selector"), "matchLabels");
    if (!match_labels.contains(kControllerUidLabel)) match_labels[kControllerUidLabel] = uid;
  }

  // ValidateJob: ValidateGeneratedSelector, then ValidateJobSpec.
  static validation::ErrorList validate_job(const json::object& job, bool require_prefixed_labels) {
    validation::ErrorList errors;
    const json::object* spec = object_at(job, "spec");
    const json::object* selector = object_at(spec, "selector");
    const std::string_view name = registry::meta_string(job, "name");
    const std::string_view uid = registry::meta_string(job, "uid");
    if (!bool_at(spec, "manualSelector") && selector) {
      if (uid.empty()) errors.push_back(validation::required(Path("metadata").child("uid")));
      require_label(errors, job, kLegacyControllerUidLabel, uid);
      require_label(errors, job, kLegacyJobNameLabel, name);
      selectors::LabelMap expected;
      if (require_prefixed_labels) {
        require_label(errors, job, kControllerUidLabel, uid);
        require_label(errors, job, kJobNameLabel, name);
        expected = {{std::string(kControllerUidLabel), std::string(uid)}, {std::string(kJobNameLabel), std::string(name)}};
      } else {
        expected = {{std::string(kLegacyControllerUidLabel), std::string(uid)},
                    {std::string(kLegacyJobNameLabel), std::string(name)}};
      }
      if (auto parsed = selectors::label_selector_from_metav1(*selector); parsed && !parsed->matches(expected))
        errors.push_back(validation::invalid_value(Path("spec").child("selector"), label_selector_literal(selector),
                                                   "`selector` not auto-generated"));
    }
    // An Indexed job's pods are named "<job>-<index>": the highest index must still make a DNS label.
    if (auto completions = int_at(spec, "completions");
        string_at(spec, "completionMode") == "Indexed" && completions && *completions > 0) {
      const std::string hostname = std::string(name) + "-" + std::to_string(*completions - 1);
      if (!validation::is_dns1123_label(hostname).empty())
        errors.push_back(validation::invalid(Path("metadata").child("name"), name,
                                             "will not able to create pod with invalid DNS label: " + hostname));
    }
    for (auto& error : batch::validate_job_spec(spec, Path("spec"))) errors.push_back(std::move(error));
    if (!selector) {
      errors.push_back(validation::required(Path("spec").child("selector")));
      return errors;
    }
    std::optional<selectors::LabelSelector> parsed = selectors::label_selector_from_metav1(*selector);
    if (!parsed) {
      errors.push_back(validation::invalid_value(Path("spec").child("selector"), label_selector_literal(selector),
                                                 "invalid label selector"));
      return errors;
    }
    const json::object* template_labels =
        object_at(object_at(object_at(spec, "template"), "metadata"), "labels");
    selectors::LabelMap labels;
    if (template_labels)
      for (const auto& [key, value] : *template_labels)
        if (value.is_string()) labels.emplace(std::string(key), std::string(value.as_string()));
    if (!parsed->matches(labels))
      errors.push_back(validation::invalid_value(Path("spec").child("template").child("metadata").child("labels"),
                                                 label_map_literal(template_labels),
                                                 "`selector` does not match template `labels`"));
    return errors;
  }

  // ValidateJobSpecUpdate: what a job keeps once created.
  static validation::ErrorList validate_spec_update(const json::object& job, const json::object& old) {
    validation::ErrorList errors = validate_selector_unchanged(job, old);
    const json::object* spec = object_at(job, "spec");
    const json::object* old_spec = object_at(old, "spec");
    const Path spec_path("spec");
    auto same = [&](std::string_view member) {
      const json::value* now = spec ? spec->if_contains(member) : nullptr;
      const json::value* before = old_spec ? old_spec->if_contains(member) : nullptr;
      return (!now && !before) || (now && before && *now == *before);
    };
    // Elastic Indexed jobs may scale completions together with parallelism.
    const bool elastic = string_at(spec, "completionMode") == "Indexed" && int_at(spec, "completions") &&
                         int_at(spec, "completions") == int_at(spec, "parallelism") && int_at(old_spec, "completions") &&
                         int_at(old_spec, "completions") == int_at(old_spec, "parallelism");
    if (!elastic && !same("completions"))
      errors.push_back(validation::invalid_value(spec_path.child("completions"), optional_int_literal(spec, "completions"),
                                                 "field is immutable"));
    static const json::object kEmpty;
    const json::object* template_ = object_at(spec, "template");
    const json::object* old_template = object_at(old_spec, "template");
    json::object comparable_old = old_template ? *old_template : json::object();
    const bool suspended_never_started =
        bool_at(old_spec, "suspend") && string_at(object_at(old, "status"), "startTime").empty();
    if (suspended_never_started) comparable_old = template_without_scheduling_directives(comparable_old, template_ ? *template_ : kEmpty);
    if ((template_ ? *template_ : kEmpty) != comparable_old)
      errors.push_back(validation::invalid_value(spec_path.child("template"), "core.PodTemplateSpec{...}",
                                                 "field is immutable"));
    if (!same("completionMode"))
      errors.push_back(validation::invalid_value(spec_path.child("completionMode"),
                                                 optional_string_literal(spec, "completionMode"), "field is immutable"));
    if (!same("podFailurePolicy"))
      errors.push_back(validation::invalid_value(spec_path.child("podFailurePolicy"), "&batch.PodFailurePolicy{...}",
                                                 "field is immutable"));
    if (!same("backoffLimitPerIndex"))
      errors.push_back(validation::invalid_value(spec_path.child("backoffLimitPerIndex"),
                                                 optional_int_literal(spec, "backoffLimitPerIndex"), "field is immutable"));
    if (!same("managedBy"))
      errors.push_back(validation::invalid_value(spec_path.child("managedBy"), optional_string_literal(spec, "managedBy"),
                                                 "field is immutable"));
    if (!same("successPolicy"))
      errors.push_back(validation::invalid_value(spec_path.child("successPolicy"), "&batch.SuccessPolicy{...}",
                                                 "field is immutable"));
    return errors;
  }
};

}  // namespace

ResourceStorage jobs() {
  registry::ResourceDefinition definition{.group = "batch", .version = "v1", .resource = "jobs", .kind = "Job",
                                          .singular = "job", .namespaced = true, .categories = {"all"},
                                          .storage_resource = "jobs", .subresources = {"status"}};
  return {std::move(definition), std::make_shared<JobStrategy>()};
}

}  // namespace kapi::apis
