// ValidatingAdmissionPolicy through the Plugin interface: policies, bindings, params and namespaces stored in
// real registry Stores over the embedded backend, Attributes built by hand. Expected texts are kube 1.32's
// (policy/validating/dispatcher.go, validator.go, generic/policy_dispatcher.go). Also the status controller's
// type checking against the built-in schemas and the write-time compilation of policies and webhooks.
#include "server/apis/admissionregistration/admission_validation.h"
#include "server/authorization/authorizer.h"
#include "server/plugin/admission/validating_admission_policy/status_controller.h"
#include "server/plugin/admission/validating_admission_policy/type_checking.h"
#include "server/schema/catalog.h"
#include "tests/unit/server/admission/resource_plugin_fixture.h"

namespace kapi::admission {

std::unique_ptr<Plugin> make_validating_admission_policy(const PluginContext& context);

namespace validating_admission_policy_test {
namespace {

namespace json = boost::json;
using testing::PluginFixture;

class ValidatingAdmissionPolicyTest : public PluginFixture {
 protected:
  ValidatingAdmissionPolicyTest()
      : policies_(serve("admissionregistration.k8s.io", "validatingadmissionpolicies", "ValidatingAdmissionPolicy", false)),
        bindings_(serve("admissionregistration.k8s.io", "validatingadmissionpolicybindings",
                        "ValidatingAdmissionPolicyBinding", false)),
        configmaps_(serve("", "configmaps", "ConfigMap", true)),
        namespaces_(serve("", "namespaces", "Namespace", false)) {
    put(namespaces_, "", parse(R"({"metadata":{"name":"default","labels":{"env":"prod"}}})"));
  }

  // A policy on configmaps whose one validation compares the name with params.data.forbidden.
  void policy(std::string_view name, std::string_view spec_extra = "", std::string_view validation = "") {
    std::string text = R"({"metadata":{"name":")" + std::string(name) + R"("},"spec":{"failurePolicy":"Fail",)" +
                       R"("paramKind":{"apiVersion":"v1","kind":"ConfigMap"},)" +
                       R"("matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],)" +
                       R"("operations":["CREATE","UPDATE"],"resources":["configmaps"]}]},)" +
                       R"("validations":[)" +
                       std::string(validation.empty() ? R"({"expression":"object.metadata.name != params.data.forbidden"})"
                                                      : validation) +
                       "]" + std::string(spec_extra) + "}}";
    put(policies_, "", parse(text));
  }

  void binding(std::string_view name, std::string_view policy, std::string_view actions,
               std::string_view param_ref = R"({"name":"params","namespace":"default","parameterNotFoundAction":"Deny"})") {
    std::string text = R"({"metadata":{"name":")" + std::string(name) + R"("},"spec":{"policyName":")" +
                       std::string(policy) + R"(","validationActions":)" + std::string(actions) +
                       (param_ref.empty() ? "" : R"(,"paramRef":)" + std::string(param_ref)) + "}}";
    put(bindings_, "", parse(text));
  }

  void params(std::string_view forbidden) {
    put(configmaps_, "default",
        parse(R"({"metadata":{"name":"params"},"data":{"forbidden":")" + std::string(forbidden) + R"("}})"));
  }

  Attributes create(json::object& object) {
    Attributes request = attributes(Operation::Create, "", "configmaps", "ConfigMap", "default", &object);
    request.context = &context_;
    return request;
  }

  std::unique_ptr<Plugin> plugin() { return make_validating_admission_policy(context()); }

  registry::Store& policies_;
  registry::Store& bindings_;
  registry::Store& configmaps_;
  registry::Store& namespaces_;
  request::RequestContext context_;
};

TEST_F(ValidatingAdmissionPolicyTest, DenyWithParamsAnswersKubesInvalidStatus) {
  policy("no-bad-names");
  binding("no-bad-names-binding", "no-bad-names", R"(["Deny"])");
  params("bad");
  auto admission = plugin();
  json::object bad = parse(R"({"metadata":{"name":"bad","namespace":"default"}})");
  Attributes request = create(bad);
  apierrors::Status status = refusal(*admission, request);
  EXPECT_EQ(status.code, 422);
  EXPECT_EQ(status.reason, "Invalid");
  EXPECT_EQ(status.message,
            "configmaps \"bad\" is forbidden: ValidatingAdmissionPolicy 'no-bad-names' with binding "
            "'no-bad-names-binding' denied request: failed expression: object.metadata.name != params.data.forbidden");
  ASSERT_TRUE(status.details);
  ASSERT_EQ(status.details->causes.size(), 1u);
  EXPECT_EQ(status.details->causes[0].message,
            "ValidatingAdmissionPolicy 'no-bad-names' with binding 'no-bad-names-binding' denied request: failed "
            "expression: object.metadata.name != params.data.forbidden");

  json::object good = parse(R"({"metadata":{"name":"good","namespace":"default"}})");
  Attributes allowed = create(good);
  admit(*admission, allowed);
}

TEST_F(ValidatingAdmissionPolicyTest, MessageExpressionAndReasonDecideTheAnswer) {
  policy("named", "",
         R"({"expression":"object.metadata.name != params.data.forbidden","reason":"Forbidden",)"
         R"("message":"static","messageExpression":"'name ' + object.metadata.name + ' is not allowed'"})");
  binding("named-binding", "named", R"(["Deny"])");
  params("bad");
  auto admission = plugin();
  json::object bad = parse(R"({"metadata":{"name":"bad","namespace":"default"}})");
  Attributes request = create(bad);
  apierrors::Status status = refusal(*admission, request);
  EXPECT_EQ(status.code, 403);
  EXPECT_EQ(status.reason, "Forbidden");
  EXPECT_EQ(status.message, "configmaps \"bad\" is forbidden: ValidatingAdmissionPolicy 'named' with binding "
                            "'named-binding' denied request: name bad is not allowed");
}

TEST_F(ValidatingAdmissionPolicyTest, WarnAddsKubesWarningAndAuditItsAnnotation) {
  policy("warned");
  binding("warned-binding", "warned", R"(["Warn","Audit"])");
  params("bad");
  auto admission = plugin();
  json::object bad = parse(R"({"metadata":{"name":"bad","namespace":"default"}})");
  Attributes request = create(bad);
  admit(*admission, request);
  ASSERT_EQ(context_.warnings.size(), 1u);
  EXPECT_EQ(context_.warnings[0], "Validation failed for ValidatingAdmissionPolicy 'warned' with binding "
                                  "'warned-binding': failed expression: object.metadata.name != params.data.forbidden");
  EXPECT_EQ(context_.audit_annotations.at("validation.policy.admission.k8s.io/validation_failure"),
            R"([{"message":"failed expression: object.metadata.name != params.data.forbidden","policy":"warned",)"
            R"("binding":"warned-binding","expressionIndex":0,"validationActions":["Warn","Audit"]}])");
}

TEST_F(ValidatingAdmissionPolicyTest, MissingParamsFollowParameterNotFoundAction) {
  policy("needs-params");
  binding("deny-without", "needs-params", R"(["Deny"])");
  auto admission = plugin();
  json::object object = parse(R"({"metadata":{"name":"any","namespace":"default"}})");
  Attributes request = create(object);
  apierrors::Status status = refusal(*admission, request);
  EXPECT_EQ(status.code, 403);
  EXPECT_EQ(status.reason, "Forbidden");
  EXPECT_EQ(status.message, "policy 'needs-params' with binding 'deny-without' denied request: failed to configure "
                            "binding: no params found for policy binding with `Deny` parameterNotFoundAction");
}

TEST_F(ValidatingAdmissionPolicyTest, MissingParamsAllowedSkipTheBinding) {
  policy("needs-params");
  binding("allow-without", "needs-params", R"(["Deny"])",
          R"({"name":"params","parameterNotFoundAction":"Allow"})");
  auto admission = plugin();
  json::object object = parse(R"({"metadata":{"name":"any","namespace":"default"}})");
  Attributes request = create(object);
  admit(*admission, request);
}

TEST_F(ValidatingAdmissionPolicyTest, ParamsBySelectorAreEachEvaluated) {
  policy("selected");
  binding("selected-binding", "selected", R"(["Deny"])",
          R"({"selector":{"matchLabels":{"role":"param"}},"parameterNotFoundAction":"Deny"})");
  put(configmaps_, "default", parse(R"({"metadata":{"name":"p1","labels":{"role":"param"}},"data":{"forbidden":"a"}})"));
  put(configmaps_, "default", parse(R"({"metadata":{"name":"p2","labels":{"role":"param"}},"data":{"forbidden":"b"}})"));
  auto admission = plugin();
  json::object object = parse(R"({"metadata":{"name":"b","namespace":"default"}})");
  Attributes request = create(object);
  EXPECT_EQ(refusal(*admission, request).code, 422);
  json::object other = parse(R"({"metadata":{"name":"c","namespace":"default"}})");
  Attributes allowed = create(other);
  admit(*admission, allowed);
}

TEST_F(ValidatingAdmissionPolicyTest, VariablesMatchConditionsAndNamespaceObject) {
  policy("composed",
         R"(,"variables":[{"name":"env","expression":"namespaceObject.metadata.labels.env"},)"
         R"({"name":"isProd","expression":"variables.env == 'prod'"}],)"
         R"J("matchConditions":[{"name":"not-exempt","expression":"!has(object.metadata.labels) || !('exempt' in object.metadata.labels)"}])J",
         R"J({"expression":"!variables.isProd || has(object.data)","message":"prod config maps need data"})J");
  binding("composed-binding", "composed", R"(["Deny"])", "");
  auto admission = plugin();
  json::object empty = parse(R"({"metadata":{"name":"empty","namespace":"default"}})");
  Attributes request = create(empty);
  EXPECT_EQ(refusal(*admission, request).message,
            "configmaps \"empty\" is forbidden: ValidatingAdmissionPolicy 'composed' with binding 'composed-binding' "
            "denied request: prod config maps need data");
  json::object exempt = parse(R"({"metadata":{"name":"empty","namespace":"default","labels":{"exempt":"yes"}}})");
  Attributes skipped = create(exempt);
  admit(*admission, skipped);
}

TEST_F(ValidatingAdmissionPolicyTest, EvaluationErrorsFollowTheFailurePolicy) {
  policy("broken", "", R"({"expression":"object.data.missing == 'x'"})");
  binding("broken-binding", "broken", R"(["Deny"])", "");
  auto admission = plugin();
  json::object object = parse(R"({"metadata":{"name":"cm","namespace":"default"},"data":{}})");
  Attributes request = create(object);
  apierrors::Status status = refusal(*admission, request);
  EXPECT_EQ(status.code, 422);
  EXPECT_EQ(status.message, "configmaps \"cm\" is forbidden: ValidatingAdmissionPolicy 'broken' with binding "
                            "'broken-binding' denied request: expression 'object.data.missing == 'x'' resulted in "
                            "error: no such key: missing");

  put(policies_, "", parse(R"({"metadata":{"name":"ignored"},"spec":{"failurePolicy":"Ignore",)"
                           R"("matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],)"
                           R"("operations":["CREATE"],"resources":["configmaps"]}]},)"
                           R"("validations":[{"expression":"object.data.missing == 'x'"}]}})"));
  binding("ignored-binding", "ignored", R"(["Deny"])", "");
  io_.run(bindings_.remove("", "broken-binding", registry::DeleteOptions{}));
  Attributes again = create(object);
  admit(*admission, again);
}

// kube's limits on what a policy may spend per request: one expression stops at the per-call limit (10^6 of
// cel-go's cost units), and the request's expressions together stop at the runtime budget (10^7), where kube stops
// evaluating and denies under failurePolicy Fail. Reaching 10^7 takes real work: seconds in the sanitizer build, more
// on a loaded machine, hence the long time bound.
TEST_F(ValidatingAdmissionPolicyTest, ExpensiveExpressionsStopAtKubesCostLimits) {
  constexpr std::chrono::minutes kExpensive{2};
  const std::string ten = "[0,1,2,3,4,5,6,7,8,9]";
  // 10^6 iterations: well past the per-call limit.
  const std::string nested = ten + ".all(a, " + ten + ".all(b, " + ten + ".all(c, " + ten + ".all(d, " + ten +
                             ".all(e, " + ten + ".all(f, a + b + c + d + e + f >= 0))))))";
  policy("costly", "", R"({"expression":")" + nested + R"("})");
  binding("costly-binding", "costly", R"(["Deny"])", "");
  auto admission = plugin();
  json::object object = parse(R"({"metadata":{"name":"cm","namespace":"default"},"data":{}})");
  Attributes request = create(object);
  apierrors::Status status = refusal(*admission, request, kExpensive);
  EXPECT_EQ(status.code, 422);
  EXPECT_EQ(status.message, "configmaps \"cm\" is forbidden: ValidatingAdmissionPolicy 'costly' with binding "
                            "'costly-binding' denied request: expression '" + nested +
                            "' resulted in error: operation cancelled: actual cost limit exceeded");

  // Forty validations of a few 10^5 each fit the per-call limit one by one but not the budget together.
  const std::string heavy = ten + ".all(a, " + ten + ".all(b, " + ten + ".all(c, " + ten + ".all(d, " + ten +
                            ".all(e, e >= 0)))))";
  std::string validations;
  for (int i = 0; i < 40; ++i) validations += std::string(i ? "," : "") + R"({"expression":")" + heavy + R"("})";
  io_.run(bindings_.remove("", "costly-binding", registry::DeleteOptions{}));
  policy("budget", "", validations);
  binding("budget-binding", "budget", R"(["Deny"])", "");
  Attributes again = create(object);
  status = refusal(*admission, again, kExpensive);
  EXPECT_EQ(status.message, "configmaps \"cm\" is forbidden: ValidatingAdmissionPolicy 'budget' with binding "
                            "'budget-binding' denied request: validation failed due to running out of cost budget, "
                            "no further validation rules will be run");
}

TEST_F(ValidatingAdmissionPolicyTest, AuditAnnotationsArePublishedUnderThePolicyName) {
  policy("annotated",
         R"(,"auditAnnotations":[{"key":"seen","valueExpression":"'saw ' + object.metadata.name"}])",
         R"({"expression":"true"})");
  binding("annotated-binding", "annotated", R"(["Audit"])", "");
  auto admission = plugin();
  json::object object = parse(R"({"metadata":{"name":"cm","namespace":"default"}})");
  Attributes request = create(object);
  admit(*admission, request);
  EXPECT_EQ(context_.audit_annotations.at("annotated/seen"), "saw cm");
}

TEST_F(ValidatingAdmissionPolicyTest, BindingMatchResourcesNarrowThePolicy) {
  policy("narrow");
  binding("narrow-binding", "narrow", R"(["Deny"])",
          R"({"name":"params","namespace":"default","parameterNotFoundAction":"Deny"},)"
          R"("matchResources":{"namespaceSelector":{"matchLabels":{"env":"test"}}})");
  params("bad");
  auto admission = plugin();
  json::object bad = parse(R"({"metadata":{"name":"bad","namespace":"default"}})");
  Attributes request = create(bad);
  admit(*admission, request);  // the namespace is labelled env=prod
}

TEST_F(ValidatingAdmissionPolicyTest, AVariableThatFailsNamesItselfInTheError) {
  policy("variable-error", R"(,"variables":[{"name":"missing","expression":"object.data.absent"}])",
         R"({"expression":"variables.missing == 'x'"})");
  binding("variable-error-binding", "variable-error", R"(["Deny"])", "");
  auto admission = plugin();
  json::object object = parse(R"({"metadata":{"name":"cm","namespace":"default"},"data":{}})");
  Attributes request = create(object);
  EXPECT_EQ(refusal(*admission, request).message,
            "configmaps \"cm\" is forbidden: ValidatingAdmissionPolicy 'variable-error' with binding "
            "'variable-error-binding' denied request: expression 'variables.missing == 'x'' resulted in error: "
            "composited variable \"missing\" fails to evaluate: no such key: absent");
}

// A policy stored without write-time validation (this fixture's plain Store): its audit annotation's value is dyn,
// which kube's compiler refuses, and the error denies under failurePolicy Fail.
TEST_F(ValidatingAdmissionPolicyTest, AnAuditAnnotationThatDoesNotCompileDeniesUnderFail) {
  policy("annotation-type", R"(,"auditAnnotations":[{"key":"k","valueExpression":"object.metadata.name"}])",
         R"({"expression":"true"})");
  binding("annotation-type-binding", "annotation-type", R"(["Audit"])", "");
  auto admission = plugin();
  json::object object = parse(R"({"metadata":{"name":"cm","namespace":"default"}})");
  Attributes request = create(object);
  apierrors::Status status = refusal(*admission, request);
  EXPECT_EQ(status.code, 422);
  EXPECT_EQ(status.message, "configmaps \"cm\" is forbidden: ValidatingAdmissionPolicy 'annotation-type' with binding "
                            "'annotation-type-binding' denied request: compilation error: must evaluate to one of "
                            "[string null_type] but got dyn");
}

// Allows alice to create config maps in "default", nothing else.
class AliceMayCreateConfigMaps final : public authorization::Authorizer {
 public:
  authorization::Result authorize(const authorization::Attributes& attributes) const override {
    if (attributes.user.name == "alice" && attributes.verb == "create" && attributes.resource == "configmaps" &&
        attributes.namespace_ == "default")
      return {authorization::Decision::Allow, "alice may"};
    return {authorization::Decision::NoOpinion, ""};
  }
};

TEST_F(ValidatingAdmissionPolicyTest, TheAuthorizerAnswersWithKapisAuthorizer) {
  policy("authorized", "",
         R"J({"expression":"authorizer.group('').resource('configmaps').namespace('default').check('create').allowed() && authorizer.requestResource.check('create').allowed()",)J"
         R"J("messageExpression":"'not allowed: ' + object.metadata.name"})J");
  binding("authorized-binding", "authorized", R"(["Deny"])", "");
  const AliceMayCreateConfigMaps authorizer;
  auto admission = make_validating_admission_policy(context(&authorizer));
  json::object object = parse(R"({"metadata":{"name":"cm","namespace":"default"}})");
  request::UserInfo alice{"alice", "1", {"system:authenticated"}, {}};
  Attributes allowed = create(object);
  allowed.user = &alice;
  admit(*admission, allowed);
  request::UserInfo bob{"bob", "2", {"system:authenticated"}, {}};
  Attributes refused = create(object);
  refused.user = &bob;
  EXPECT_EQ(refusal(*admission, refused).message,
            "configmaps \"cm\" is forbidden: ValidatingAdmissionPolicy 'authorized' with binding 'authorized-binding' "
            "denied request: not allowed: cm");
}

TEST_F(ValidatingAdmissionPolicyTest, StatusControllerWarnsAboutFieldsTheMatchedKindLacks) {
  registry::Store& deployments = serve("apps", "deployments", "Deployment", true);
  (void)deployments;
  const schema::Catalog catalog = schema::Catalog::builtin();
  const json::object policy = parse(R"({"metadata":{"name":"p","generation":2},"spec":{
      "matchConstraints":{"resourceRules":[{"apiGroups":["apps"],"apiVersions":["v1"],"operations":["CREATE"],
                                             "resources":["deployments"]}]},
      "variables":[{"name":"replicas","expression":"object.spec.replicas"}],
      "validations":[{"expression":"variables.replicas > 1 && object.metadata.name != ''"},
                     {"expression":"object.spec.replica > 1","messageExpression":"object.spec.replicas"}]}})");
  std::optional<json::object> status = policy::reconciled_status(policy, context().stores, context().custom_schemas, catalog);
  ASSERT_TRUE(status);
  EXPECT_EQ(json::serialize(*status),
            R"({"observedGeneration":2,"typeChecking":{"expressionWarnings":[)"
            R"({"fieldRef":"spec.validations[1].expression","warning":"apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replica'\n | object.spec.replica > 1\n | ...........^\n"}]}})");

  json::object observed = policy;
  observed["status"] = json::object{{"observedGeneration", 2}};
  EXPECT_FALSE(policy::reconciled_status(observed, context().stores, context().custom_schemas, catalog));
}

// Custom resources are typed from their CRD's schema, with metadata as the full ObjectMeta (kube resolves the
// group version's published OpenAPI schema), for matched kinds and for the param kind alike.
TEST_F(ValidatingAdmissionPolicyTest, StatusControllerTypesCustomResourcesFromTheirSchemas) {
  const schema::Catalog catalog = schema::Catalog::builtin();
  const CustomSchemaLookup custom_schemas = [](std::string_view group, std::string_view version) {
    std::vector<CustomResourceSchema> served;
    if (group != "example.com" || version != "v1") return served;
    served.push_back({"widgets", "Widget", parse(R"({"type":"object","properties":{"spec":{"type":"object",
        "properties":{"size":{"type":"integer"}}}}})")});
    served.push_back({"limits", "Limit", parse(R"({"type":"object","properties":{"spec":{"type":"object",
        "properties":{"max":{"type":"integer"}}}}})")});
    return served;
  };
  const json::object policy = parse(R"({"metadata":{"name":"p","generation":1},"spec":{
      "paramKind":{"apiVersion":"example.com/v1","kind":"Limit"},
      "matchConstraints":{"resourceRules":[{"apiGroups":["example.com"],"apiVersions":["v1"],"operations":["CREATE"],
                                             "resources":["widgets"]}]},
      "validations":[{"expression":"object.spec.size <= params.spec.max && object.metadata.labels.size() >= 0"},
                     {"expression":"object.spec.sise > 1"},
                     {"expression":"object.spec.size > params.spec.mx"}]}})");
  std::optional<json::object> status = policy::reconciled_status(policy, context().stores, custom_schemas, catalog);
  ASSERT_TRUE(status);
  EXPECT_EQ(json::serialize(*status),
            R"({"observedGeneration":1,"typeChecking":{"expressionWarnings":[)"
            R"({"fieldRef":"spec.validations[1].expression","warning":"example.com/v1, Kind=Widget: ERROR: <input>:1:12: undefined field 'sise'\n | object.spec.sise > 1\n | ...........^\n"},)"
            R"({"fieldRef":"spec.validations[2].expression","warning":"example.com/v1, Kind=Widget: ERROR: <input>:1:31: undefined field 'mx'\n | object.spec.size > params.spec.mx\n | ..............................^\n"}]}})");
}

TEST(ValidatingAdmissionPolicyValidationTest, ExpressionsThatDoNotCompileAreRefusedAtWrite) {
  const json::object policy = json::parse(R"({"metadata":{"name":"p"},"spec":{"failurePolicy":"Fail",
      "matchConstraints":{"matchPolicy":"Equivalent","namespaceSelector":{},"objectSelector":{},
        "resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["pods"]}]},
      "validations":[{"expression":"object.x == nope"},{"expression":"'a'"},{"expression":"params.x"}],
      "auditAnnotations":[{"key":"k","valueExpression":"1"}]}})").as_object();
  const validation::ErrorList errors = apis::admissionregistration::validate_admission_policy(policy);
  ASSERT_EQ(errors.size(), 4u);
  EXPECT_EQ(errors[0].text(), "spec.validations[0].expression: Invalid value: \"object.x == nope\": compilation "
                              "failed: ERROR: <input>:1:13: undeclared reference to 'nope' (in container '')\n"
                              " | object.x == nope\n"
                              " | ............^");
  EXPECT_EQ(errors[1].text(), "spec.validations[1].expression: Invalid value: \"'a'\": must evaluate to bool but got string");
  EXPECT_EQ(errors[2].text(), "spec.validations[2].expression: Invalid value: \"params.x\": compilation failed: "
                              "ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n"
                              " | params.x\n"
                              " | ^");
  EXPECT_EQ(errors[3].text(), "spec.auditAnnotations[0].valueExpression: Invalid value: \"1\": must evaluate to one "
                              "of [string null_type] but got int");
}

TEST(ValidatingAdmissionPolicyValidationTest, WebhookMatchConditionsCompileAtWrite) {
  const json::object configuration = json::parse(R"({"metadata":{"name":"c"},"webhooks":[{"name":"w.example.com",
      "clientConfig":{"url":"https://example.com"},"sideEffects":"None","admissionReviewVersions":["v1"],
      "matchConditions":[{"name":"m","expression":"request.foo == 1"}]}]})").as_object();
  const validation::ErrorList errors = apis::admissionregistration::validate_webhook_configuration(
      configuration, apis::admissionregistration::WebhookKind::Validating);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].text(), "webhooks[0].matchConditions[0].expression: Invalid value: \"request.foo == 1\": "
                              "compilation failed: ERROR: <input>:1:8: undefined field 'foo'\n"
                              " | request.foo == 1\n"
                              " | .......^");
}

}  // namespace
}  // namespace validating_admission_policy_test
}  // namespace kapi::admission
