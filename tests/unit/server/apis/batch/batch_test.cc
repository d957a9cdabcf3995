// batch/v1 as kube serves it: robfig/cron's ParseStandard errors, time zone names, and the Job and CronJob
// strategies' definitions, defaults, generated selector and validation messages.
#include "server/apis/batch/batch.h"
#include "server/apis/batch/cron_schedule.h"
#include "server/apis/batch/job_status.h"
#include "tests/unit/server/apis/strategy_testing.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace kapi::apis::batch_test {
namespace {

namespace json = boost::json;
using batch::cron_schedule_error;
using batch::time_zone_error;

using strategy_testing::parse;

using strategy_testing::messages;

TEST(CronScheduleTest, AcceptsWhatParseStandardAccepts) {
  for (std::string_view schedule : {"*/1 * * * *", "0 0 1 1 *", "5-10/2 1,2,3 ? JAN-mar mon-FRI", "@hourly",
                                    "@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight",
                                    "@every 1h30m", "TZ=UTC 0 * * * *", "CRON_TZ=Europe/Paris @daily", "3/10 * * * 0",
                                    "  0   12 * * *  "})
    EXPECT_EQ(cron_schedule_error(schedule), std::nullopt) << schedule;
}

TEST(CronScheduleTest, RefusesWithRobfigCronsMessages) {
  EXPECT_EQ(cron_schedule_error(""), "empty spec string");
  EXPECT_EQ(cron_schedule_error("* * * *"), "expected exactly 5 fields, found 4: [* * * *]");
  EXPECT_EQ(cron_schedule_error("0 0 * * * *"), "expected exactly 5 fields, found 6: [0 0 * * * *]");
  EXPECT_EQ(cron_schedule_error("61 * * * *"), "end of range (61) above maximum (59): 61");
  EXPECT_EQ(cron_schedule_error("* 24 * * *"), "end of range (24) above maximum (23): 24");
  EXPECT_EQ(cron_schedule_error("* * 0 * *"), "beginning of range (0) below minimum (1): 0");
  EXPECT_EQ(cron_schedule_error("* * * * 7"), "end of range (7) above maximum (6): 7");
  EXPECT_EQ(cron_schedule_error("5-2 * * * *"), "beginning of range (5) beyond end of range (2): 5-2");
  EXPECT_EQ(cron_schedule_error("*/0 * * * *"), "step of range should be a positive number: */0");
  EXPECT_EQ(cron_schedule_error("1-2-3 * * * *"), "too many hyphens: 1-2-3");
  EXPECT_EQ(cron_schedule_error("*/2/3 * * * *"), "too many slashes: */2/3");
  EXPECT_EQ(cron_schedule_error("x * * * *"), "failed to parse int from x: strconv.Atoi: parsing \"x\": invalid syntax");
  EXPECT_EQ(cron_schedule_error("* * * foo *"),
            "failed to parse int from foo: strconv.Atoi: parsing \"foo\": invalid syntax");
  EXPECT_EQ(cron_schedule_error("@fortnightly"), "unrecognized descriptor: @fortnightly");
  EXPECT_EQ(cron_schedule_error("@every soon"), "failed to parse duration @every soon: time: invalid duration \"soon\"");
  EXPECT_EQ(cron_schedule_error("TZ=Mars/Olympus 0 * * * *"),
            "provided bad location Mars/Olympus: unknown time zone Mars/Olympus");
}

TEST(CronScheduleTest, KnowsTimeZonesAsLoadLocationDoes) {
  EXPECT_EQ(time_zone_error("UTC"), std::nullopt);
  EXPECT_EQ(time_zone_error("Europe/Paris"), std::nullopt);
  EXPECT_EQ(time_zone_error("America/New_York"), std::nullopt);
  EXPECT_EQ(time_zone_error("Mars/Olympus"), "unknown time zone Mars/Olympus");
  EXPECT_EQ(time_zone_error("../etc/passwd"), "unknown time zone ../etc/passwd");
}

TEST(JobsTest, ServedAsKubeNamesThem) {
  ResourceStorage storage = jobs();
  EXPECT_EQ(storage.definition.qualified_resource(), "jobs.batch");
  EXPECT_TRUE(storage.definition.short_names.empty());
  EXPECT_EQ(storage.definition.categories, (std::vector<std::string>{"all"}));
  EXPECT_EQ(storage.definition.subresources, (std::vector<std::string>{"status"}));
  EXPECT_TRUE(storage.strategy->tracks_generation());
  EXPECT_EQ(storage.strategy->selectable_field_names(), (std::vector<std::string>{"status.successful"}));
}

TEST(JobsTest, CreateGeneratesTheSelectorAndDefaults) {
  ResourceStorage storage = jobs();
  json::object job = parse(R"({"metadata":{"name":"pi","uid":"u-1"},"spec":{"template":{"metadata":{"labels":{"app":"pi"}},
      "spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"perl:5"}]}}},"status":{"active":3}})");
  storage.strategy->prepare_for_create(job);
  EXPECT_EQ(job["status"], json::object());
  const auto& spec = job["spec"].as_object();
  EXPECT_EQ(spec.at("selector"), parse(R"({"matchLabels":{"batch.kubernetes.io/controller-uid":"u-1"}})"));
  EXPECT_EQ(spec.at("template").at("metadata").at("labels"),
            parse(R"({"app":"pi","job-name":"pi","batch.kubernetes.io/job-name":"pi","controller-uid":"u-1",
                      "batch.kubernetes.io/controller-uid":"u-1"})"));
  // SetDefaults_Job copies the template's labels as the user sent them.
  EXPECT_EQ(job["metadata"].as_object()["labels"], parse(R"({"app":"pi"})"));
  EXPECT_EQ(spec.at("completions"), 1);
  EXPECT_EQ(spec.at("parallelism"), 1);
  EXPECT_EQ(spec.at("backoffLimit"), 6);
  EXPECT_EQ(spec.at("completionMode"), "NonIndexed");
  EXPECT_EQ(spec.at("podReplacementPolicy"), "TerminatingOrFailed");
  EXPECT_EQ(spec.at("manualSelector"), false);
  EXPECT_EQ(spec.at("template").at("spec").at("containers").at(0).at("imagePullPolicy"), "IfNotPresent");
  EXPECT_EQ(messages(storage.strategy->validate(job)), "");

  json::object parallel = parse(R"({"metadata":{"name":"p","uid":"u"},"spec":{"parallelism":4,
      "template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"x"}]}}}})");
  storage.strategy->prepare_for_create(parallel);
  EXPECT_FALSE(parallel["spec"].as_object().contains("completions"));
  EXPECT_EQ(storage.strategy->table_cells(parallel).at(2), "0/1 of 4");
}

TEST(JobsTest, ValidatesAsKube) {
  ResourceStorage storage = jobs();
  json::object job = parse(R"({"metadata":{"name":"pi","uid":"u-1"},"spec":{"completionMode":"Indexed",
      "parallelism":-1,"template":{"spec":{"restartPolicy":"Always","containers":[{"name":"c","image":"x"}]}}}})");
  storage.strategy->prepare_for_create(job);
  job["spec"].as_object().erase("completions");
  EXPECT_EQ(messages(storage.strategy->validate(job)),
            "spec.parallelism: Invalid value: -1: must be greater than or equal to 0\n"
            "spec.completions: Required value: when completion mode is Indexed\n"
            "spec.template.spec.restartPolicy: Unsupported value: \"Always\": supported values: \"OnFailure\", \"Never\"\n");

  json::object wrong_uid = parse(R"({"metadata":{"name":"pi","uid":"u-1"},"spec":{
      "template":{"metadata":{"labels":{"controller-uid":"other"}},"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"x"}]}}}})");
  storage.strategy->prepare_for_create(wrong_uid);
  std::string text = messages(storage.strategy->validate(wrong_uid));
  EXPECT_NE(text.find("spec.template.metadata.labels[controller-uid]: Invalid value: map[string]string{"), std::string::npos)
      << text;
  EXPECT_NE(text.find(": must be 'u-1'"), std::string::npos) << text;
}

TEST(JobsTest, AnIndexedJobsPodNamesMustBeDnsLabels) {
  ResourceStorage storage = jobs();
  const std::string name(60, 'a');
  json::object job = parse(R"({"metadata":{"uid":"u"},"spec":{"completionMode":"Indexed","completions":1000,
      "template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"x"}]}}}})");
  job["metadata"].as_object()["name"] = name;
  storage.strategy->prepare_for_create(job);
  EXPECT_EQ(messages(storage.strategy->validate(job)),
            "metadata.name: Invalid value: \"" + name + "\": will not able to create pod with invalid DNS label: " +
                name + "-999\n");
}

TEST(JobsTest, ValidatesThePodFailurePolicyAsKube) {
  ResourceStorage storage = jobs();
  json::object job = parse(R"({"metadata":{"name":"pi","uid":"u-1"},"spec":{"podFailurePolicy":{"rules":[
      {"action":"FailJob","onExitCodes":{"containerName":"nope","operator":"In","values":[3,0,3,1]}},
      {"action":"Retry","onPodConditions":[{"type":"DisruptionTarget"}]},
      {"action":"Ignore"}]},
      "template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"x"}]}}}})");
  storage.strategy->prepare_for_create(job);
  EXPECT_EQ(job["spec"].as_object()["podReplacementPolicy"], "Failed");
  EXPECT_EQ(messages(storage.strategy->validate(job)),
            "spec.podFailurePolicy.rules[0].onExitCodes.containerName: Invalid value: \"nope\": must be one of the "
            "container or initContainer names in the pod template\n"
            "spec.podFailurePolicy.rules[0].onExitCodes.values[1]: Invalid value: 0: must not be 0 for the In operator\n"
            "spec.podFailurePolicy.rules[0].onExitCodes.values[2]: Duplicate value: 3\n"
            "spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: []int32{3, 0, 3, 1}: must be ordered\n"
            "spec.podFailurePolicy.rules[1].action: Unsupported value: \"Retry\": supported values: \"Count\", "
            "\"FailIndex\", \"FailJob\", \"Ignore\"\n"
            "spec.podFailurePolicy.rules[2]: Invalid value: specifying one of OnExitCodes and OnPodConditions is "
            "required\n");
}

TEST(JobsTest, TheTemplateIsImmutableUnlessSuspendedAndNeverStarted) {
  ResourceStorage storage = jobs();
  json::object old = parse(R"({"metadata":{"name":"pi","uid":"u-1"},"spec":{"suspend":true,
      "template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"x"}]}}},"status":{}})");
  storage.strategy->prepare_for_create(old);
  json::object scheduled = old;
  scheduled["spec"].as_object()["template"].as_object()["spec"].as_object()["nodeSelector"] = parse(R"({"zone":"a"})");
  EXPECT_EQ(messages(storage.strategy->validate_update(scheduled, old)), "");

  json::object started = old;
  started["status"].as_object()["startTime"] = "2026-01-01T00:00:00Z";
  json::object scheduled_after_start = scheduled;
  scheduled_after_start["status"] = started["status"];
  EXPECT_EQ(messages(storage.strategy->validate_update(scheduled_after_start, started)),
            "spec.template: Invalid value: core.PodTemplateSpec{...}: field is immutable\n");

  json::object more = old;
  more["spec"].as_object()["completions"] = 5;
  EXPECT_EQ(messages(storage.strategy->validate_update(more, old)),
            "spec.completions: Invalid value: 5: field is immutable\n");
}

TEST(JobsTest, StatusChangesFollowKubesTerminalRules) {
  json::object old = parse(R"({"spec":{},"status":{"active":1,"failed":2}})");
  json::object finished = parse(R"({"spec":{},"status":{"active":1,"failed":2,"completionTime":"2026-01-01T00:00:00Z",
      "startTime":"2026-01-01T00:01:00Z","conditions":[{"type":"Complete","status":"True"},{"type":"Failed","status":"True"}]}})");
  EXPECT_EQ(messages(batch::validate_job_status_update(finished, old)),
            "status.conditions: Invalid value: cannot set Complete=True and Failed=true conditions\n"
            "status.completionTime: Invalid value: \"2026-01-01T00:00:00Z\": completionTime cannot be set before startTime\n"
            "status.conditions: Invalid value: cannot set Failed=True condition without the FailureTarget=true condition\n"
            "status.active: Invalid value: 1: active>0 is invalid for finished job\n");
  json::object complete = parse(R"({"spec":{},"status":{"failed":1,"conditions":[{"type":"Complete","status":"True"}]}})");
  EXPECT_EQ(messages(batch::validate_job_status_update(complete, old)),
            "status.completionTime: Required value: completionTime is required for Complete jobs\n"
            "status.startTime: Required value: startTime is required for finished job\n"
            "status.failed: Invalid value: 1: cannot decrease the failed counter\n");
  EXPECT_EQ(messages(batch::validate_job_status_update(old, complete)),
            "status.conditions: Invalid value: cannot disable the terminal Complete=True condition\n");
  // Unchanged fields are not judged again.
  EXPECT_EQ(messages(batch::validate_job_status_update(complete, complete)), "");
}

TEST(JobsTest, PrintsAsPrintJob) {
  ResourceStorage storage = jobs();
  json::object job = parse(R"({"metadata":{"name":"pi","creationTimestamp":"2026-01-01T00:00:00Z"},
      "spec":{"completions":2,"selector":{"matchLabels":{"a":"b"}},
              "template":{"spec":{"containers":[{"name":"c","image":"x"},{"name":"d","image":"y"}]}}},
      "status":{"succeeded":1,"startTime":"2026-01-01T00:00:00Z","completionTime":"2026-01-01T00:02:05Z",
                "conditions":[{"type":"Failed","status":"True"}]}})");
  json::array cells = storage.strategy->table_cells(job);
  ASSERT_EQ(cells.size(), 8u);
  EXPECT_EQ(cells[1], "Failed");
  EXPECT_EQ(cells[2], "1/2");
  EXPECT_EQ(cells[3], "2m5s");
  EXPECT_EQ(cells[5], "c,d");
  EXPECT_EQ(cells[6], "x,y");
  EXPECT_EQ(cells[7], "a=b");
  registry::SelectableFields fields;
  storage.strategy->selectable_fields(job, fields);
  EXPECT_EQ(fields["status.successful"], "1");
}

constexpr std::string_view kCronJob = R"({"metadata":{"name":"tick"},"spec":{"schedule":"*/5 * * * *",
    "concurrencyPolicy":"Allow","jobTemplate":{"spec":{"template":{"spec":{"restartPolicy":"OnFailure",
    "containers":[{"name":"c","image":"busybox"}]}}}}}})";

TEST(CronJobsTest, ServedAsKubeNamesThem) {
  ResourceStorage storage = cronjobs();
  EXPECT_EQ(storage.definition.short_names, (std::vector<std::string>{"cj"}));
  EXPECT_EQ(storage.definition.categories, (std::vector<std::string>{"all"}));
  EXPECT_EQ(storage.definition.subresources, (std::vector<std::string>{"status"}));
  EXPECT_TRUE(storage.strategy->tracks_generation());
}

TEST(CronJobsTest, ValidatesScheduleTimeZoneAndTemplateAsKube) {
  ResourceStorage storage = cronjobs();
  json::object cron = parse(kCronJob);
  storage.strategy->prepare_for_create(cron);
  EXPECT_EQ(messages(storage.strategy->validate(cron)), "");

  json::object bad = cron;
  auto& spec = bad["spec"].as_object();
  spec["schedule"] = "CRON_TZ=UTC * * * *";
  spec["timeZone"] = "Local";
  spec["concurrencyPolicy"] = "Sometimes";
  spec["jobTemplate"].as_object()["spec"].as_object()["selector"] = parse(R"({"matchLabels":{"a":"b"}})");
  EXPECT_EQ(messages(storage.strategy->validate(bad)),
            "spec.schedule: Invalid value: \"CRON_TZ=UTC * * * *\": expected exactly 5 fields, found 4: [* * * *]\n"
            "spec.schedule: Invalid value: \"CRON_TZ=UTC * * * *\": cannot use TZ or CRON_TZ in schedule, use timeZone field instead\n"
            "spec.timeZone: Invalid value: \"Local\": timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones\n"
            "spec.concurrencyPolicy: Unsupported value: \"Sometimes\": supported values: \"Allow\", \"Forbid\", \"Replace\"\n"
            "spec.jobTemplate.spec.selector: Invalid value: &LabelSelector{MatchLabels:map[string]string{a: b,},MatchExpressions:[]LabelSelectorRequirement{},}: `selector` will be auto-generated\n");

  // An old schedule with TZ may keep it on update.
  json::object old = cron;
  old["spec"].as_object()["schedule"] = "TZ=UTC 0 * * * *";
  json::object kept = old;
  EXPECT_EQ(messages(storage.strategy->validate_update(kept, old)), "");

  json::object long_name = cron;
  long_name["metadata"].as_object()["name"] = std::string(53, 'a');
  EXPECT_EQ(messages(storage.strategy->validate(long_name)),
            "metadata.name: Invalid value: \"" + std::string(53, 'a') + "\": must be no more than 52 characters\n");
}

TEST(CronJobsTest, PrintsAsPrintCronJob) {
  ResourceStorage storage = cronjobs();
  json::object cron = parse(kCronJob);
  cron["spec"].as_object()["suspend"] = true;
  cron["spec"].as_object()["timeZone"] = "Europe/Paris";
  cron["status"] = parse(R"({"active":[{"name":"a"},{"name":"b"}]})");
  json::array cells = storage.strategy->table_cells(cron);
  ASSERT_EQ(cells.size(), 10u);
  EXPECT_EQ(cells[1], "*/5 * * * *");
  EXPECT_EQ(cells[2], "Europe/Paris");
  EXPECT_EQ(cells[3], "True");
  EXPECT_EQ(cells[4], 2);
  EXPECT_EQ(cells[5], "<none>");
  EXPECT_EQ(cells[7], "c");
  EXPECT_EQ(cells[9], "<none>");
}

}  // namespace
}  // namespace kapi::apis::batch_test
