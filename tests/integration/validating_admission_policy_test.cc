// ValidatingAdmissionPolicy end to end: policies, bindings and param ConfigMaps created over the API act on the
// next writes (no restart) with kube's answers for Deny, Warn and Audit (the audit log is read back), params not
// found, expressions refused at write, and the status controller's type checking warnings. Also webhook
// matchConditions against kapi-sample-webhook: a condition that is false skips the webhook, errors follow its
// failurePolicy. Each test works in a namespace of its own that its policies select. On both stores.
#include "tests/integration/crd_setup.h"
#include "tests/integration/kapi_suite.h"
#include "tests/support/sample_webhook_process.h"
#include "tests/support/temp_dir.h"

#include <fstream>
#include <functional>
#include <thread>

namespace kapi::integration::validating_admission_policy_test {
namespace {

using namespace std::chrono_literals;
namespace json = boost::json;
using Headers = std::vector<std::pair<std::string, std::string>>;

constexpr std::string_view kPolicies = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies";
constexpr std::string_view kBindings = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings";
constexpr std::string_view kWebhooks = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";

constexpr std::string_view kAuditPolicy = R"(apiVersion: audit.k8s.io/v1
kind: Policy
rules:
  - level: Metadata
    resources: [{group: "", resources: ["configmaps"]}]
  - level: None
)";

std::string configmaps(std::string_view namespace_) {
  return "/api/v1/namespaces/" + std::string(namespace_) + "/configmaps";
}

std::string configmap(std::string_view name, json::object data = {{"a", "1"}}, json::object annotations = {}) {
  json::object metadata{{"name", name}};
  if (!annotations.empty()) metadata["annotations"] = std::move(annotations);
  return json::serialize(json::object{
      {"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", std::move(metadata)}, {"data", std::move(data)}});
}

// A policy on the config maps of namespaces labelled vap-test=<selected>, with a ConfigMap paramKind.
json::object policy_json(const std::string& name, const std::string& selected, json::array validations) {
  return {{"apiVersion", "admissionregistration.k8s.io/v1"},
          {"kind", "ValidatingAdmissionPolicy"},
          {"metadata", json::object{{"name", name}}},
          {"spec",
           json::object{{"failurePolicy", "Fail"},
                        {"paramKind", json::object{{"apiVersion", "v1"}, {"kind", "ConfigMap"}}},
                        {"matchConstraints",
                         json::object{{"resourceRules", json::array{json::object{{"apiGroups", json::array{""}},
                                                                                 {"apiVersions", json::array{"v1"}},
                                                                                 {"operations", json::array{"CREATE"}},
                                                                                 {"resources", json::array{"configmaps"}}}}},
                                      {"namespaceSelector",
                                       json::object{{"matchLabels", json::object{{"vap-test", selected}}}}}}},
                        {"validations", std::move(validations)}}}};
}

json::object binding_json(const std::string& name, const std::string& policy, json::array actions,
                          json::object param_ref) {
  return {{"apiVersion", "admissionregistration.k8s.io/v1"},
          {"kind", "ValidatingAdmissionPolicyBinding"},
          {"metadata", json::object{{"name", name}}},
          {"spec", json::object{{"policyName", policy},
                                {"validationActions", std::move(actions)},
                                {"paramRef", std::move(param_ref)}}}};
}

class ValidatingAdmissionPolicyTest : public KapiSuite<ValidatingAdmissionPolicyTest> {
 public:
  static const test_support::TempDir& dir() {
    static const test_support::TempDir dir{"kapi-vap-suite"};
    return dir;
  }
  static std::filesystem::path log_path() { return dir().path() / "logs" / "audit.log"; }
  static KapiOptions kapi_options() {
    std::ofstream(dir().path() / "policy.yaml") << kAuditPolicy;
    KapiOptions options;
    options.extra_flags = {"--audit-policy-file=" + (dir().path() / "policy.yaml").string(),
                           "--audit-log-path=" + log_path().string()};
    return options;
  }

 protected:
  HttpResponse call(std::string_view method, std::string_view target, std::string_view body = {},
                    Headers headers = {}) {
    headers.emplace_back("Content-Type", "application/json");
    return kapi().connect_admin().request(method, target, headers, body);
  }

  void make_namespace(const std::string& name) {
    HttpResponse created = call("POST", "/api/v1/namespaces",
                                json::serialize(json::object{{"apiVersion", "v1"},
                                                             {"kind", "Namespace"},
                                                             {"metadata", json::object{{"name", name},
                                                                                       {"labels", json::object{{"vap-test", name}}}}}}));
    ASSERT_EQ(created.status, 201) << created.body;
  }
  void create(std::string_view collection, const json::object& object) {
    HttpResponse created = call("POST", collection, json::serialize(object));
    ASSERT_EQ(created.status, 201) << created.body;
  }
  // The tests' policies and bindings go with the suite's kapi; removed so that later tests see only theirs.
  ~ValidatingAdmissionPolicyTest() override {
    for (const auto& [collection, name] : created_) call("DELETE", std::string(collection) + "/" + name);
  }
  void policy(const json::object& object) {
    create(kPolicies, object);
    created_.emplace_back(kPolicies, std::string(object.at("metadata").at("name").as_string()));
  }
  // The status the type checking controller settles on for a policy with `validations` on `group`/`resource`
  // (v1), or an empty object after 10 s.
  json::object type_checked_status(const std::string& name, const std::string& group, const std::string& resource,
                                   json::array validations) {
    json::object checked{
        {"apiVersion", "admissionregistration.k8s.io/v1"},
        {"kind", "ValidatingAdmissionPolicy"},
        {"metadata", json::object{{"name", name}}},
        {"spec", json::object{{"failurePolicy", "Fail"},
                              {"matchConstraints",
                               json::object{{"resourceRules", json::array{json::object{{"apiGroups", json::array{group}},
                                                                                       {"apiVersions", json::array{"v1"}},
                                                                                       {"operations", json::array{"CREATE"}},
                                                                                       {"resources", json::array{resource}}}}}}},
                              {"validations", std::move(validations)}}}};
    policy(checked);
    for (auto deadline = std::chrono::steady_clock::now() + 10s; std::chrono::steady_clock::now() < deadline;
         std::this_thread::sleep_for(50ms)) {
      json::object stored = json_object(call("GET", std::string(kPolicies) + "/" + name).body);
      if (const json::value* found = stored.if_contains("status"); found && found->as_object().contains("observedGeneration"))
        return found->as_object();
    }
    return {};
  }
  void binding(const json::object& object) {
    create(kBindings, object);
    created_.emplace_back(kBindings, std::string(object.at("metadata").at("name").as_string()));
  }

  // A policy acts once the watch caches have it: dry-run creates are retried until `active` holds, at most 10 s.
  HttpResponse until(const std::string& namespace_, const std::string& body,
                     const std::function<bool(const HttpResponse&)>& active, Headers headers = {}) {
    HttpResponse response;
    for (auto deadline = std::chrono::steady_clock::now() + 10s; std::chrono::steady_clock::now() < deadline;) {
      response = call("POST", configmaps(namespace_) + "?dryRun=All", body, headers);
      if (active(response)) break;
      std::this_thread::sleep_for(50ms);
    }
    return response;
  }

  // The audit events of one request, waiting (bounded) for its ResponseComplete.
  static json::object response_complete(const std::string& audit_id) {
    for (auto deadline = std::chrono::steady_clock::now() + 10s; std::chrono::steady_clock::now() < deadline;
         std::this_thread::sleep_for(20ms)) {
      std::ifstream in(log_path());
      for (std::string line; std::getline(in, line);) {
        if (line.find("\"auditID\":\"" + audit_id + "\"") == std::string::npos) continue;
        boost::system::error_code error;
        json::value event = json::parse(line, error);
        if (error) break;
        if (event.as_object().at("stage") == "ResponseComplete") return event.as_object();
      }
    }
    return {};
  }

  std::vector<std::pair<std::string_view, std::string>> created_;
};

bool refused(const HttpResponse& response) { return response.status >= 400; }

const json::array kNameValidation{
    json::object{{"expression", "object.metadata.name != params.data.forbidden"}}};

TEST_F(ValidatingAdmissionPolicyTest, DenyWithAConfigMapParamAnswersKubesStatus) {
  make_namespace("vap-deny");
  create(configmaps("vap-deny"), json::parse(configmap("vap-params", {{"forbidden", "bad"}})).as_object());
  policy(policy_json("vap-deny", "vap-deny", kNameValidation));
  binding(binding_json("vap-deny-binding", "vap-deny", {"Deny"},
                       {{"name", "vap-params"}, {"namespace", "vap-deny"}, {"parameterNotFoundAction", "Deny"}}));
  HttpResponse denied = until("vap-deny", configmap("bad"), refused);
  EXPECT_TRUE(is_status(denied, 422, "Invalid"));
  EXPECT_EQ(status_message(denied),
            "configmaps \"bad\" is forbidden: ValidatingAdmissionPolicy 'vap-deny' with binding 'vap-deny-binding' "
            "denied request: failed expression: object.metadata.name != params.data.forbidden");
  json::object status = json_object(denied.body);
  EXPECT_EQ(json::serialize(status.at("details")),
            R"({"name":"bad","kind":"configmaps","causes":[{"message":"ValidatingAdmissionPolicy 'vap-deny' with )"
            R"(binding 'vap-deny-binding' denied request: failed expression: object.metadata.name != params.data.forbidden"}]})");
  EXPECT_EQ(call("POST", configmaps("vap-deny"), configmap("good")).status, 201);

  // Counted as kube's dispatcher counts a denial (a validation that evaluated to false is an "invalid_error").
  const std::string metrics = call("GET", "/metrics").body;
  EXPECT_NE(metrics.find(R"(apiserver_validating_admission_policy_check_total{enforcement_action="deny",)"
                         R"(error_type="invalid_error",policy="vap-deny",policy_binding="vap-deny-binding"})"),
            std::string::npos);
  EXPECT_NE(metrics.find(R"(apiserver_validating_admission_policy_check_duration_seconds_bucket{)"
                         R"(enforcement_action="deny",error_type="invalid_error",policy="vap-deny",)"
                         R"(policy_binding="vap-deny-binding",le="5e-07"})"),
            std::string::npos);
}

TEST_F(ValidatingAdmissionPolicyTest, WarnSendsKubesWarningHeader) {
  make_namespace("vap-warn");
  create(configmaps("vap-warn"), json::parse(configmap("vap-params", {{"forbidden", "bad"}})).as_object());
  policy(policy_json("vap-warn", "vap-warn", kNameValidation));
  binding(binding_json("vap-warn-binding", "vap-warn", {"Warn"},
                       {{"name", "vap-params"}, {"namespace", "vap-warn"}, {"parameterNotFoundAction", "Deny"}}));
  HttpResponse warned = until("vap-warn", configmap("bad"), [](const HttpResponse& r) { return r.has_header("Warning"); });
  EXPECT_EQ(warned.status, 201) << warned.body;
  EXPECT_EQ(warned.header("Warning").value_or(""),
            "299 - \"Validation failed for ValidatingAdmissionPolicy 'vap-warn' with binding 'vap-warn-binding': "
            "failed expression: object.metadata.name != params.data.forbidden\"");
}

TEST_F(ValidatingAdmissionPolicyTest, AuditWritesKubesValidationFailureAnnotation) {
  make_namespace("vap-audit");
  create(configmaps("vap-audit"), json::parse(configmap("vap-params", {{"forbidden", "bad"}})).as_object());
  policy(policy_json("vap-audit", "vap-audit", kNameValidation));
  binding(binding_json("vap-audit-binding", "vap-audit", {"Audit"},
                       {{"name", "vap-params"}, {"namespace", "vap-audit"}, {"parameterNotFoundAction", "Deny"}}));
  // Active once a Warn binding of the same policy warns: then the Audit binding is in the cache too.
  binding(binding_json("vap-audit-probe", "vap-audit", {"Warn"},
                       {{"name", "vap-params"}, {"namespace", "vap-audit"}, {"parameterNotFoundAction", "Deny"}}));
  HttpResponse probe = until("vap-audit", configmap("bad"), [](const HttpResponse& r) { return r.has_header("Warning"); });
  ASSERT_TRUE(probe.has_header("Warning")) << probe.body;
  HttpResponse created = call("POST", configmaps("vap-audit"), configmap("bad"), {{"Audit-ID", "vap-audit-1"}});
  ASSERT_EQ(created.status, 201) << created.body;
  json::object event = response_complete("vap-audit-1");
  ASSERT_FALSE(event.empty());
  EXPECT_EQ(event.at("annotations").at("validation.policy.admission.k8s.io/validation_failure"),
            R"([{"message":"failed expression: object.metadata.name != params.data.forbidden","policy":"vap-audit",)"
            R"("binding":"vap-audit-binding","expressionIndex":0,"validationActions":["Audit"]}])");
}

TEST_F(ValidatingAdmissionPolicyTest, MissingParamsFollowParameterNotFoundAction) {
  make_namespace("vap-noparams");
  policy(policy_json("vap-noparams", "vap-noparams", kNameValidation));
  binding(binding_json("vap-noparams-binding", "vap-noparams", {"Deny"},
                       {{"name", "absent"}, {"namespace", "vap-noparams"}, {"parameterNotFoundAction", "Deny"}}));
  HttpResponse denied = until("vap-noparams", configmap("any"), refused);
  EXPECT_TRUE(is_status(denied, 403, "Forbidden"));
  EXPECT_EQ(status_message(denied),
            "policy 'vap-noparams' with binding 'vap-noparams-binding' denied request: failed to configure binding: "
            "no params found for policy binding with `Deny` parameterNotFoundAction");
}

// kube's REST mapping finds any served kind: here a cluster-scoped custom resource, selected by label, each
// selected param evaluated in turn.
TEST_F(ValidatingAdmissionPolicyTest, ParamsFromCustomResourcesSelectedByLabel) {
  CommandResult crd = apply_crd_and_wait(
      kapi(), "namerules.yaml",
      single_version_crd("vap.example.com", "namerules", "NameRule", "Cluster", "          forbidden: {type: string}\n"),
      "namerules.vap.example.com");
  ASSERT_EQ(crd.exit_code, 0) << crd.output;
  for (const char* name : {"no-bad", "no-worse"}) {
    HttpResponse created = call("POST", "/apis/vap.example.com/v1/namerules",
                                json::serialize(json::object{{"apiVersion", "vap.example.com/v1"},
                                                             {"kind", "NameRule"},
                                                             {"metadata", json::object{{"name", name},
                                                                                       {"labels", json::object{{"rules", "names"}}}}},
                                                             {"forbidden", std::string(name).substr(3)}}));
    ASSERT_EQ(created.status, 201) << created.body;
  }
  make_namespace("vap-crparams");
  json::object crd_policy = policy_json("vap-crparams", "vap-crparams",
                                        json::array{json::object{{"expression", "object.metadata.name != params.forbidden"}}});
  crd_policy["spec"].as_object()["paramKind"] = json::object{{"apiVersion", "vap.example.com/v1"}, {"kind", "NameRule"}};
  policy(crd_policy);
  binding(binding_json("vap-crparams-binding", "vap-crparams", {"Deny"},
                       {{"selector", json::object{{"matchLabels", json::object{{"rules", "names"}}}}},
                        {"parameterNotFoundAction", "Deny"}}));
  for (const char* name : {"bad", "worse"}) {
    HttpResponse denied = until("vap-crparams", configmap(name), refused);
    EXPECT_TRUE(is_status(denied, 422, "Invalid")) << denied.body;
    EXPECT_EQ(status_message(denied),
              "configmaps \"" + std::string(name) + "\" is forbidden: ValidatingAdmissionPolicy 'vap-crparams' with "
              "binding 'vap-crparams-binding' denied request: failed expression: object.metadata.name != params.forbidden");
  }
  EXPECT_EQ(call("POST", configmaps("vap-crparams"), configmap("fine")).status, 201);
}

TEST_F(ValidatingAdmissionPolicyTest, AnExpressionThatDoesNotCompileIsRefusedAtWrite) {
  json::object bad = policy_json("vap-bad", "vap-bad", json::array{json::object{{"expression", "object.x == nope"}}});
  HttpResponse refused_write = call("POST", kPolicies, json::serialize(bad));
  EXPECT_TRUE(is_status(refused_write, 422, "Invalid"));
  EXPECT_EQ(status_message(refused_write),
            "ValidatingAdmissionPolicy.admissionregistration.k8s.io \"vap-bad\" is invalid: "
            "spec.validations[0].expression: Invalid value: \"object.x == nope\": compilation failed: ERROR: "
            "<input>:1:13: undeclared reference to 'nope' (in container '')\n | object.x == nope\n | ............^");
}

TEST_F(ValidatingAdmissionPolicyTest, TypeCheckingWarningsAreWrittenToStatus) {
  json::object status = type_checked_status("vap-typed", "apps", "deployments",
                                            json::array{json::object{{"expression", "object.spec.replicas > 1"}},
                                                        json::object{{"expression", "object.spec.replica > 1"}}});
  EXPECT_EQ(json::serialize(status),
            R"({"observedGeneration":1,"typeChecking":{"expressionWarnings":[{"fieldRef":"spec.validations[1].expression",)"
            R"("warning":"apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replica'\n | object.spec.replica > 1\n | ...........^\n"}]}})");
}

// A policy on a custom resource is type checked against the CRD's schema.
TEST_F(ValidatingAdmissionPolicyTest, TypeCheckingKnowsCustomResources) {
  CommandResult crd = apply_crd_and_wait(
      kapi(), "gadgets.yaml",
      single_version_crd("vap.example.com", "gadgets", "Gadget", "Namespaced", "          size: {type: integer}\n"),
      "gadgets.vap.example.com");
  ASSERT_EQ(crd.exit_code, 0) << crd.output;
  json::object status =
      type_checked_status("vap-typed-gadgets", "vap.example.com", "gadgets",
                          json::array{json::object{{"expression", "object.size > 1 && has(object.metadata.labels)"}},
                                      json::object{{"expression", "object.sise > 1"}}});
  EXPECT_EQ(json::serialize(status),
            R"({"observedGeneration":1,"typeChecking":{"expressionWarnings":[{"fieldRef":"spec.validations[1].expression",)"
            R"("warning":"vap.example.com/v1, Kind=Gadget: ERROR: <input>:1:7: undefined field 'sise'\n | object.sise > 1\n | ......^\n"}]}})");
}

// Webhook matchConditions: kapi-sample-webhook's /validate-deny-label refuses objects labelled deny=true.
class WebhookMatchConditionsTest : public KapiSuite<WebhookMatchConditionsTest> {
 protected:
  static void SetUpTestSuite() {
    KapiSuite::SetUpTestSuite();
    server_ = std::make_unique<test_support::SampleWebhookProcess>();
  }
  static void TearDownTestSuite() {
    server_.reset();
    KapiSuite::TearDownTestSuite();
  }
  HttpResponse call(std::string_view method, std::string_view target, std::string_view body = {}) {
    return kapi().connect_admin().request(method, target, {{"Content-Type", "application/json"}}, body);
  }
  json::object configuration(const std::string& name, const std::string& failure_policy, const std::string& condition) {
    return {{"apiVersion", "admissionregistration.k8s.io/v1"},
            {"kind", "ValidatingWebhookConfiguration"},
            {"metadata", json::object{{"name", name}}},
            {"webhooks",
             json::array{json::object{
                 {"name", name + ".example.com"},
                 {"clientConfig", json::object{{"url", server_->url("/validate-deny-label")},
                                               {"caBundle", server_->ca_bundle_base64()}}},
                 {"rules", json::array{json::object{{"operations", json::array{"CREATE"}},
                                                    {"apiGroups", json::array{""}},
                                                    {"apiVersions", json::array{"v1"}},
                                                    {"resources", json::array{"configmaps"}}}}},
                 {"failurePolicy", failure_policy},
                 {"sideEffects", "None"},
                 {"admissionReviewVersions", json::array{"v1"}},
                 {"namespaceSelector", json::object{{"matchLabels", json::object{{"mc-test", name}}}}},
                 {"matchConditions", json::array{json::object{{"name", "not-skipped"}, {"expression", condition}}}}}}}};
  }
  void make_namespace(const std::string& name) {
    HttpResponse created = call("POST", "/api/v1/namespaces",
                                json::serialize(json::object{{"apiVersion", "v1"},
                                                             {"kind", "Namespace"},
                                                             {"metadata", json::object{{"name", name},
                                                                                       {"labels", json::object{{"mc-test", name}}}}}}));
    ASSERT_EQ(created.status, 201) << created.body;
  }
  HttpResponse until(const std::string& namespace_, const std::string& body) {
    HttpResponse response;
    for (auto deadline = std::chrono::steady_clock::now() + 10s; std::chrono::steady_clock::now() < deadline;) {
      response = call("POST", configmaps(namespace_) + "?dryRun=All", body);
      if (refused(response)) break;
      std::this_thread::sleep_for(50ms);
    }
    return response;
  }
  static std::string labelled(std::string_view name, json::object annotations = {}) {
    json::object metadata{{"name", name}, {"labels", json::object{{"deny", "true"}}}};
    if (!annotations.empty()) metadata["annotations"] = std::move(annotations);
    return json::serialize(json::object{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", std::move(metadata)}});
  }

  static inline std::unique_ptr<test_support::SampleWebhookProcess> server_;
};

TEST_F(WebhookMatchConditionsTest, AFalseConditionSkipsTheWebhook) {
  make_namespace("mc-skip");
  HttpResponse created = call(
      "POST", kWebhooks,
      json::serialize(configuration("mc-skip", "Fail",
                                    "!has(object.metadata.annotations) || !('skip' in object.metadata.annotations)")));
  ASSERT_EQ(created.status, 201) << created.body;
  HttpResponse denied = until("mc-skip", labelled("called"));
  EXPECT_TRUE(is_status(denied, 403, "Forbidden"));
  EXPECT_EQ(status_message(denied), "admission webhook \"mc-skip.example.com\" denied the request: the object carries "
                                    "the label deny=true");
  HttpResponse skipped = call("POST", configmaps("mc-skip"), labelled("skipped", {{"skip", "yes"}}));
  EXPECT_EQ(skipped.status, 201) << skipped.body;
  call("DELETE", std::string(kWebhooks) + "/mc-skip");

  const std::string metrics = call("GET", "/metrics").body;
  EXPECT_NE(metrics.find(R"(apiserver_admission_match_condition_exclusions_total{kind="webhook",)"
                         R"(name="mc-skip.example.com",operation="CREATE",type="validating"} 1)"),
            std::string::npos);
  EXPECT_NE(metrics.find(R"(apiserver_admission_match_condition_evaluation_seconds_count{kind="webhook",)"
                         R"(name="mc-skip.example.com",operation="CREATE",type="validating"})"),
            std::string::npos);
}

// The same conditions on a mutating webhook: /mutate-add-label adds webhook-added=true unless the condition excludes
// the request.
TEST_F(WebhookMatchConditionsTest, AFalseConditionSkipsAMutatingWebhook) {
  make_namespace("mc-mutate");
  json::object mutating = configuration("mc-mutate", "Fail",
                                        "!has(object.metadata.annotations) || !('skip' in object.metadata.annotations)");
  mutating["kind"] = "MutatingWebhookConfiguration";
  json::object& webhook = mutating["webhooks"].as_array()[0].as_object();
  webhook["clientConfig"].as_object()["url"] = server_->url("/mutate-add-label");
  webhook["reinvocationPolicy"] = "Never";
  constexpr std::string_view kMutatingWebhooks = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations";
  HttpResponse created = call("POST", kMutatingWebhooks, json::serialize(mutating));
  ASSERT_EQ(created.status, 201) << created.body;

  const auto label_added = [](const HttpResponse& response) {
    return response.status == 201 && response.body.find(R"("webhook-added":"true")") != std::string::npos;
  };
  HttpResponse mutated;
  for (auto deadline = std::chrono::steady_clock::now() + 10s; std::chrono::steady_clock::now() < deadline;) {
    mutated = call("POST", configmaps("mc-mutate") + "?dryRun=All", labelled("called"));
    if (label_added(mutated)) break;
    std::this_thread::sleep_for(50ms);
  }
  EXPECT_TRUE(label_added(mutated)) << mutated.body;
  HttpResponse skipped = call("POST", configmaps("mc-mutate"), labelled("skipped", {{"skip", "yes"}}));
  EXPECT_EQ(skipped.status, 201) << skipped.body;
  EXPECT_FALSE(label_added(skipped)) << skipped.body;
  call("DELETE", std::string(kMutatingWebhooks) + "/mc-mutate");

  EXPECT_NE(call("GET", "/metrics").body.find(R"(apiserver_admission_match_condition_exclusions_total{kind="webhook",)"
                                              R"(name="mc-mutate.example.com",operation="CREATE",type="admit"} 1)"),
            std::string::npos);
}

TEST_F(WebhookMatchConditionsTest, ConditionErrorsFollowTheFailurePolicy) {
  make_namespace("mc-error");
  HttpResponse created =
      call("POST", kWebhooks, json::serialize(configuration("mc-error", "Fail", "object.metadata.annotations.x == 'y'")));
  ASSERT_EQ(created.status, 201) << created.body;
  HttpResponse denied = until("mc-error", labelled("any"));
  EXPECT_TRUE(is_status(denied, 403, "Forbidden"));
  EXPECT_EQ(status_message(denied), "configmaps \"any\" is forbidden: expression 'object.metadata.annotations.x == "
                                    "'y'' resulted in error: no such key: annotations");
  call("DELETE", std::string(kWebhooks) + "/mc-error");
  EXPECT_NE(call("GET", "/metrics").body.find(R"(apiserver_admission_match_condition_evaluation_errors_total{)"
                                              R"(kind="webhook",name="mc-error.example.com",operation="CREATE",)"
                                              R"(type="validating"})"),
            std::string::npos);
}

TEST_F(WebhookMatchConditionsTest, AConditionThatDoesNotCompileIsRefusedAtWrite) {
  HttpResponse refused_write =
      call("POST", kWebhooks, json::serialize(configuration("mc-bad", "Fail", "request.foo == 1")));
  EXPECT_TRUE(is_status(refused_write, 422, "Invalid"));
  EXPECT_EQ(status_message(refused_write),
            "ValidatingWebhookConfiguration.admissionregistration.k8s.io \"mc-bad\" is invalid: "
            "webhooks[0].matchConditions[0].expression: Invalid value: \"request.foo == 1\": compilation failed: "
            "ERROR: <input>:1:8: undefined field 'foo'\n | request.foo == 1\n | .......^");
}

}  // namespace
}  // namespace kapi::integration::validating_admission_policy_test
