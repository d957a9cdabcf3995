// MutatingAdmissionWebhook and ValidatingAdmissionWebhook end to end: webhook configurations created over the
// API act on the next writes (no restart), calling kapi-sample-webhook (tests/support/sample_webhook) over HTTPS
// by URL or through a Service and its Endpoints, with kube's AdmissionReview, patches, refusals, failure
// policies, selectors, warnings, dry run and metrics. Each test works in namespaces of its own, selected by the
// webhooks it creates, so no test's webhooks reach another's objects. On both stores (see tests/meson.build).
#include "tests/integration/admission_webhook_suite.h"

#include "base/host_address.h"

#include <gmock/gmock.h>

#include <functional>
#include <map>
#include <thread>

namespace kapi::integration::admission_webhook_test {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::StartsWith;
namespace json = boost::json;

class AdmissionWebhookTest : public WebhookSuite<AdmissionWebhookTest> {};


// kube-apiserver's webhook client keeps its connections alive; so does kapi's: calls one after another go over the
// same connection (the sample webhook logs each review's client address).
TEST_F(AdmissionWebhookTest, CallsOneAfterAnotherReuseOneKeptAliveConnection) {
  make_namespace("wh-keepalive");
  make_configuration(true, "wh-keepalive", {{"keepalive.example.com", url_config(*server_, "/mutate-add-other-label"), "wh-keepalive"}});
  HttpResponse probe = until("wh-keepalive", configmap("probe"),
                             [](const HttpResponse& r) { return r.status == 201 && r.body.find("other-added") != std::string::npos; });
  ASSERT_EQ(probe.status, 201) << probe.body;
  for (const char* name : {"kept-1", "kept-2", "kept-3"}) {
    HttpResponse created = call("POST", configmaps("wh-keepalive"), configmap(name));
    ASSERT_EQ(created.status, 201) << created.body;
  }
  std::vector<std::string> remotes;
  for (auto& request : server_->requests_for("/mutate-add-other-label")) {
    const json::object& sent = request["review"].as_object().at("request").as_object();
    if (sent.at("namespace") == "wh-keepalive" && sent.contains("name") &&
        sent.at("name").as_string().starts_with("kept-"))
      remotes.push_back(std::string(request["remote"].as_string()));
  }
  ASSERT_EQ(remotes.size(), 3u);
  EXPECT_FALSE(remotes[0].empty());
  EXPECT_EQ(remotes[1], remotes[0]);
  EXPECT_EQ(remotes[2], remotes[0]);
}

TEST_F(AdmissionWebhookTest, AUrlWebhookAddsALabelToTheStoredObjectAndIsSentKubesReview) {
  make_namespace("wh-mutate");
  make_configuration(true, "wh-mutate", {{"add-label.example.com", url_config(*server_, "/mutate-add-label"), "wh-mutate"}});
  HttpResponse probe = until("wh-mutate", configmap("probe"),
                             [](const HttpResponse& r) { return r.status == 201 && r.body.find("webhook-added") != std::string::npos; });
  ASSERT_EQ(probe.status, 201) << probe.body;

  HttpResponse created = call("POST", configmaps("wh-mutate"), configmap("labelled", {{"app", "demo"}}));
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(labels_of(created.body), "app=\"demo\",webhook-added=\"true\"");
  HttpResponse stored = call("GET", configmaps("wh-mutate") + "/labelled");
  EXPECT_EQ(labels_of(stored.body), "app=\"demo\",webhook-added=\"true\"");

  // The review of that create, as kube sends it.
  json::object review;
  for (auto& request : server_->requests_for("/mutate-add-label")) {
    const json::object& sent = request["review"].as_object().at("request").as_object();
    if (sent.contains("name") && sent.at("name") == "labelled" && sent.at("dryRun") == false) review = request;
  }
  ASSERT_FALSE(review.empty());
  EXPECT_EQ(review["query"], "timeout=10s");
  const json::object& sent = review["review"].as_object();
  EXPECT_EQ(sent.at("apiVersion"), "admission.k8s.io/v1");
  EXPECT_EQ(sent.at("kind"), "AdmissionReview");
  const json::object& request = sent.at("request").as_object();
  EXPECT_FALSE(request.at("uid").as_string().empty());
  EXPECT_EQ(json::serialize(request.at("kind")), R"({"group":"","version":"v1","kind":"ConfigMap"})");
  EXPECT_EQ(json::serialize(request.at("resource")), R"({"group":"","version":"v1","resource":"configmaps"})");
  EXPECT_EQ(request.at("requestKind"), request.at("kind"));
  EXPECT_EQ(request.at("requestResource"), request.at("resource"));
  EXPECT_EQ(request.at("namespace"), "wh-mutate");
  EXPECT_EQ(request.at("operation"), "CREATE");
  EXPECT_EQ(request.at("userInfo").as_object().at("username"), "kapi-admin");
  EXPECT_EQ(request.at("object").as_object().at("metadata").as_object().at("name"), "labelled");
  EXPECT_TRUE(request.at("oldObject").is_null());
  EXPECT_EQ(request.at("options").as_object().at("kind"), "CreateOptions");

  // An update is reviewed with the stored object as oldObject.
  HttpResponse updated = call("PUT", configmaps("wh-mutate") + "/labelled", configmap("labelled"));
  ASSERT_EQ(updated.status, 200) << updated.body;
  EXPECT_EQ(labels_of(updated.body), "webhook-added=\"true\"");
  const auto reviews = server_->requests_for("/mutate-add-label");
  const json::object& last = reviews.back().at("review").as_object().at("request").as_object();
  EXPECT_EQ(last.at("operation"), "UPDATE");
  EXPECT_EQ(last.at("oldObject").as_object().at("metadata").as_object().at("labels").as_object().at("app"), "demo");
}

TEST_F(AdmissionWebhookTest, AValidatingWebhookRefusesWithItsStatusAndKubectlPrintsIt) {
  make_namespace("wh-deny");
  make_configuration(false, "wh-deny", {{"deny-label.example.com", url_config(*server_, "/validate-deny-label"), "wh-deny"}});
  HttpResponse denied = until("wh-deny", configmap("bad", {{"deny", "true"}}), refused);
  EXPECT_TRUE(is_status(denied, 403, "Forbidden"));
  EXPECT_EQ(status_message(denied),
            "admission webhook \"deny-label.example.com\" denied the request: the object carries the label deny=true");
  EXPECT_EQ(call("POST", configmaps("wh-deny"), configmap("good")).status, 201);

  const std::string manifest = write_manifest(kapi(), "wh-deny.yaml",
                                              "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bad\n  namespace: wh-deny\n"
                                              "  labels:\n    deny: \"true\"\n");
  CommandResult created = kubectl("create -f " + manifest);
  EXPECT_NE(created.exit_code, 0);
  EXPECT_EQ(created.output, "Error from server (Forbidden): error when creating \"" + manifest +
                                "\": admission webhook \"deny-label.example.com\" denied the request: the object "
                                "carries the label deny=true\n");

  // The refusal is counted as kube counts it.
  HttpResponse metrics = call("GET", "/metrics");
  EXPECT_THAT(metrics.body, HasSubstr("apiserver_admission_webhook_rejection_count{error_type=\"no_error\","
                                      "name=\"deny-label.example.com\",operation=\"CREATE\",rejection_code=\"403\","
                                      "type=\"validating\"}"));
  EXPECT_THAT(metrics.body, HasSubstr("apiserver_admission_webhook_admission_duration_seconds_count{"
                                      "name=\"deny-label.example.com\",operation=\"CREATE\",rejected=\"true\","
                                      "type=\"validating\"}"));
}

TEST_F(AdmissionWebhookTest, ARefusalWithoutACodeIsABadRequest) {
  make_namespace("wh-nocode");
  make_configuration(false, "wh-nocode", {{"no-code.example.com", url_config(*server_, "/deny-no-code"), "wh-nocode"}});
  HttpResponse denied = until("wh-nocode", configmap("any"), refused);
  EXPECT_EQ(denied.status, 400) << denied.body;
  EXPECT_EQ(status_message(denied), "admission webhook \"no-code.example.com\" denied the request: denied by the sample webhook");
}

// A CONNECT (exec, attach, port-forward, proxy) is admitted as kube's ConnectResource admits it: before the pod is
// read, with the request's options decoded from the query as the object.
TEST_F(AdmissionWebhookTest, ConnectRequestsAreReviewedWithTheirOptionsBeforeThePodIsRead) {
  make_namespace("wh-connect");
  Hook reviewed{"connect-reviewed.example.com", url_config(*server_, "/allow"), "wh-connect", "pods/exec"};
  reviewed.operations = {"CONNECT"};
  Hook refused_hook{"connect-refused.example.com", url_config(*server_, "/deny-no-code"), "wh-connect",
                    "pods/portforward"};
  refused_hook.operations = {"CONNECT"};
  make_configuration(false, "wh-connect", {reviewed, refused_hook});

  auto connect_reviews = [] {
    std::vector<json::object> found;
    for (auto& request : server_->requests_for("/allow")) {
      const json::object& sent = request.at("review").as_object().at("request").as_object();
      if (sent.at("operation") == "CONNECT") found.push_back(sent);
    }
    return found;
  };
  const std::string exec = "/api/v1/namespaces/wh-connect/pods/absent/exec?command=ls&command=-l&stdout=true&tty=0"
                           "&container=main";
  HttpResponse executed;
  for (auto deadline = std::chrono::steady_clock::now() + 10s;
       connect_reviews().empty() && std::chrono::steady_clock::now() < deadline;
       std::this_thread::sleep_for(50ms))
    executed = call("POST", exec);
  ASSERT_FALSE(connect_reviews().empty()) << executed.body;
  EXPECT_TRUE(is_status(executed, 404, "NotFound")) << executed.body;  // admitted, then the pod is looked for
  const json::object request = connect_reviews().back();
  EXPECT_EQ(json::serialize(request.at("kind")), R"({"group":"","version":"v1","kind":"PodExecOptions"})");
  EXPECT_EQ(json::serialize(request.at("resource")), R"({"group":"","version":"v1","resource":"pods"})");
  EXPECT_EQ(request.at("subResource"), "exec");
  EXPECT_EQ(request.at("name"), "absent");
  EXPECT_EQ(request.at("namespace"), "wh-connect");
  EXPECT_EQ(json::serialize(request.at("object")), R"({"kind":"PodExecOptions","apiVersion":"v1","stdout":true,)"
                                                   R"("container":"main","command":["ls","-l"]})");
  EXPECT_TRUE(request.at("oldObject").is_null());
  EXPECT_TRUE(request.at("options").is_null());
  EXPECT_EQ(request.at("dryRun"), false);

  HttpResponse forwarded;
  for (auto deadline = std::chrono::steady_clock::now() + 10s; std::chrono::steady_clock::now() < deadline;
       std::this_thread::sleep_for(50ms)) {
    forwarded = call("POST", "/api/v1/namespaces/wh-connect/pods/absent/portforward?ports=8080");
    if (forwarded.status != 404) break;
  }
  EXPECT_EQ(forwarded.status, 400) << forwarded.body;
  EXPECT_EQ(status_message(forwarded),
            "admission webhook \"connect-refused.example.com\" denied the request: denied by the sample webhook");
}

TEST_F(AdmissionWebhookTest, ConnectionRefusedFailsClosedUnderFailAndOpenUnderIgnore) {
  make_namespace("wh-refused");
  make_namespace("wh-refused-ignore");
  json::object refused_config{{"url", "https://127.0.0.1:1/refused"}, {"caBundle", server_->ca_bundle_base64()}};
  make_configuration(false, "wh-refused", {{"refused.example.com", refused_config, "wh-refused"},
                                           {"refused-ignored.example.com", refused_config, "wh-refused-ignore", "configmaps",
                                            "", "Ignore"}});
  HttpResponse failed = until("wh-refused", configmap("any"), refused);
  EXPECT_TRUE(is_status(failed, 500, "InternalError"));
  EXPECT_EQ(status_message(failed),
            "Internal error occurred: failed calling webhook \"refused.example.com\": failed to call webhook: Post "
            "\"https://127.0.0.1:1/refused?timeout=10s\": dial tcp 127.0.0.1:1: connect: connection refused");
  EXPECT_EQ(call("POST", configmaps("wh-refused-ignore"), configmap("kept")).status, 201);
  EXPECT_THAT(call("GET", "/metrics").body,
              HasSubstr("apiserver_admission_webhook_fail_open_count{name=\"refused-ignored.example.com\","
                        "type=\"validating\"} 1"));
}

TEST_F(AdmissionWebhookTest, ATimeoutFailsWithContextDeadlineExceededUnlessIgnored) {
  make_namespace("wh-slow");
  make_namespace("wh-slow-ignore");
  make_configuration(true, "wh-slow", {{"slow.example.com", url_config(*server_, "/slow"), "wh-slow", "configmaps", "",
                                        "Fail", 1},
                                       {"slow-ignored.example.com", url_config(*server_, "/slow"), "wh-slow-ignore",
                                        "configmaps", "", "Ignore", 1}});
  HttpResponse failed = until("wh-slow", configmap("any"), refused);
  EXPECT_TRUE(is_status(failed, 500, "InternalError"));
  EXPECT_EQ(status_message(failed), "Internal error occurred: failed calling webhook \"slow.example.com\": failed to "
                                    "call webhook: Post \"" + server_->url("/slow") + "?timeout=1s\": context deadline exceeded");
  // Under Ignore the request goes on once the webhook's second is up.
  HttpResponse kept = call("POST", configmaps("wh-slow-ignore"), configmap("kept"));
  EXPECT_EQ(kept.status, 201) << kept.body;
}

TEST_F(AdmissionWebhookTest, InvalidAnswersFailTheCall) {
  make_namespace("wh-garbage");
  make_namespace("wh-uid");
  make_namespace("wh-patch");
  make_configuration(true, "wh-invalid", {{"garbage.example.com", url_config(*server_, "/garbage"), "wh-garbage"},
                                          {"wrong-uid.example.com", url_config(*server_, "/wrong-uid"), "wh-uid"},
                                          {"bad-patch.example.com", url_config(*server_, "/bad-patch"), "wh-patch"}});
  HttpResponse garbage = until("wh-garbage", configmap("any"), refused);
  EXPECT_TRUE(is_status(garbage, 500, "InternalError"));
  EXPECT_EQ(status_message(garbage),
            "Internal error occurred: failed calling webhook \"garbage.example.com\": failed to call webhook: "
            "couldn't get version/kind; json parse error: invalid character 'h' in literal true (expecting 'r')");

  HttpResponse uid = call("POST", configmaps("wh-uid"), configmap("any"));
  EXPECT_TRUE(is_status(uid, 500, "InternalError"));
  EXPECT_THAT(status_message(uid), StartsWith("Internal error occurred: failed calling webhook \"wrong-uid.example.com\": "
                                              "received invalid webhook response: expected response.uid="));
  EXPECT_THAT(status_message(uid), HasSubstr(", got \"not-the-request-uid\""));

  // A patch that does not apply is an internal error whatever the failure policy.
  HttpResponse patch = call("POST", configmaps("wh-patch"), configmap("any", {{"a", "b"}}));
  EXPECT_TRUE(is_status(patch, 500, "InternalError"));
  EXPECT_THAT(status_message(patch), StartsWith("Internal error occurred: "));
  EXPECT_EQ(call("GET", configmaps("wh-patch") + "/any").status, 404);
}

TEST_F(AdmissionWebhookTest, NamespaceAndObjectSelectorsChooseWhatIsSent) {
  make_namespace("wh-selected");
  ASSERT_EQ(call("POST", "/api/v1/namespaces", R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"wh-other"}})").status, 201);
  Hook by_object{"object-selected.example.com", url_config(*server_, "/deny-no-code"), "wh-selected"};
  by_object.object_selector = json::object{{"matchLabels", json::object{{"checked", "yes"}}}};
  make_configuration(false, "wh-selected", {by_object});
  HttpResponse denied = until("wh-selected", configmap("checked", {{"checked", "yes"}}), refused);
  EXPECT_EQ(denied.status, 400) << denied.body;
  // Not selected by the object's labels, nor by the namespace's.
  EXPECT_EQ(call("POST", configmaps("wh-selected"), configmap("unchecked")).status, 201);
  EXPECT_EQ(call("POST", configmaps("wh-other"), configmap("checked", {{"checked", "yes"}})).status, 201);
  // An update is selected by the old object's labels too.
  ASSERT_EQ(call("POST", configmaps("wh-selected"), configmap("to-relabel", {{"checked", "no"}})).status, 201);
  EXPECT_EQ(call("PUT", configmaps("wh-selected") + "/to-relabel", configmap("to-relabel", {{"checked", "yes"}})).status, 400);
}

constexpr std::string_view kGizmos = R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gizmos.webhooks.example.com
spec:
  group: webhooks.example.com
  scope: Namespaced
  names: {plural: gizmos, singular: gizmo, kind: Gizmo}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
)";

TEST_F(AdmissionWebhookTest, AWebhookMutatesCustomResources) {
  make_namespace("wh-gizmos");
  ASSERT_EQ(kubectl("apply -f " + write_manifest(kapi(), "gizmos.yaml", std::string(kGizmos))).exit_code, 0);
  ASSERT_EQ(kubectl("wait --for=condition=Established --timeout=20s crd/gizmos.webhooks.example.com").exit_code, 0);
  make_configuration(true, "wh-gizmos", {{"gizmos.example.com", url_config(*server_, "/mutate-add-label"), "wh-gizmos",
                                          "gizmos", "webhooks.example.com"}});
  const std::string gizmos = "/apis/webhooks.example.com/v1/namespaces/wh-gizmos/gizmos";
  HttpResponse created;
  for (int attempt = 0; attempt < 200; ++attempt) {
    created = call("POST", gizmos + "?dryRun=All",
                   R"({"apiVersion":"webhooks.example.com/v1","kind":"Gizmo","metadata":{"name":"g"},"spec":{"size":1}})");
    if (created.status == 201 && created.body.find("webhook-added") != std::string::npos) break;
    std::this_thread::sleep_for(50ms);
  }
  ASSERT_EQ(created.status, 201) << created.body;
  created = call("POST", gizmos, R"({"apiVersion":"webhooks.example.com/v1","kind":"Gizmo","metadata":{"name":"g"},"spec":{"size":1}})");
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(labels_of(call("GET", gizmos + "/g").body), "webhook-added=\"true\"");
  const auto reviews = server_->requests_for("/mutate-add-label");
  const json::object& request = reviews.back().at("review").as_object().at("request").as_object();
  EXPECT_EQ(json::serialize(request.at("kind")), R"({"group":"webhooks.example.com","version":"v1","kind":"Gizmo"})");
  EXPECT_EQ(json::serialize(request.at("resource")), R"({"group":"webhooks.example.com","version":"v1","resource":"gizmos"})");
  kubectl("delete crd gizmos.webhooks.example.com --wait=false");
}

TEST_F(AdmissionWebhookTest, WarningsBecomeWarningHeaders) {
  make_namespace("wh-warn");
  make_configuration(false, "wh-warn", {{"warn.example.com", url_config(*server_, "/warn"), "wh-warn"}});
  HttpResponse warned = until("wh-warn", configmap("any"), [](const HttpResponse& r) { return r.has_header("Warning"); });
  ASSERT_EQ(warned.status, 201) << warned.body;
  std::vector<std::string> warnings;
  for (const auto& [name, value] : warned.headers)
    if (name == "Warning" || name == "warning") warnings.push_back(value);
  EXPECT_EQ(warnings, (std::vector<std::string>{"299 - \"sample webhook warning one\"", "299 - \"sample webhook warning two\""}));
  CommandResult created = kubectl("create configmap from-kubectl -n wh-warn");
  EXPECT_EQ(created.exit_code, 0) << created.output;
  EXPECT_THAT(created.output, HasSubstr("Warning: sample webhook warning one\n"));
}

TEST_F(AdmissionWebhookTest, AServiceReferencedWebhookIsReachedThroughItsEndpoints) {
  make_namespace("wh-service");
  SampleWebhookProcess behind_service("webhook.wh-service.svc", "0.0.0.0");
  const std::string address = base::first_host_ipv4();
  ASSERT_FALSE(address.empty()) << "Endpoints may not name loopback: this test needs a non-loopback IPv4 address";
  const std::string port = std::to_string(behind_service.port());
  const std::string manifest =
      "apiVersion: v1\nkind: Service\nmetadata:\n  name: webhook\n  namespace: wh-service\nspec:\n  ports:\n"
      "  - name: https\n    port: 443\n    targetPort: " + port +
      "\n---\napiVersion: v1\nkind: Endpoints\nmetadata:\n  name: webhook\n  namespace: wh-service\nsubsets:\n"
      "- addresses:\n  - ip: " + address + "\n  ports:\n  - name: https\n    port: " + port + "\n";
  CommandResult applied = kubectl("apply -f " + write_manifest(kapi(), "wh-service.yaml", manifest));
  ASSERT_EQ(applied.exit_code, 0) << applied.output;
  json::object service_config{
      {"service", json::object{{"namespace", "wh-service"}, {"name", "webhook"}, {"path", "/mutate-add-label"}, {"port", 443}}},
      {"caBundle", behind_service.ca_bundle_base64()}};
  make_configuration(true, "wh-service", {{"service.example.com", service_config, "wh-service"}});
  HttpResponse probe = until("wh-service", configmap("probe"),
                             [](const HttpResponse& r) { return r.status == 201 && r.body.find("webhook-added") != std::string::npos; });
  ASSERT_EQ(probe.status, 201) << probe.body << behind_service.logs();
  HttpResponse created = call("POST", configmaps("wh-service"), configmap("through-service"));
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(labels_of(call("GET", configmaps("wh-service") + "/through-service").body), "webhook-added=\"true\"");
  EXPECT_EQ(behind_service.requests_for("/mutate-add-label").back().at("query"), "timeout=10s");

  // A Service that does not exist fails the dial, in the resolver's words.
  make_namespace("wh-service-missing");
  json::object missing_config{
      {"service", json::object{{"namespace", "wh-service"}, {"name", "nowhere"}, {"path", "/allow"}, {"port", 8443}}},
      {"caBundle", behind_service.ca_bundle_base64()}};
  make_configuration(false, "wh-service-missing", {{"missing.example.com", missing_config, "wh-service-missing"}});
  HttpResponse failed = until("wh-service-missing", configmap("any"), refused);
  EXPECT_TRUE(is_status(failed, 500, "InternalError"));
  EXPECT_EQ(status_message(failed),
            "Internal error occurred: failed calling webhook \"missing.example.com\": failed to call webhook: Post "
            "\"https://nowhere.wh-service.svc:8443/allow?timeout=10s\": service \"nowhere\" not found");
  TearDownConfigurations();
  configurations_.clear();
}

TEST_F(AdmissionWebhookTest, DryRunReachesOnlyWebhooksWithoutSideEffectsAndStoresNothing) {
  make_namespace("wh-dryrun");
  Hook hook{"dry-run.example.com", url_config(*server_, "/mutate-add-label"), "wh-dryrun"};
  hook.side_effects = "NoneOnDryRun";
  make_configuration(true, "wh-dryrun", {hook});
  HttpResponse probe = until("wh-dryrun", configmap("dry"),
                             [](const HttpResponse& r) { return r.status == 201 && r.body.find("webhook-added") != std::string::npos; });
  ASSERT_EQ(probe.status, 201) << probe.body;
  EXPECT_EQ(call("GET", configmaps("wh-dryrun") + "/dry").status, 404);
  const auto reviews = server_->requests_for("/mutate-add-label");
  const json::object& request = reviews.back().at("review").as_object().at("request").as_object();
  EXPECT_EQ(request.at("dryRun"), true);
  EXPECT_EQ(json::serialize(request.at("options").as_object().at("dryRun")), R"(["All"])");
}

TEST_F(AdmissionWebhookTest, AnIfNeededWebhookIsCalledAgainWhenALaterOneChangedTheObject) {
  make_namespace("wh-reinvoke");
  Hook first{"first.example.com", url_config(*server_, "/mutate-add-label"), "wh-reinvoke"};
  first.reinvocation_policy = "IfNeeded";
  first.object_selector = json::object{{"matchLabels", json::object{{"round", "test"}}}};
  Hook second{"second.example.com", url_config(*server_, "/mutate-add-other-label"), "wh-reinvoke"};
  make_configuration(true, "wh-reinvoke-a", {first});
  make_configuration(true, "wh-reinvoke-b", {second});
  HttpResponse probe = until("wh-reinvoke", configmap("probe"),
                             [](const HttpResponse& r) { return r.status == 201 && r.body.find("other-added") != std::string::npos; });
  ASSERT_EQ(probe.status, 201) << probe.body;
  const std::size_t before = server_->requests_for("/mutate-add-label").size();
  HttpResponse created = call("POST", configmaps("wh-reinvoke"), configmap("twice", {{"round", "test"}}));
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(labels_of(created.body), "other-added=\"true\",round=\"test\",webhook-added=\"true\"");
  const auto reviews = server_->requests_for("/mutate-add-label");
  ASSERT_EQ(reviews.size(), before + 2);
  // The second call sees what the later webhook added.
  EXPECT_EQ(labels_of(json::serialize(reviews.back().at("review").at("request").at("object"))),
            "other-added=\"true\",round=\"test\",webhook-added=\"true\"");
}

// kube prepares a new object after admitting it (rest.BeforeCreate): what the strategy derives from the object
// follows a webhook's change, and the webhook sees the object as sent, without the fields the system sets.
TEST_F(AdmissionWebhookTest, TheStrategyPreparesTheObjectAfterTheWebhooksChangedIt) {
  make_namespace("wh-gate");
  Hook gate{"gate.example.com", url_config(*server_, "/mutate-add-scheduling-gate"), "wh-gate", "pods"};
  gate.operations = {"CREATE"};
  make_configuration(true, "wh-gate", {gate});
  const std::string pods = "/api/v1/namespaces/wh-gate/pods";
  auto gated = [](const HttpResponse& response) {
    return response.status == 201 && response.body.find("SchedulingGated") != std::string::npos;
  };
  HttpResponse created;
  for (auto deadline = std::chrono::steady_clock::now() + 10s; std::chrono::steady_clock::now() < deadline;
       std::this_thread::sleep_for(50ms)) {
    created = call("POST", pods + "?dryRun=All", nginx_pod("probe"));
    if (gated(created)) break;
  }
  ASSERT_TRUE(gated(created)) << created.body;
  created = call("POST", pods, nginx_pod("gated"));
  ASSERT_EQ(created.status, 201) << created.body;
  const json::object stored = json_object(created.body);
  EXPECT_EQ(json::serialize(stored.at("status").at("conditions").at(0)),
            R"({"type":"PodScheduled","status":"False","lastProbeTime":null,"lastTransitionTime":null,)"
            R"("reason":"SchedulingGated","message":"Scheduling is blocked due to non-empty scheduling gates"})");
  json::object review;
  for (auto& request : server_->requests_for("/mutate-add-scheduling-gate")) {
    const json::object& sent = request.at("review").as_object().at("request").as_object();
    if (sent.at("dryRun") == false) review = sent;
  }
  ASSERT_FALSE(review.empty());
  // The webhook saw the decoded object as Go writes it, before the strategy: the zero status (not Pending), the zero
  // creation time (null) and no uid.
  const json::object& sent = review.at("object").as_object();
  EXPECT_EQ(sent.at("status"), json::object{});
  EXPECT_FALSE(sent.at("metadata").as_object().contains("uid"));
  EXPECT_TRUE(sent.at("metadata").at("creationTimestamp").is_null());
}

TEST_F(AdmissionWebhookTest, WebhookConfigurationsThemselvesAreNeverSentToWebhooks) {
  // A webhook that fails every create and update of a cluster-scoped object (a namespaceSelector never exempts
  // those): configurations are cluster-scoped too, yet exempt.
  make_configuration(false, "wh-everything", {{"everything.example.com", {{"url", "https://127.0.0.1:1/refused"}},
                                               "wh-nothing-has-this", "*", "*"}});
  HttpResponse refused_role;
  for (auto deadline = std::chrono::steady_clock::now() + 10s; std::chrono::steady_clock::now() < deadline;) {
    refused_role = call("POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles?dryRun=All",
                        R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"wh-any"}})");
    if (refused_role.status == 500) break;
    std::this_thread::sleep_for(50ms);
  }
  ASSERT_EQ(refused_role.status, 500) << refused_role.body;
  const std::string target = std::string(kValidating) + "/wh-everything";
  HttpResponse stored = call("GET", target);
  ASSERT_EQ(stored.status, 200);
  json::object configuration = json::parse(stored.body).as_object();
  configuration["metadata"].as_object()["labels"] = json::object{{"touched", "yes"}};
  HttpResponse updated = call("PUT", target, json::serialize(configuration));
  EXPECT_EQ(updated.status, 200) << updated.body;
  HttpResponse deleted = call("DELETE", target);
  EXPECT_EQ(deleted.status, 200) << deleted.body;
  configurations_.clear();
}

}  // namespace
}  // namespace kapi::integration::admission_webhook_test
