// The resources served at two versions from one storage, driven by the real kubectl: HorizontalPodAutoscalers at
// autoscaling/v2 and v1 (kube's conversion, the v2-only metrics kept in v1's annotations), and Events at core/v1
// and events.k8s.io/v1 (the same stored objects under the newer names, with the events API's stricter rules).
#include "tests/integration/kapi_suite.h"
#include "tests/integration/kubectl_runner.h"

#include <filesystem>

namespace kapi::integration::autoscaling_events_test {
namespace {

class AutoscalingEventsTest : public KapiSuite<AutoscalingEventsTest> {
 protected:
  CommandResult kubectl(const std::string& arguments, int timeout_seconds = 60) {
    return run_kubectl(kapi(), arguments, timeout_seconds);
  }
  std::string manifest(const std::string& name, const std::string& text) { return write_manifest(kapi(), name, text); }

  void SetUp() override {
    KapiSuite::SetUp();
    ASSERT_TRUE(std::filesystem::exists("/usr/bin/kubectl")) << "kubectl is not installed (scripts/install-deps)";
  }
};

constexpr const char* kTwoMetrics = R"(apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: api
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: api}
  maxReplicas: 10
  metrics:
  - type: Pods
    pods:
      metric: {name: requests_per_second}
      target: {type: AverageValue, averageValue: "100"}
  - type: Resource
    resource:
      name: cpu
      target: {type: Utilization, averageUtilization: 70}
)";

TEST_F(AutoscalingEventsTest, AutoscalerIsOneObjectAtBothVersions) {
  ASSERT_EQ(kubectl("create deployment web --image=nginx").exit_code, 0);
  ASSERT_EQ(kubectl("autoscale deployment web --min=2 --max=5 --cpu-percent=60").output,
            "horizontalpodautoscaler.autoscaling/web autoscaled\n");
  CommandResult table = kubectl("get hpa web");
  EXPECT_NE(table.output.find("NAME   REFERENCE        TARGETS              MINPODS   MAXPODS   REPLICAS   AGE"),
            std::string::npos)
      << table.output;
  EXPECT_NE(table.output.find("web    Deployment/web   cpu: <unknown>/60%   2         5         0"), std::string::npos)
      << table.output;
  EXPECT_EQ(kubectl("get horizontalpodautoscalers.v2.autoscaling web "
                    "-o jsonpath={.spec.metrics[0].resource.target.averageUtilization}")
                .output,
            "60");
  EXPECT_EQ(kubectl("get horizontalpodautoscalers.v1.autoscaling web -o jsonpath={.spec.targetCPUUtilizationPercentage}")
                .output,
            "60");

  // A v2-only metric survives a round trip through v1: v1 carries it in an annotation, a v1 write brings it back.
  ASSERT_EQ(kubectl("apply -f " + manifest("api-hpa.yaml", kTwoMetrics)).exit_code, 0);
  CommandResult v1 = kubectl("get --raw /apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers/api");
  EXPECT_NE(v1.output.find("\"targetCPUUtilizationPercentage\":70"), std::string::npos) << v1.output;
  EXPECT_NE(v1.output.find("\"autoscaling.alpha.kubernetes.io/metrics\":"), std::string::npos) << v1.output;
  EXPECT_NE(v1.output.find("requests_per_second"), std::string::npos) << v1.output;
  EXPECT_NE(v1.output.find("\"minReplicas\":1"), std::string::npos) << "defaulted: " << v1.output;
  CommandResult patched = kubectl(
      "patch horizontalpodautoscalers.v1.autoscaling api --type=merge -p '{\"spec\":{\"maxReplicas\":12}}'");
  EXPECT_EQ(patched.exit_code, 0) << patched.output;
  EXPECT_EQ(kubectl("get hpa api -o jsonpath={.spec.maxReplicas}/{.spec.metrics[0].pods.metric.name}/"
                    "{.spec.metrics[1].resource.target.averageUtilization}")
                .output,
            "12/requests_per_second/70");
  EXPECT_EQ(kubectl("get hpa api -o jsonpath={.metadata.annotations}").output.find("autoscaling.alpha"),
            std::string::npos)
      << "the conversion's annotations are not stored";

  // Status goes through its subresource only, at either version.
  EXPECT_EQ(kubectl("patch horizontalpodautoscalers.v1.autoscaling api --subresource=status --type=merge "
                    "-p '{\"status\":{\"currentReplicas\":3,\"desiredReplicas\":4}}'")
                .exit_code,
            0);
  EXPECT_EQ(kubectl("get hpa api -o jsonpath={.status.currentReplicas}/{.status.desiredReplicas}/{.spec.maxReplicas}")
                .output,
            "3/4/12");
  kubectl("patch hpa api --type=merge -p '{\"status\":{\"desiredReplicas\":9}}'");
  EXPECT_EQ(kubectl("get hpa api -o jsonpath={.status.desiredReplicas}").output, "4");

  // kube's causes for a spec it refuses, with the field paths of the v2 form at both versions.
  CommandResult invalid = kubectl(
      "patch horizontalpodautoscalers.v1.autoscaling api --type=merge -p '{\"spec\":{\"maxReplicas\":0}}'");
  EXPECT_NE(invalid.output.find("spec.maxReplicas: Invalid value: 0: must be greater than 0"), std::string::npos)
      << invalid.output;
  EXPECT_NE(invalid.output.find("spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`"),
            std::string::npos)
      << invalid.output;
  CommandResult no_target = kubectl("apply -f " + manifest("bad-hpa.yaml", R"(apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: bad}
spec:
  scaleTargetRef: {kind: Deployment, name: ""}
  maxReplicas: 3
  metrics:
  - type: Pods
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
  - type: Pods
    pods: {metric: {name: qps}, target: {type: AverageValue, averageValue: "1"}}
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
)"));
  EXPECT_NE(no_target.output.find("spec.scaleTargetRef.name: Required value"), std::string::npos) << no_target.output;
  EXPECT_NE(no_target.output.find("spec.metrics[0].pods: Required value: must populate information for the given "
                                  "metric source"),
            std::string::npos)
      << no_target.output;
  EXPECT_NE(no_target.output.find("spec.metrics[1].resource: Forbidden: must populate the given metric source only"),
            std::string::npos)
      << no_target.output;

  EXPECT_EQ(kubectl("delete horizontalpodautoscalers.v1.autoscaling web").output,
            "horizontalpodautoscaler.autoscaling \"web\" deleted\n");
  EXPECT_EQ(kubectl("get hpa -o name").output, "horizontalpodautoscaler.autoscaling/api\n");
}

TEST_F(AutoscalingEventsTest, AV1WatchSeesV2Writes) {
  ASSERT_EQ(kubectl("apply -f " + manifest("watched-hpa.yaml", R"(apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: watched}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: watched}
  minReplicas: 1
  maxReplicas: 4
)")).exit_code,
            0);
  // The watch starts with the current state and ends at its request timeout.
  CommandResult watched = kubectl(
      "get horizontalpodautoscalers.v1.autoscaling watched --watch --output-watch-events -o "
      "jsonpath='{.type} {.object.apiVersion} {.object.spec.targetCPUUtilizationPercentage}{\"\\n\"}' "
      "--request-timeout=2s");
  EXPECT_NE(watched.output.find("ADDED autoscaling/v1 80"), std::string::npos)
      << "v2's default CPU target, as v1 shows it: " << watched.output;
}

TEST_F(AutoscalingEventsTest, EventsApiServesTheCoreEvents) {
  ASSERT_EQ(kubectl("apply -f " + manifest("event.yaml", R"(apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: scaled, namespace: default}
eventTime: "2026-01-02T03:04:05.000000Z"
reportingController: example.com/scaler
reportingInstance: scaler-1
action: Scaling
reason: Scaled
note: scaled to 3
type: Normal
regarding: {kind: Deployment, name: web, namespace: default}
)")).exit_code,
            0);
  CommandResult core = kubectl("get --raw /api/v1/namespaces/default/events/scaled");
  // Compared as an object: kube prints ObjectReference's fields in struct order (kind, namespace, name).
  EXPECT_EQ(json_object(core.output.substr(core.output.find('{'))).at("involvedObject"),
            boost::json::parse(R"({"kind":"Deployment","name":"web","namespace":"default"})"))
      << core.output;
  EXPECT_NE(core.output.find("\"message\":\"scaled to 3\""), std::string::npos) << core.output;
  EXPECT_NE(core.output.find("\"reportingComponent\":\"example.com/scaler\""), std::string::npos) << core.output;
  CommandResult table = kubectl("get events --field-selector involvedObject.name=web");
  EXPECT_NE(table.output.find("Normal   Scaled   deployment/web   scaled to 3"), std::string::npos) << table.output;

  // An event a core client wrote reads back under the events API's names.
  ASSERT_EQ(kubectl("apply -f " + manifest("core-event.yaml", R"(apiVersion: v1
kind: Event
metadata: {name: pulled, namespace: default}
involvedObject: {kind: Pod, name: p, namespace: default}
reason: Pulled
message: image pulled
source: {component: kubelet, host: node-1}
count: 2
type: Normal
)")).exit_code,
            0);
  EXPECT_EQ(kubectl("get events.v1.events.k8s.io pulled -o jsonpath="
                    "{.regarding.name}/{.note}/{.deprecatedSource.component}/{.deprecatedCount}")
                .output,
            "p/image pulled/kubelet/2");

  // The events API refuses what core/v1 allows, and keeps a written event's fields but its series.
  CommandResult strict = kubectl("apply -f " + manifest("old-style.yaml", R"(apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: old-style, namespace: default}
type: Bogus
deprecatedCount: 3
)"));
  EXPECT_NE(strict.output.find("eventTime: Required value"), std::string::npos) << strict.output;
  EXPECT_NE(strict.output.find("type: Invalid value: \"\": has invalid value: Bogus"), std::string::npos) << strict.output;
  EXPECT_NE(strict.output.find("count: Invalid value: \"\": needs to be unset"), std::string::npos) << strict.output;
  CommandResult changed = kubectl(
      "patch events.v1.events.k8s.io scaled --type=merge -p '{\"note\":\"other\"}'");
  EXPECT_NE(changed.output.find("message: Invalid value: \"other\": field is immutable"), std::string::npos)
      << changed.output;
  CommandResult series = kubectl("patch events.v1.events.k8s.io scaled --type=merge -p "
                                 "'{\"series\":{\"count\":2,\"lastObservedTime\":\"2026-01-02T03:05:00.000000Z\"}}'");
  EXPECT_EQ(series.exit_code, 0) << series.output;
  EXPECT_EQ(kubectl("get event scaled -o jsonpath={.series.count}").output, "2");

  EXPECT_EQ(kubectl("delete events.v1.events.k8s.io scaled").output, "event.events.k8s.io \"scaled\" deleted\n");
  EXPECT_EQ(kubectl("get event scaled").output, "Error from server (NotFound): events \"scaled\" not found\n");
}

}  // namespace
}  // namespace kapi::integration::autoscaling_events_test
