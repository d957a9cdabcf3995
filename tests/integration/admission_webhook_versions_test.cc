// Webhooks and the versions a resource is served at, end to end: under matchPolicy Equivalent a webhook whose
// rules name one version of a resource is called for writes through its other versions, with the objects
// converted to its version and its patch converted back (a two-version CRD; autoscaling/v1 and v2
// HorizontalPodAutoscalers). And kube's reinvocation: a webhook's change runs every mutating plugin once more, so
// LimitRanger defaults the container an IfNeeded webhook added, and the webhook sees that. On both stores.
#include "tests/integration/admission_webhook_suite.h"
#include "tests/integration/crd_setup.h"

#include <gmock/gmock.h>

namespace kapi::integration::admission_webhook_versions_test {
namespace {

using namespace std::chrono_literals;
namespace json = boost::json;

class AdmissionWebhookVersionsTest : public WebhookSuite<AdmissionWebhookVersionsTest> {
 protected:
  // POSTs `body` to `collection` with dryRun=All until `active` holds for the answer (the configurations are in
  // the webhook plugins' cache), at most 10 s; the last answer.
  HttpResponse until_active(const std::string& collection, const std::string& body,
                            const std::function<bool(const HttpResponse&)>& active) {
    HttpResponse response;
    for (auto deadline = std::chrono::steady_clock::now() + 10s; std::chrono::steady_clock::now() < deadline;) {
      response = call("POST", collection + "?dryRun=All", body);
      if (active(response)) break;
      std::this_thread::sleep_for(50ms);
    }
    return response;
  }

  // The review the sample webhook got at `path` for the object named `name` outside dry runs.
  static json::object review_of(std::string_view path, std::string_view name) {
    json::object found;
    for (auto& request : server_->requests_for(path)) {
      const json::object& sent = request.at("review").as_object().at("request").as_object();
      if (sent.contains("name") && sent.at("name").as_string() == name && sent.at("dryRun") == false) found = sent;
    }
    return found;
  }
};

bool has_webhook_label(const HttpResponse& response) {
  return response.status == 201 && response.body.find("webhook-added") != std::string::npos;
}

std::string gvk(const json::value& kind) { return json::serialize(kind); }

TEST_F(AdmissionWebhookVersionsTest, AWebhookOnOneVersionOfACustomResourceSeesWritesThroughTheOtherConverted) {
  const std::string crd =
      "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"
      "metadata: {name: gadgets.versions.example.com}\nspec:\n  group: versions.example.com\n  scope: Namespaced\n"
      "  names: {plural: gadgets, singular: gadget, kind: Gadget}\n  versions:\n"
      "  - name: v1\n    served: true\n    storage: true\n"
      "    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}\n"
      "  - name: v2\n    served: true\n    storage: false\n"
      "    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}\n";
  CommandResult installed = apply_crd_and_wait(kapi(), "gadgets.yaml", crd, "gadgets.versions.example.com");
  ASSERT_EQ(installed.exit_code, 0) << installed.output;
  make_namespace("wh-versions");
  Hook equivalent{"v2-equivalent.example.com", url_config(*server_, "/mutate-add-label"), "wh-versions", "gadgets",
                  "versions.example.com"};
  equivalent.api_version = "v2";
  Hook exact{"v2-exact.example.com", url_config(*server_, "/mutate-add-other-label"), "wh-versions", "gadgets",
             "versions.example.com"};
  exact.api_version = "v2";
  exact.match_policy = "Exact";
  make_configuration(true, "wh-versions", {equivalent, exact});

  const std::string v1 = "/apis/versions.example.com/v1/namespaces/wh-versions/gadgets";
  auto gadget = [](std::string_view version, std::string_view name) {
    return json::serialize(json::object{{"apiVersion", "versions.example.com/" + std::string(version)},
                                        {"kind", "Gadget"},
                                        {"metadata", json::object{{"name", name}}},
                                        {"spec", json::object{{"size", 3}}}});
  };
  HttpResponse probe = until_active(v1, gadget("v1", "probe"), has_webhook_label);
  ASSERT_TRUE(has_webhook_label(probe)) << probe.body;

  HttpResponse created = call("POST", v1, gadget("v1", "through-v1"));
  ASSERT_EQ(created.status, 201) << created.body;
  // The Equivalent webhook's label is kept, in the request's version; the Exact one was not called.
  EXPECT_EQ(labels_of(created.body), "webhook-added=\"true\"");
  EXPECT_EQ(json_object(created.body).at("apiVersion"), "versions.example.com/v1");
  const json::object review = review_of("/mutate-add-label", "through-v1");
  ASSERT_FALSE(review.empty());
  EXPECT_EQ(gvk(review.at("kind")), R"({"group":"versions.example.com","version":"v2","kind":"Gadget"})");
  EXPECT_EQ(gvk(review.at("resource")), R"({"group":"versions.example.com","version":"v2","resource":"gadgets"})");
  EXPECT_EQ(gvk(review.at("requestKind")), R"({"group":"versions.example.com","version":"v1","kind":"Gadget"})");
  EXPECT_EQ(gvk(review.at("requestResource")),
            R"({"group":"versions.example.com","version":"v1","resource":"gadgets"})");
  EXPECT_EQ(review.at("object").at("apiVersion"), "versions.example.com/v2");
  EXPECT_EQ(review.at("object").at("spec"), (json::object{{"size", 3}}));
  EXPECT_TRUE(review_of("/mutate-add-other-label", "through-v1").empty());

  // Through v2 both match as they are.
  HttpResponse direct = call("POST", "/apis/versions.example.com/v2/namespaces/wh-versions/gadgets",
                             gadget("v2", "through-v2"));
  ASSERT_EQ(direct.status, 201) << direct.body;
  EXPECT_EQ(labels_of(direct.body), "other-added=\"true\",webhook-added=\"true\"");
  EXPECT_EQ(review_of("/mutate-add-label", "through-v2").at("requestKind"),
            review_of("/mutate-add-label", "through-v2").at("kind"));
}

TEST_F(AdmissionWebhookVersionsTest, AWebhookOnAutoscalingV2SeesAnAutoscalingV1WriteConverted) {
  make_namespace("wh-hpa");
  Hook hook{"hpa-v2.example.com", url_config(*server_, "/mutate-add-label"), "wh-hpa", "horizontalpodautoscalers",
            "autoscaling"};
  hook.api_version = "v2";
  make_configuration(true, "wh-hpa", {hook});
  const std::string v1 = "/apis/autoscaling/v1/namespaces/wh-hpa/horizontalpodautoscalers";
  auto hpa = [](std::string_view name) {
    return json::serialize(json::object{
        {"apiVersion", "autoscaling/v1"},
        {"kind", "HorizontalPodAutoscaler"},
        {"metadata", json::object{{"name", name}}},
        {"spec", json::object{{"scaleTargetRef", json::object{{"apiVersion", "apps/v1"}, {"kind", "Deployment"},
                                                              {"name", "web"}}},
                              {"minReplicas", 1},
                              {"maxReplicas", 4},
                              {"targetCPUUtilizationPercentage", 50}}}});
  };
  HttpResponse probe = until_active(v1, hpa("probe"), has_webhook_label);
  ASSERT_TRUE(has_webhook_label(probe)) << probe.body;

  HttpResponse created = call("POST", v1, hpa("scaled"));
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(labels_of(created.body), "webhook-added=\"true\"");
  const json::object spec = json_object(created.body).at("spec").as_object();
  EXPECT_EQ(spec.at("targetCPUUtilizationPercentage"), 50);
  // The webhook saw the v2 object: the CPU target is a metric there.
  const json::object review = review_of("/mutate-add-label", "scaled");
  ASSERT_FALSE(review.empty());
  EXPECT_EQ(gvk(review.at("kind")), R"({"group":"autoscaling","version":"v2","kind":"HorizontalPodAutoscaler"})");
  EXPECT_EQ(gvk(review.at("requestKind")), R"({"group":"autoscaling","version":"v1","kind":"HorizontalPodAutoscaler"})");
  const json::object& object = review.at("object").as_object();
  EXPECT_EQ(object.at("apiVersion"), "autoscaling/v2");
  EXPECT_FALSE(object.at("spec").as_object().contains("targetCPUUtilizationPercentage"));
  EXPECT_EQ(json::serialize(object.at("spec").at("metrics")),
            R"([{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":50}}}])");
}

TEST_F(AdmissionWebhookVersionsTest, LimitRangerDefaultsTheSidecarAnIfNeededWebhookAdded) {
  make_namespace("wh-sidecar");
  HttpResponse limits = call("POST", "/api/v1/namespaces/wh-sidecar/limitranges", R"({
      "apiVersion":"v1","kind":"LimitRange","metadata":{"name":"cpu"},
      "spec":{"limits":[{"type":"Container","default":{"cpu":"200m"},"defaultRequest":{"cpu":"100m"}}]}})");
  ASSERT_EQ(limits.status, 201) << limits.body;
  Hook sidecar{"sidecar.example.com", url_config(*server_, "/mutate-add-sidecar"), "wh-sidecar", "pods"};
  sidecar.reinvocation_policy = "IfNeeded";
  sidecar.operations = {"CREATE"};
  make_configuration(true, "wh-sidecar", {sidecar});
  const std::string pods = "/api/v1/namespaces/wh-sidecar/pods";
  // Active once the webhook's sidecar and the limit range's defaults both show.
  auto defaulted_sidecar = [](const HttpResponse& response) {
    return response.status == 201 && response.body.find("\"sidecar\"") != std::string::npos &&
           response.body.find("200m") != std::string::npos;
  };
  HttpResponse probe = until_active(pods, nginx_pod("probe"), defaulted_sidecar);
  ASSERT_TRUE(defaulted_sidecar(probe)) << probe.body;

  const std::size_t before = server_->requests_for("/mutate-add-sidecar").size();
  HttpResponse created = call("POST", pods, nginx_pod("injected"));
  ASSERT_EQ(created.status, 201) << created.body;
  const json::array containers = json_object(created.body).at("spec").at("containers").as_array();
  ASSERT_EQ(containers.size(), 2u);
  EXPECT_EQ(containers[1].at("name"), "sidecar");
  EXPECT_EQ(json::serialize(containers[1].at("resources")),
            R"({"limits":{"cpu":"200m"},"requests":{"cpu":"100m"}})");
  EXPECT_EQ(json::serialize(containers[0].at("resources")),
            R"({"limits":{"cpu":"200m"},"requests":{"cpu":"100m"}})");
  // Called twice: the second time (reinvoked because LimitRanger changed the object after it) with the sidecar as
  // LimitRanger left it.
  const auto reviews = server_->requests_for("/mutate-add-sidecar");
  ASSERT_EQ(reviews.size(), before + 2);
  const json::value& seen = reviews.back().at("review").at("request").at("object").at("spec").at("containers");
  EXPECT_EQ(json::serialize(seen.at(1).at("resources")), R"({"limits":{"cpu":"200m"},"requests":{"cpu":"100m"}})");
}

}  // namespace
}  // namespace kapi::integration::admission_webhook_versions_test
