// HorizontalPodAutoscalers at two versions: kube's v1 ⇄ v2 conversion (pkg/apis/autoscaling/v1/conversion.go)
// keeps every v2 field across a v1 round trip, defaults apply as SetDefaults_HorizontalPodAutoscaler does, and
// validation reports ValidateHorizontalPodAutoscaler's causes on the v2 form at either version.
#include "server/apis/autoscaling/autoscaling.h"
#include "server/apis/autoscaling/hpa.h"
#include "server/apis/events/events.h"
#include "tests/unit/server/apis/strategy_testing.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace kapi::apis::horizontalpodautoscalers_test {
namespace {

namespace json = boost::json;

using strategy_testing::parse;

using strategy_testing::messages;

constexpr std::string_view kV2 = R"({"kind":"HorizontalPodAutoscaler","apiVersion":"autoscaling/v2",
  "metadata":{"name":"api","namespace":"default","annotations":{"team":"a"}},
  "spec":{"scaleTargetRef":{"kind":"Deployment","name":"api","apiVersion":"apps/v1"},"minReplicas":2,"maxReplicas":9,
    "metrics":[{"type":"Pods","pods":{"metric":{"name":"qps"},"target":{"type":"AverageValue","averageValue":"100"}}},
               {"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":70}}}]},
  "status":{"currentReplicas":3,"desiredReplicas":4,
    "currentMetrics":[{"type":"Resource","resource":{"name":"cpu","current":{"averageValue":"200m","averageUtilization":65}}}],
    "conditions":[{"type":"AbleToScale","status":"True","lastTransitionTime":"2026-01-01T00:00:00Z","reason":"Ready"}]}})";

TEST(HorizontalPodAutoscalerConversionTest, V1CarriesWhatItCannotSayInAnnotations) {
  auto conversion = autoscaling::hpa_v1_conversion();
  json::object v1 = conversion->from_storage(parse(kV2));
  EXPECT_EQ(v1.at("apiVersion"), "autoscaling/v1");
  EXPECT_EQ(json::serialize(v1.at("spec")),
            R"({"scaleTargetRef":{"kind":"Deployment","name":"api","apiVersion":"apps/v1"},"minReplicas":2,)"
            R"("maxReplicas":9,"targetCPUUtilizationPercentage":70})");
  EXPECT_EQ(json::serialize(v1.at("status")),
            R"({"currentReplicas":3,"desiredReplicas":4,"currentCPUUtilizationPercentage":65})");
  const json::object& annotations = v1.at("metadata").at("annotations").as_object();
  EXPECT_EQ(annotations.at("autoscaling.alpha.kubernetes.io/metrics"),
            R"([{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"100"}}])");
  EXPECT_EQ(annotations.at("autoscaling.alpha.kubernetes.io/current-metrics"),
            R"([{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":65,"currentAverageValue":"200m"}}])");
  EXPECT_EQ(annotations.at("team"), "a");

  // And back: the same object as stored, the conversion's annotations gone.
  json::object v2 = conversion->to_storage(std::move(v1));
  json::object expected = parse(kV2);
  EXPECT_EQ(v2.at("metadata"), expected.at("metadata"));
  EXPECT_EQ(v2.at("spec"), expected.at("spec"));
  EXPECT_EQ(v2.at("status"), expected.at("status"));
}

TEST(HorizontalPodAutoscalerConversionTest, AV1AutoscalerWithoutATargetScalesOnCpuAtEightyPercent) {
  json::object v2 = autoscaling::hpa_v1_conversion()->to_storage(parse(R"({"apiVersion":"autoscaling/v1",
      "kind":"HorizontalPodAutoscaler","metadata":{"name":"web"},
      "spec":{"scaleTargetRef":{"kind":"Deployment","name":"web"},"maxReplicas":3}})"));
  EXPECT_EQ(json::serialize(v2.at("spec")),
            R"({"scaleTargetRef":{"kind":"Deployment","name":"web"},"maxReplicas":3,"metrics":[{"type":"Resource",)"
            R"("resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":80}}}]})");
  EXPECT_EQ(json::serialize(v2.at("status")), R"({"desiredReplicas":0,"currentMetrics":null})");
}

TEST(HorizontalPodAutoscalerStrategyTest, DefaultsAndValidatesTheV2Form) {
  ResourceStorage v2 = horizontalpodautoscalers_v2();
  EXPECT_EQ(v2.definition.short_names, std::vector<std::string>{"hpa"});
  EXPECT_EQ(v2.definition.categories, std::vector<std::string>{"all"});
  json::object hpa = parse(R"({"metadata":{"name":"web"},"spec":{"scaleTargetRef":{"kind":"Deployment","name":"web"},
      "maxReplicas":3,"behavior":{"scaleDown":{"stabilizationWindowSeconds":60}}}})");
  v2.strategy->prepare_for_create(hpa);
  EXPECT_EQ(json::serialize(hpa.at("spec").at("behavior")),
            R"({"scaleDown":{"selectPolicy":"Max","policies":[{"type":"Percent","value":100,"periodSeconds":15}],)"
            R"("stabilizationWindowSeconds":60},"scaleUp":{"stabilizationWindowSeconds":0,"selectPolicy":"Max",)"
            R"("policies":[{"type":"Pods","value":4,"periodSeconds":15},{"type":"Percent","value":100,"periodSeconds":15}]}})");
  EXPECT_EQ(hpa.at("spec").at("minReplicas"), 1);
  EXPECT_EQ(messages(v2.strategy->validate(hpa)), "");

  json::object invalid = parse(R"({"metadata":{"name":"web"},"spec":{"scaleTargetRef":{"kind":"","name":"a/b"},
      "minReplicas":0,"maxReplicas":0,"metrics":[{"type":"Bogus"},
      {"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":0,"averageValue":"1"}}}],
      "behavior":{"scaleUp":{"policies":[{"type":"Pods","value":0,"periodSeconds":4000}]}}}})");
  EXPECT_EQ(messages(v2.strategy->validate(invalid)),
            "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1\n"
            "spec.maxReplicas: Invalid value: 0: must be greater than 0\n"
            "spec.scaleTargetRef.kind: Required value\n"
            "spec.scaleTargetRef.name: Invalid value: \"a/b\": may not contain '/'\n"
            "spec.metrics[0].type: Unsupported value: \"Bogus\": supported values: \"ContainerResource\", "
            "\"External\", \"Object\", \"Pods\", \"Resource\"\n"
            "spec.metrics[0].type: Unsupported value: \"Bogus\": supported values: \"ContainerResource\", "
            "\"External\", \"Object\", \"Pods\", \"Resource\"\n"
            "spec.metrics[1].resource.target.averageUtilization: Invalid value: 0: must be greater than 0\n"
            "spec.metrics[1].resource.target.averageValue: Forbidden: may not set both a target raw value and a "
            "target utilization\n"
            "spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to "
            "zero replicas\n"
            "spec.behavior.scaleUp.policies[0].value: Invalid value: 0: must be greater than zero\n"
            "spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 4000: must be less than or equal to "
            "1800\n");

  // The v1 resource validates the same v2 form.
  ResourceStorage v1 = horizontalpodautoscalers_v1();
  ASSERT_NE(v1.conversion, nullptr);
  EXPECT_EQ(v1.definition.version, "v1");
}

TEST(EventsApiConversionTest, TheCoreEventUnderTheNewerNames) {
  auto conversion = events_api_events().conversion;
  ASSERT_NE(conversion, nullptr);
  json::object core = parse(R"({"kind":"Event","apiVersion":"v1","metadata":{"name":"e","namespace":"default"},
      "involvedObject":{"kind":"Pod","name":"p"},"reason":"Pulled","message":"done","source":{"component":"kubelet"},
      "firstTimestamp":"2026-01-01T00:00:00Z","lastTimestamp":null,"count":2,"type":"Normal","eventTime":null,
      "reportingComponent":"","reportingInstance":""})");
  json::object served = conversion->from_storage(core);
  EXPECT_EQ(json::serialize(served),
            R"({"kind":"Event","apiVersion":"events.k8s.io/v1","metadata":{"name":"e","namespace":"default"},)"
            R"("eventTime":null,"reason":"Pulled","regarding":{"kind":"Pod","name":"p"},"note":"done","type":"Normal",)"
            R"("deprecatedSource":{"component":"kubelet"},"deprecatedFirstTimestamp":"2026-01-01T00:00:00Z",)"
            R"("deprecatedLastTimestamp":null,"deprecatedCount":2})");
  EXPECT_EQ(conversion->to_storage(served), core);
}

}  // namespace
}  // namespace kapi::apis::horizontalpodautoscalers_test
