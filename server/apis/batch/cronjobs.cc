// batch/v1 CronJob (pkg/registry/batch/cronjob/strategy.go; pkg/apis/batch/v1/defaults.go SetDefaults_CronJob, as
// +default markers; pkg/apis/batch/validation ValidateCronJobCreate, ValidateCronJobUpdate; printers.printCronJob).
#include "base/go_regexp.h"
#include "server/apis/apps/workload.h"
#include "server/apis/batch/batch.h"
#include "server/apis/batch/cron_schedule.h"
#include "server/apis/batch/job_spec.h"
#include "server/apis/core/core_validation.h"
#include "server/registry/object_meta.h"


namespace kapi::apis {
namespace {

using namespace apps;
using validation::Path;
using registry::fields::bool_at;

// The cronjob controller names its jobs "<cronjob>-<11 characters>", and job names are DNS-1035 labels (63).
constexpr std::size_t kMaxCronJobNameLength = 63 - 11;

// validateTimeZone: each part of the name as the tz database spells them, then time.LoadLocation.
validation::ErrorList validate_time_zone(const json::object* spec, const Path& path) {
  if (!spec || !spec->contains("timeZone")) return {};
  const std::string zone(string_at(spec, "timeZone"));
  if (zone.empty()) return {validation::invalid(path, zone, "timeZone must be nil or non-empty string")};
  static const RE2 kPart("^[A-Za-z\\.\\-_0-9+]{1,14}$", base::go_regexp_options());
  std::size_t start = 0;
  for (;;) {
    std::size_t slash = zone.find('/', start);
    std::string part = zone.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    if (part == "." || part == ".." || (!part.empty() && part[0] == '-') || !RE2::FullMatch(part, kPart))
      return {validation::invalid(path, zone, "unknown time zone " + zone)};
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  validation::ErrorList errors;
  std::string lower = zone;
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "local")
    errors.push_back(validation::invalid(
        path, zone, "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"));
  if (auto error = batch::time_zone_error(zone)) errors.push_back(validation::invalid(path, zone, *error));
  return errors;
}

class CronJobStrategy final : public registry::Strategy {
 public:
  bool tracks_generation() const override { return true; }

  void apply_scheme_defaults(json::object& object) const override { apply_defaults(object); }

  void prepare_for_create(json::object& object) const override {
    object["status"] = json::object();
    apply_defaults(object);
  }
  void prepare_for_update(json::object& object, const json::object& /*old*/) const override { apply_defaults(object); }

  validation::ErrorList validate(const json::object& object) const override {
    validation::ErrorList errors = validate_spec(object, nullptr);
    std::string_view name = registry::meta_string(object, "name");
    if (name.size() > kMaxCronJobNameLength)
      errors.push_back(validation::invalid(Path("metadata").child("name"), name, "must be no more than 52 characters"));
    return errors;
  }
  // The name's length is not checked again, so that older, longer-named cron jobs stay updatable.
  validation::ErrorList validate_update(const json::object& object, const json::object& old) const override {
    return validate_spec(object, &old);
  }

  std::vector<registry::TableColumn> table_columns() const override {
    std::vector<registry::TableColumn> columns{
        registry::name_column(),
        {"Schedule", "string", "", "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.", 0},
        {"Timezone", "string", "",
         "The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. "
         "If not specified, this will default to the time zone of the kube-controller-manager process. The set of "
         "valid time zone names and the time zone offset is loaded from the system-wide time zone database by the API "
         "server during CronJob validation and the controller manager during execution. If no system-wide time zone "
         "database can be found a bundled version of the database is used instead. If the time zone name becomes "
         "invalid during the lifetime of a CronJob or due to a change in host configuration, the controller will stop "
         "creating new new Jobs and will create a system event with the reason UnknownTimeZone. More information can "
         "be found in https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/#time-zones",
         0},
        {"Suspend", "boolean", "",
         "This flag tells the controller to suspend subsequent executions, it does not apply to already started "
         "executions.  Defaults to false.",
         0},
        {"Active", "integer", "", "A list of pointers to currently running jobs.", 0},
        {"Last Schedule", "string", "", "Information when was the last time the job was successfully scheduled.", 0},
        registry::age_column()};
    auto wide = batch::job_wide_columns();
    columns.insert(columns.end(), wide.begin(), wide.end());
    return columns;
  }
  json::array table_cells(const json::object& object) const override {
    const json::object* spec = object_at(object, "spec");
    const json::object* status = object_at(object, "status");
    std::string_view last_schedule = string_at(status, "lastScheduleTime");
    std::string suspend = "<unset>";
    if (spec && spec->contains("suspend")) suspend = bool_at(spec, "suspend") ? "True" : "False";
    const json::array* active = array_at(status, "active");
    json::array cells{json::string(registry::meta_string(object, "name")),
                      json::string(string_at(spec, "schedule")),
                      json::string(spec && spec->contains("timeZone") ? string_at(spec, "timeZone") : "<none>"),
                      json::string(suspend),
                      static_cast<std::int64_t>(active ? active->size() : 0),
                      json::string(last_schedule.empty() ? "<none>" : core::since(last_schedule)),
                      json::string(registry::age_of(object))};
    static const json::object kEmpty;
    const json::object* job_template = object_at(spec, "jobTemplate");
    cells.push_back(containers_cell(job_template ? *job_template : kEmpty));
    cells.push_back(images_cell(job_template ? *job_template : kEmpty));
    cells.push_back(json::string(batch::format_label_selector(object_at(object_at(job_template, "spec"), "selector"))));
    return cells;
  }

 private:
  // SetDefaults_PodSpec on the job template's pods (the CronJob's own defaults are +default markers).
  static void apply_defaults(json::object& object) {
    json::object* job_spec = object_at(object_at(object_at(&object, "spec"), "jobTemplate"), "spec");
    if (job_spec) batch::apply_job_template_defaults(*job_spec);
  }

  // validateCronJobSpec; `old` on update, where a TZ already in the schedule may stay and an unchanged time zone
  // is not checked again.
  static validation::ErrorList validate_spec(const json::object& object, const json::object* old) {
    validation::ErrorList errors;
    const Path spec_path("spec");
    const json::object* spec = object_at(object, "spec");
    const json::object* old_spec = old ? object_at(*old, "spec") : nullptr;
    const std::string schedule(string_at(spec, "schedule"));
    if (schedule.empty()) {
      errors.push_back(validation::required(spec_path.child("schedule")));
    } else {
      if (auto error = batch::cron_schedule_error(schedule))
        errors.push_back(validation::invalid(spec_path.child("schedule"), schedule, *error));
      const bool allow_tz_in_schedule = old && string_at(old_spec, "schedule").find("TZ") != std::string_view::npos;
      const bool mentions_tz = schedule.find("TZ") != std::string::npos;
      if (allow_tz_in_schedule && mentions_tz && spec->contains("timeZone"))
        errors.push_back(validation::invalid(spec_path.child("schedule"), schedule,
                                             "cannot use both timeZone field and TZ or CRON_TZ in schedule"));
      else if (!allow_tz_in_schedule && mentions_tz)
        errors.push_back(validation::invalid(spec_path.child("schedule"), schedule,
                                             "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"));
    }
    if (auto deadline = int_at(spec, "startingDeadlineSeconds"); deadline && *deadline < 0)
      errors.push_back(validation::invalid_value(spec_path.child("startingDeadlineSeconds"), std::to_string(*deadline),
                                                 "must be greater than or equal to 0"));
    const json::value* zone = spec ? spec->if_contains("timeZone") : nullptr;
    const json::value* old_zone = old_spec ? old_spec->if_contains("timeZone") : nullptr;
    const bool zone_unchanged = old && ((!zone && !old_zone) || (zone && old_zone && *zone == *old_zone));
    if (!zone_unchanged)
      for (auto& error : validate_time_zone(spec, spec_path.child("timeZone"))) errors.push_back(std::move(error));
    std::string_view policy = string_at(spec, "concurrencyPolicy");
    if (policy.empty())
      errors.push_back(validation::required(spec_path.child("concurrencyPolicy")));
    else if (policy != "Allow" && policy != "Forbid" && policy != "Replace")
      errors.push_back(validation::not_supported(spec_path.child("concurrencyPolicy"), policy, {"Allow", "Forbid", "Replace"}));
    // ValidateJobTemplateSpec: the jobs' selectors are always generated.
    const Path job_spec_path = spec_path.child("jobTemplate").child("spec");
    const json::object* job_spec = object_at(object_at(spec, "jobTemplate"), "spec");
    for (auto& error : batch::validate_job_spec(job_spec, job_spec_path)) errors.push_back(std::move(error));
    if (const json::object* selector = object_at(job_spec, "selector"))
      errors.push_back(validation::invalid_value(job_spec_path.child("selector"), label_selector_literal(selector),
                                                 "`selector` will be auto-generated"));
    if (bool_at(job_spec, "manualSelector"))
      errors.push_back(validation::not_supported(job_spec_path.child("manualSelector"), "true", {"nil", "false"}));
    for (std::string_view member : {"successfulJobsHistoryLimit", "failedJobsHistoryLimit"})
      if (auto limit = int_at(spec, member); limit && *limit < 0)
        errors.push_back(validation::invalid_value(spec_path.child(member), std::to_string(*limit),
                                                   "must be greater than or equal to 0"));
    return errors;
  }
};

}  // namespace

ResourceStorage cronjobs() {
  registry::ResourceDefinition definition{.group = "batch", .version = "v1", .resource = "cronjobs",
                                          .kind = "CronJob", .singular = "cronjob", .namespaced = true,
                                          .short_names = {"cj"}, .categories = {"all"},
                                          .storage_resource = "cronjobs", .subresources = {"status"}};
  return {std::move(definition), std::make_shared<CronJobStrategy>()};
}

}  // namespace kapi::apis
