// batch/v1 Jobs and CronJobs driven by the real kubectl on both stores: kubectl create job|cronjob (and a job
// from a cron job), the job's generated selector and labels, defaults, the printers (-o wide too), the
// status.successful field selector, a bounded watch, apply/replace/patch, the immutable pod template, the status
// subresource, and kube's 422 causes.
#include "server/schema/transcoder.h"
#include "tests/integration/kapi_suite.h"
#include "tests/integration/kubectl_runner.h"

#include <filesystem>

namespace kapi::integration::batch_resources_test {
namespace {

namespace json = boost::json;
using Headers = std::vector<std::pair<std::string, std::string>>;
const Headers kJson{{"Content-Type", "application/json"}};

class BatchResourcesTest : public KapiSuite<BatchResourcesTest> {
 protected:
  CommandResult kubectl(const std::string& arguments, int timeout_seconds = 60) {
    return run_kubectl(kapi(), arguments, timeout_seconds);
  }
  HttpResponse call(std::string_view method, std::string_view target, std::string_view body = {}) {
    return kapi().connect_admin().request(method, target, kJson, body);
  }
  static std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

  void SetUp() override {
    KapiSuite::SetUp();
    ASSERT_TRUE(std::filesystem::exists("/usr/bin/kubectl")) << "kubectl is not installed (scripts/install-deps)";
  }
};

TEST_F(BatchResourcesTest, DiscoveryListsJobsAndCronJobsAsKube) {
  CommandResult listed = kubectl("api-resources --api-group=batch -o wide");
  EXPECT_NE(listed.output.find("cronjobs   cj           batch/v1     true         CronJob   create,delete,deletecollection,get,list,patch,update,watch   all"),
            std::string::npos) << listed.output;
  EXPECT_NE(listed.output.find("jobs                    batch/v1     true         Job       create,delete,deletecollection,get,list,patch,update,watch   all"),
            std::string::npos) << listed.output;
}

TEST_F(BatchResourcesTest, KubectlCreatesAJobWithAGeneratedSelector) {
  ASSERT_EQ(kubectl("create job pi --image=busybox -- echo hi").output, "job.batch/pi created\n");
  const std::string uid = kubectl("get job pi -o jsonpath={.metadata.uid}").output;
  ASSERT_FALSE(uid.empty());
  EXPECT_EQ(kubectl("get job pi -o jsonpath={.spec.selector.matchLabels}").output,
            "{\"batch.kubernetes.io/controller-uid\":\"" + uid + "\"}");
  EXPECT_EQ(kubectl("get job pi -o jsonpath={.spec.template.metadata.labels}").output,
            "{\"batch.kubernetes.io/controller-uid\":\"" + uid + "\",\"batch.kubernetes.io/job-name\":\"pi\","
            "\"controller-uid\":\"" + uid + "\",\"job-name\":\"pi\"}");
  EXPECT_EQ(kubectl("get job pi -o jsonpath={.spec.completions}/{.spec.parallelism}/{.spec.backoffLimit}/"
                    "{.spec.completionMode}/{.spec.suspend}/{.spec.manualSelector}/{.spec.podReplacementPolicy}/"
                    "{.metadata.generation}/{.spec.template.spec.restartPolicy}/{.spec.template.spec.dnsPolicy}")
                .output,
            "1/1/6/NonIndexed/false/false/TerminatingOrFailed/1/Never/ClusterFirst");

  CommandResult table = kubectl("get jobs");
  EXPECT_EQ(first_line(table.output), "NAME   STATUS    COMPLETIONS   DURATION   AGE") << table.output;
  EXPECT_NE(table.output.find("pi     Running   0/1"), std::string::npos) << table.output;
  CommandResult wide = kubectl("get job pi -o wide");
  EXPECT_NE(first_line(wide.output).find("CONTAINERS   IMAGES    SELECTOR"), std::string::npos) << wide.output;
  EXPECT_NE(wide.output.find("pi           busybox   batch.kubernetes.io/controller-uid=" + uid), std::string::npos)
      << wide.output;

  // The pod template is fixed once the job exists; its parallelism is not.
  CommandResult image = kubectl("set image job/pi pi=busybox:1.36");
  EXPECT_NE(image.output.find("Job.batch \"pi\" is invalid: spec.template: Invalid value:"), std::string::npos)
      << image.output;
  EXPECT_NE(image.output.find("field is immutable"), std::string::npos) << image.output;
  EXPECT_EQ(kubectl("patch job pi --type=merge -p '{\"spec\":{\"parallelism\":3}}'").output,
            "job.batch/pi patched\n");
  EXPECT_EQ(kubectl("get job pi -o jsonpath={.spec.parallelism}/{.metadata.generation}").output, "3/2");

  // Status goes through its subresource only, and status.successful selects on it.
  kubectl("patch job pi --type=merge -p '{\"status\":{\"succeeded\":1}}'");
  EXPECT_EQ(kubectl("get job pi -o jsonpath={.status.succeeded}").output, "");
  CommandResult status = kubectl("patch job pi --subresource=status --type=merge -p "
                                 "'{\"status\":{\"succeeded\":1,\"startTime\":\"2026-01-01T00:00:00Z\","
                                 "\"completionTime\":\"2026-01-01T00:00:05Z\",\"conditions\":[{\"type\":\"Complete\",\"status\":\"True\"}]}}'");
  EXPECT_EQ(status.output, "job.batch/pi patched\n");
  EXPECT_NE(kubectl("get jobs").output.find("pi     Complete   1/1           5s"), std::string::npos);
  // A finished job stays finished.
  CommandResult undone = kubectl("patch job pi --subresource=status --type=merge -p '{\"status\":{\"conditions\":[]}}'");
  EXPECT_NE(undone.output.find("status.conditions: Invalid value: cannot disable the terminal Complete=True condition"),
            std::string::npos) << undone.output;
  EXPECT_EQ(kubectl("get jobs --field-selector status.successful=1 -o name").output, "job.batch/pi\n");
  EXPECT_EQ(kubectl("get jobs --field-selector status.successful=0 -o name").output, "");
  // Jobs are in the "all" category.
  EXPECT_NE(kubectl("get all -o name").output.find("job.batch/pi\n"), std::string::npos);
  CommandResult negative = kubectl("patch job pi --subresource=status --type=merge -p '{\"status\":{\"failed\":-1}}'");
  EXPECT_NE(negative.output.find("status.failed: Invalid value: -1: must be greater than or equal to 0"),
            std::string::npos) << negative.output;

  CommandResult watched = kubectl("get jobs -w --output-watch-events", 3);
  EXPECT_EQ(watched.exit_code, 124) << watched.output;
  EXPECT_NE(watched.output.find("ADDED"), std::string::npos) << watched.output;
  EXPECT_EQ(kubectl("delete job pi").output, "job.batch \"pi\" deleted\n");
  EXPECT_EQ(kubectl("get jobs -o name").output, "");
}

TEST_F(BatchResourcesTest, ASuspendedJobThatNeverStartedMayChangeItsSchedulingDirectives) {
  const std::string manifest = write_manifest(kapi(), "suspended.yaml", R"(apiVersion: batch/v1
kind: Job
metadata:
  name: suspended
spec:
  suspend: true
  template:
    spec:
      restartPolicy: OnFailure
      containers:
      - name: c
        image: busybox
)");
  ASSERT_EQ(kubectl("apply -f " + manifest).output, "job.batch/suspended created\n");
  EXPECT_EQ(kubectl("patch job suspended --type=merge -p "
                    "'{\"spec\":{\"template\":{\"spec\":{\"nodeSelector\":{\"zone\":\"a\"}}}}}'").output,
            "job.batch/suspended patched\n");
  CommandResult image = kubectl("patch job suspended --type=json -p "
                                "'[{\"op\":\"replace\",\"path\":\"/spec/template/spec/containers/0/image\",\"value\":\"x\"}]'");
  EXPECT_NE(image.output.find("field is immutable"), std::string::npos) << image.output;
  // replace with the stored object round-trips.
  CommandResult yaml = kubectl("get job suspended -o yaml");
  const std::string stored = write_manifest(kapi(), "suspended-stored.yaml", yaml.output);
  EXPECT_EQ(kubectl("replace -f " + stored).output, "job.batch/suspended replaced\n");
  EXPECT_NE(kubectl("get jobs").output.find("suspended   Running"), std::string::npos);
}

TEST_F(BatchResourcesTest, InvalidJobsGetKubesCauses) {
  HttpResponse always = call("POST", "/apis/batch/v1/namespaces/default/jobs",
                             R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"bad"},
                                 "spec":{"backoffLimit":-1,"template":{"spec":{"containers":[{"name":"c","image":"busybox"}]}}}})");
  ASSERT_TRUE(is_status(always, 422, "Invalid")) << always.body;
  EXPECT_EQ(status_message(always),
            "Job.batch \"bad\" is invalid: [spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0, "
            "spec.template.spec.restartPolicy: Unsupported value: \"Always\": supported values: \"OnFailure\", \"Never\"]");
  auto status = json_object(always.body);
  auto& causes = status["details"].as_object()["causes"].as_array();
  ASSERT_EQ(causes.size(), 2u) << always.body;
  EXPECT_EQ(causes[1].as_object()["reason"], "FieldValueNotSupported");
  EXPECT_EQ(causes[1].as_object()["field"], "spec.template.spec.restartPolicy");

  HttpResponse manual = call("POST", "/apis/batch/v1/namespaces/default/jobs",
                             R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"manual"},
                                 "spec":{"manualSelector":true,"selector":{"matchLabels":{"app":"x"}},
                                 "template":{"metadata":{"labels":{"app":"y"}},"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}})");
  ASSERT_TRUE(is_status(manual, 422, "Invalid")) << manual.body;
  EXPECT_EQ(status_message(manual),
            "Job.batch \"manual\" is invalid: spec.template.metadata.labels: Invalid value: "
            "map[string]string{\"app\":\"y\"}: `selector` does not match template `labels`");
}

TEST_F(BatchResourcesTest, KubectlManagesACronJobAndCreatesAJobFromIt) {
  ASSERT_EQ(kubectl("create cronjob tick --image=busybox --schedule='*/1 * * * *' -- date").output,
            "cronjob.batch/tick created\n");
  EXPECT_EQ(kubectl("get cj tick -o jsonpath={.spec.concurrencyPolicy}/{.spec.suspend}/"
                    "{.spec.successfulJobsHistoryLimit}/{.spec.failedJobsHistoryLimit}/{.metadata.generation}/"
                    "{.spec.jobTemplate.spec.template.spec.terminationGracePeriodSeconds}")
                .output,
            "Allow/false/3/1/1/30");
  // The job template keeps no job defaults: the job created from it gets them.
  EXPECT_EQ(kubectl("get cj tick -o jsonpath={.spec.jobTemplate.spec.backoffLimit}").output, "");

  CommandResult table = kubectl("get cronjobs");
  EXPECT_EQ(first_line(table.output), "NAME   SCHEDULE      TIMEZONE   SUSPEND   ACTIVE   LAST SCHEDULE   AGE")
      << table.output;
  EXPECT_NE(table.output.find("tick   */1 * * * *   <none>     False     0        <none>"), std::string::npos)
      << table.output;
  CommandResult wide = kubectl("get cj -o wide");
  EXPECT_NE(first_line(wide.output).find("CONTAINERS   IMAGES    SELECTOR"), std::string::npos) << wide.output;
  EXPECT_NE(wide.output.find("tick         busybox   <none>"), std::string::npos) << wide.output;

  ASSERT_EQ(kubectl("create job manual-tick --from=cronjob/tick").output, "job.batch/manual-tick created\n");
  EXPECT_EQ(kubectl("get job manual-tick -o jsonpath={.metadata.annotations}/{.metadata.ownerReferences[0].kind}/"
                    "{.spec.backoffLimit}")
                .output,
            "{\"cronjob.kubernetes.io/instantiate\":\"manual\"}/CronJob/6");

  EXPECT_EQ(kubectl("patch cj tick -p '{\"spec\":{\"suspend\":true,\"timeZone\":\"Europe/Paris\"}}'").output,
            "cronjob.batch/tick patched\n");
  EXPECT_NE(kubectl("get cj").output.find("tick   */1 * * * *   Europe/Paris   True"), std::string::npos);
  EXPECT_EQ(kubectl("get cj tick -o jsonpath={.metadata.generation}").output, "2");

  // A bounded watch lists what exists and keeps watching until kubectl is stopped.
  CommandResult watched = kubectl("get cronjobs -w", 3);
  EXPECT_EQ(watched.exit_code, 124) << watched.output;
  EXPECT_NE(watched.output.find("tick"), std::string::npos) << watched.output;

  EXPECT_EQ(kubectl("delete cj tick").output, "cronjob.batch \"tick\" deleted\n");
  kubectl("delete job manual-tick");
}

TEST_F(BatchResourcesTest, KubectlAppliesAndReplacesACronJob) {
  const std::string manifest = write_manifest(kapi(), "nightly.yaml", R"(apiVersion: batch/v1
kind: CronJob
metadata:
  name: nightly
spec:
  schedule: "0 3 * * *"
  timeZone: Etc/UTC
  concurrencyPolicy: Forbid
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers:
          - name: c
            image: busybox
)");
  ASSERT_EQ(kubectl("apply -f " + manifest).output, "cronjob.batch/nightly created\n");
  EXPECT_EQ(kubectl("apply -f " + manifest).output, "cronjob.batch/nightly unchanged\n");
  EXPECT_NE(kubectl("get all -o name").output.find("cronjob.batch/nightly\n"), std::string::npos);
  const std::string stored = write_manifest(kapi(), "nightly-stored.yaml", kubectl("get cj nightly -o yaml").output);
  EXPECT_EQ(kubectl("replace -f " + stored).output, "cronjob.batch/nightly replaced\n");
  EXPECT_EQ(kubectl("patch cj nightly --type=json -p '[{\"op\":\"replace\",\"path\":\"/spec/suspend\",\"value\":true}]'").output,
            "cronjob.batch/nightly patched\n");
  EXPECT_EQ(kubectl("get cj nightly -o jsonpath={.spec.timeZone}/{.spec.concurrencyPolicy}").output, "Etc/UTC/Forbid");
  EXPECT_EQ(kubectl("delete -f " + manifest).output, "cronjob.batch \"nightly\" deleted\n");
}

TEST_F(BatchResourcesTest, InvalidCronJobsGetKubesCauses) {
  CommandResult fields = kubectl("create cronjob bad --image=busybox --schedule='* * * *'");
  EXPECT_NE(fields.output.find("spec.schedule: Invalid value: \"* * * *\": expected exactly 5 fields, found 4: [* * * *]"),
            std::string::npos) << fields.output;
  CommandResult range = kubectl("create cronjob bad --image=busybox --schedule='61 * * * *'");
  EXPECT_NE(range.output.find("end of range (61) above maximum (59): 61"), std::string::npos) << range.output;
  CommandResult tz = kubectl("create cronjob bad --image=busybox --schedule='TZ=UTC 0 * * * *'");
  EXPECT_NE(tz.output.find("cannot use TZ or CRON_TZ in schedule, use timeZone field instead"), std::string::npos)
      << tz.output;
  ASSERT_EQ(kubectl("create cronjob hourly --image=busybox --schedule=@hourly").output,
            "cronjob.batch/hourly created\n");
  CommandResult zone = kubectl("patch cj hourly -p '{\"spec\":{\"timeZone\":\"Mars/Olympus\"}}'");
  EXPECT_NE(zone.output.find("spec.timeZone: Invalid value: \"Mars/Olympus\": unknown time zone Mars/Olympus"),
            std::string::npos) << zone.output;
  CommandResult policy = kubectl("patch cj hourly -p '{\"spec\":{\"concurrencyPolicy\":\"Sometimes\"}}'");
  EXPECT_NE(policy.output.find("spec.concurrencyPolicy: Unsupported value: \"Sometimes\": supported values: "
                               "\"Allow\", \"Forbid\", \"Replace\""),
            std::string::npos) << policy.output;
  kubectl("delete cj hourly");
}

// kube's Job REST: batch/v1 orphans a Job's pods by default, so a DELETE that names no policy is told so; one
// that names it is not. DeleteOptions that contradict themselves are refused as kube's handler refuses them.
TEST_F(BatchResourcesTest, DeletingAJobWithoutAPolicyWarnsThatItsPodsStay) {
  const std::string job = R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"NAME"},
      "spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}})";
  auto named = [&](std::string name) {
    std::string body = job;
    return body.replace(body.find("NAME"), 4, name);
  };
  ASSERT_EQ(call("POST", "/apis/batch/v1/namespaces/default/jobs", named("warned")).status, 201);
  ASSERT_EQ(call("POST", "/apis/batch/v1/namespaces/default/jobs", named("quiet")).status, 201);

  HttpResponse warned = call("DELETE", "/apis/batch/v1/namespaces/default/jobs/warned");
  EXPECT_EQ(warned.status, 200) << warned.body;
  EXPECT_EQ(warned.header("Warning").value_or(""),
            "299 - \"child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to "
            "remove them or set propagationPolicy=Orphan to suppress this warning\"");
  HttpResponse quiet = call("DELETE", "/apis/batch/v1/namespaces/default/jobs/quiet?propagationPolicy=Background");
  EXPECT_EQ(quiet.status, 200) << quiet.body;
  EXPECT_FALSE(quiet.has_header("Warning"));

  HttpResponse both = call("DELETE", "/apis/batch/v1/namespaces/default/jobs/quiet",
                           R"({"kind":"DeleteOptions","apiVersion":"v1","orphanDependents":true,"propagationPolicy":"Orphan"})");
  EXPECT_EQ(both.status, 422) << both.body;
  EXPECT_EQ(json::parse(both.body).at("message"),
            "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Invalid value: \"Orphan\": "
            "orphanDependents and deletionPropagation cannot be both set");
  HttpResponse unknown = call("DELETE", "/apis/batch/v1/namespaces/default/jobs/quiet?propagationPolicy=Later");
  EXPECT_EQ(unknown.status, 422) << unknown.body;
  EXPECT_EQ(json::parse(unknown.body).at("message"),
            "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Unsupported value: \"Later\": "
            "supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\"");
}

TEST_F(BatchResourcesTest, JobsAndCronJobsTravelAsProtobuf) {
  ASSERT_EQ(kubectl("create cronjob proto-cron --image=busybox --schedule=@daily").output,
            "cronjob.batch/proto-cron created\n");
  ASSERT_EQ(kubectl("create job proto-job --from=cronjob/proto-cron").output, "job.batch/proto-job created\n");
  const schema::Catalog catalog = schema::Catalog::builtin();
  const schema::Transcoder transcoder(catalog);
  const Headers protobuf{{"Accept", "application/vnd.kubernetes.protobuf"}};
  HttpResponse job = kapi().connect_admin().request("GET", "/apis/batch/v1/namespaces/default/jobs/proto-job", protobuf);
  ASSERT_EQ(job.status, 200);
  json::object decoded = transcoder.decode(job.body);
  EXPECT_EQ(decoded["kind"], "Job");
  EXPECT_EQ(decoded["spec"].as_object()["backoffLimit"], 6);
  EXPECT_EQ(decoded["spec"].as_object()["manualSelector"], false);
  EXPECT_EQ(decoded["spec"].as_object()["template"].as_object()["spec"].as_object()["restartPolicy"], "OnFailure");
  HttpResponse list = kapi().connect_admin().request("GET", "/apis/batch/v1/namespaces/default/cronjobs", protobuf);
  ASSERT_EQ(list.status, 200);
  json::object cronjobs = transcoder.decode(list.body);
  EXPECT_EQ(cronjobs["kind"], "CronJobList");
  ASSERT_EQ(cronjobs["items"].as_array().size(), 1u);
  EXPECT_EQ(cronjobs["items"].as_array()[0].as_object()["spec"].as_object()["schedule"], "@daily");
  kubectl("delete job proto-job");
  kubectl("delete cronjob proto-cron");
}

}  // namespace
}  // namespace kapi::integration::batch_resources_test
