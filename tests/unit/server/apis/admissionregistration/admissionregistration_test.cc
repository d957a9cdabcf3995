// The admissionregistration.k8s.io/v1 kinds as kube's registry keeps them: pkg/apis/admissionregistration/
// validation word for word for the webhook configurations (names, rules, client config, side effects, review
// versions, timeouts, selectors, match conditions, and what an update tolerates), the policies and bindings,
// and the printers' cells.
#include "server/apis/admissionregistration/admission_validation.h"
#include "server/apis/admissionregistration/admissionregistration.h"
#include "tests/unit/server/apis/strategy_testing.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace kapi::apis::admissionregistration_test {
namespace {

namespace json = boost::json;
using admissionregistration::WebhookKind;

using strategy_testing::messages;

using strategy_testing::parse;

// A webhook as the decoder leaves it: kube's v1 defaults filled.
json::object webhook(std::string_view name) {
  return parse(R"({"name":")" + std::string(name) + R"(","clientConfig":{"service":{"namespace":"ns","name":"svc","port":443}},
    "rules":[{"operations":["CREATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["pods"],"scope":"*"}],
    "failurePolicy":"Fail","matchPolicy":"Equivalent","namespaceSelector":{},"objectSelector":{},
    "sideEffects":"None","timeoutSeconds":10,"admissionReviewVersions":["v1"]})");
}

json::object configuration(json::array webhooks) {
  return {{"metadata", json::object{{"name", "config"}}}, {"webhooks", std::move(webhooks)}};
}

TEST(AdmissionRegistrationTest, ServedAsKube) {
  std::vector<ResourceStorage> all;
  all.push_back(mutatingwebhookconfigurations());
  all.push_back(validatingwebhookconfigurations());
  all.push_back(validatingadmissionpolicies());
  all.push_back(validatingadmissionpolicybindings());
  for (const auto& storage : all) {
    EXPECT_EQ(storage.definition.group_version(), "admissionregistration.k8s.io/v1");
    EXPECT_FALSE(storage.definition.namespaced) << storage.definition.kind;
    EXPECT_EQ(storage.definition.categories, std::vector<std::string>{"api-extensions"});
    EXPECT_TRUE(storage.definition.short_names.empty());
    EXPECT_TRUE(storage.strategy->tracks_generation()) << storage.definition.kind;
  }
  EXPECT_EQ(all[2].definition.subresources, std::vector<std::string>{"status"});
  EXPECT_TRUE(all[0].definition.subresources.empty());
}

TEST(AdmissionRegistrationTest, ValidWebhookConfigurationsPass) {
  json::object mutating = webhook("hook.example.com");
  mutating["reinvocationPolicy"] = "IfNeeded";
  mutating["matchConditions"] = json::parse(R"json([{"name":"exclude-leases","expression":"!(request.resource.group == 'coordination.k8s.io')"}])json");
  EXPECT_EQ(messages(admissionregistration::validate_webhook_configuration(configuration({mutating}), WebhookKind::Mutating)), "");
  json::object by_url = webhook("url.example.com");
  by_url["clientConfig"] = parse(R"({"url":"https://hooks.example.com:8443/validate"})");
  EXPECT_EQ(messages(admissionregistration::validate_webhook_configuration(configuration({by_url}), WebhookKind::Validating)), "");
}

TEST(AdmissionRegistrationTest, InvalidWebhookRefusedWithKubesCauses) {
  json::object bad = parse(R"({"name":"hook","clientConfig":{"url":"http://example.com/x?a=b#frag"},
    "rules":[{"operations":["CREATE","*"],"apiGroups":["*","apps"],"apiVersions":[],"resources":["*/*","pods"],"scope":"Global"}],
    "failurePolicy":"Sometimes","matchPolicy":"Equivalent","namespaceSelector":{"matchExpressions":[{"key":"a","operator":"Near"}]},
    "objectSelector":{},"sideEffects":"Some","timeoutSeconds":31,"admissionReviewVersions":["v2"]})");
  EXPECT_EQ(messages(admissionregistration::validate_webhook_configuration(configuration({bad}), WebhookKind::Validating)),
            "webhooks[0].name: Invalid value: \"hook\": should be a domain with at least three segments separated by dots\n"
            "webhooks[0].rules[0].operations: Invalid value: []admissionregistration.OperationType{\"CREATE\", \"*\"}: "
            "if '*' is present, must not specify other operations\n"
            "webhooks[0].rules[0].apiGroups: Invalid value: []string{\"*\", \"apps\"}: if '*' is present, must not "
            "specify other API groups\n"
            "webhooks[0].rules[0].apiVersions: Required value\n"
            "webhooks[0].rules[0].resources: Invalid value: []string{\"*/*\", \"pods\"}: if '*/*' is present, must "
            "not specify other resources\n"
            "webhooks[0].rules[0].scope: Unsupported value: \"Global\": supported values: \"*\", \"Cluster\", \"Namespaced\"\n"
            "webhooks[0].failurePolicy: Unsupported value: \"Sometimes\": supported values: \"Fail\", \"Ignore\"\n"
            "webhooks[0].sideEffects: Unsupported value: \"Some\": supported values: \"None\", \"NoneOnDryRun\"\n"
            "webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds\n"
            "webhooks[0].namespaceSelector.matchExpressions[0].operator: Invalid value: \"Near\": not a valid selector operator\n"
            "webhooks[0].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired "
            "format: https://host[/path]\n"
            "webhooks[0].clientConfig.url: Invalid value: \"frag\": fragments are not permitted in the URL\n"
            "webhooks[0].clientConfig.url: Invalid value: \"a=b\": query parameters are not permitted in the URL\n"
            "webhooks[0].admissionReviewVersions: Invalid value: []string{\"v2\"}: must include at least one of v1, v1beta1\n");

  json::object missing = webhook("a.example.com");
  missing.erase("sideEffects");
  missing.erase("admissionReviewVersions");
  missing["clientConfig"] = parse(R"({"url":"https://x.example.com","service":{"namespace":"","name":"svc"}})");
  EXPECT_EQ(messages(admissionregistration::validate_webhook_configuration(configuration({missing, webhook("a.example.com")}),
                                                                           WebhookKind::Mutating)),
            "webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun\n"
            "webhooks[0].clientConfig: Required value: exactly one of url or service is required\n"
            "webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1\n"
            "webhooks[1].name: Duplicate value: \"a.example.com\"\n");
}

TEST(AdmissionRegistrationTest, ServiceReferencesAndMatchConditions) {
  const validation::Path path = validation::Path("webhooks").index(0).child("clientConfig").child("service");
  EXPECT_EQ(messages(admissionregistration::validate_webhook_service(path, parse(R"({"namespace":"ns","name":"s","port":0,"path":"a//B/"})"))),
            "webhooks[0].clientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive\n"
            "webhooks[0].clientConfig.service.path: Invalid value: \"a//B/\": must start with a '/'\n"
            // Go's check drops the first character even when it is not '/': "//B" has segments "", "" and "B".
            "webhooks[0].clientConfig.service.path: Invalid value: \"a//B/\": segment[0] may not be empty\n"
            "webhooks[0].clientConfig.service.path: Invalid value: \"a//B/\": segment[1] may not be empty\n"
            "webhooks[0].clientConfig.service.path: Invalid value: \"a//B/\": segment[2]: a lowercase RFC 1123 "
            "subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with "
            "an alphanumeric character (e.g. 'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\n");
  json::object hook = webhook("mc.example.com");
  json::array conditions;
  for (int i = 0; i < 65; ++i) conditions.push_back(json::object{{"name", "c" + std::to_string(i % 64)}, {"expression", "true"}});
  conditions[1].as_object()["expression"] = "  ";
  hook["matchConditions"] = conditions;
  EXPECT_EQ(messages(admissionregistration::validate_webhook_configuration(configuration({hook}), WebhookKind::Validating)),
            "webhooks[0].matchConditions: Too many: 65: must have at most 64 items\n"
            "webhooks[0].matchConditions[1].expression: Required value\n"
            "webhooks[0].matchConditions[64].name: Duplicate value: \"c0\"\n");
}

TEST(AdmissionRegistrationTest, UpdatesTolerateWhatIsStored) {
  json::object some = webhook("some.example.com");
  some["sideEffects"] = "Some";
  const json::object old = configuration({some});
  json::object changed = old;
  changed["webhooks"].as_array()[0].as_object()["timeoutSeconds"] = 5;
  EXPECT_EQ(messages(admissionregistration::validate_webhook_configuration_update(changed, old, WebhookKind::Validating)), "");
  EXPECT_NE(messages(admissionregistration::validate_webhook_configuration(changed, WebhookKind::Validating)), "");
}

// The field paths of `errors`, one per line.
std::string error_paths(const validation::ErrorList& errors) {
  std::string paths;
  for (const auto& error : errors) paths += error.field + "\n";
  return paths;
}

// kube's preexistingExpressions: an update compiles the expressions the stored object already has in the
// StoredExpressions environment (two-variable comprehensions are stored-only in 1.32), and new ones in
// NewExpressions; a variable is looked up among the stored validations, as kube does.
TEST(AdmissionRegistrationTest, UpdatesCompileStoredExpressionsInTheStoredEnvironment) {
  const std::string stored_only = "[1, 2].all(i, v, v > i)";
  json::object old = parse(R"({"metadata":{"name":"p"},"spec":{"failurePolicy":"Fail",
    "matchConstraints":{"matchPolicy":"Equivalent","namespaceSelector":{},"objectSelector":{},
      "resourceRules":[{"operations":["CREATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["pods"],"scope":"*"}]}}})");
  json::object& old_spec = old["spec"].as_object();
  old_spec["matchConditions"] = json::array{json::object{{"name", "m"}, {"expression", stored_only}}};
  old_spec["variables"] = json::array{json::object{{"name", "x"}, {"expression", stored_only}}};
  old_spec["validations"] =
      json::array{json::object{{"expression", stored_only}, {"messageExpression", "string(" + stored_only + ")"}}};
  old_spec["auditAnnotations"] =
      json::array{json::object{{"key", "a"}, {"valueExpression", "string(" + stored_only + ")"}}};
  EXPECT_EQ(error_paths(admissionregistration::validate_admission_policy(old)),
            "spec.matchConditions[0].expression\nspec.variables[0].expression\nspec.validations[0].expression\n"
            "spec.validations[0].messageExpression\nspec.auditAnnotations[0].valueExpression\n");

  // The match conditions change (so they are checked), each stored expression stays: accepted. A new one is not.
  json::object updated = old;
  json::object& spec = updated["spec"].as_object();
  spec["matchConditions"].as_array().push_back(json::object{{"name", "n"}, {"expression", "true"}});
  EXPECT_EQ(messages(admissionregistration::validate_admission_policy_update(updated, old)), "");
  spec["validations"].as_array().push_back(json::object{{"expression", "[3].exists(i, v, v == i)"}});
  EXPECT_EQ(error_paths(admissionregistration::validate_admission_policy_update(updated, old)),
            "spec.validations[1].expression\n");

  // Webhook match conditions alike.
  json::object hook = webhook("mc.example.com");
  hook["matchConditions"] = json::array{json::object{{"name", "m"}, {"expression", stored_only}}};
  const json::object stored = configuration({hook});
  EXPECT_EQ(error_paths(admissionregistration::validate_webhook_configuration(stored, WebhookKind::Mutating)),
            "webhooks[0].matchConditions[0].expression\n");
  json::object more = stored;
  json::array& conditions = more["webhooks"].as_array()[0].as_object()["matchConditions"].as_array();
  conditions.push_back(json::object{{"name", "n"}, {"expression", "true"}});
  EXPECT_EQ(messages(admissionregistration::validate_webhook_configuration_update(more, stored, WebhookKind::Mutating)), "");
  conditions.push_back(json::object{{"name", "o"}, {"expression", "[3].exists(i, v, v == i)"}});
  EXPECT_EQ(error_paths(admissionregistration::validate_webhook_configuration_update(more, stored, WebhookKind::Mutating)),
            "webhooks[0].matchConditions[2].expression\n");
}

TEST(AdmissionRegistrationTest, PoliciesAndBindings) {
  json::object policy = parse(R"({"metadata":{"name":"replica-limit"},"spec":{"failurePolicy":"Fail",
    "paramKind":{"apiVersion":"rules.example.com/v1","kind":"ReplicaLimit"},
    "matchConstraints":{"matchPolicy":"Equivalent","namespaceSelector":{},"objectSelector":{},
      "resourceRules":[{"operations":["CREATE","UPDATE"],"apiGroups":["apps"],"apiVersions":["v1"],"resources":["deployments"],"scope":"*"}]},
    "validations":[{"expression":"object.spec.replicas <= params.maxReplicas","reason":"Invalid"}]}})");
  EXPECT_EQ(messages(admissionregistration::validate_admission_policy(policy)), "");
  json::object bad = parse(R"({"metadata":{"name":"p"},"spec":{"failurePolicy":"Fail",
    "paramKind":{"apiVersion":"a/b/c","kind":"Bad_Kind"},
    "variables":[{"name":"in","expression":" "}]}})");
  EXPECT_EQ(messages(admissionregistration::validate_admission_policy(bad)),
            "spec.paramKind.apiVersion: Invalid value: \"a/b/c\": unexpected GroupVersion string: a/b/c\n"
            "spec.paramKind.kind: Invalid value: \"Bad_Kind\": may have mixed case, but should otherwise match: a DNS-1035 "
            "label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and "
            "end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is "
            "'[a-z]([-a-z0-9]*[a-z0-9])?')\n"
            "spec.matchConstraints: Required value\n"
            "spec.variables[0].name: Invalid value: \"in\": name is not a valid CEL identifier\n"
            "spec.variables[0].expression: Required value: expression is not specified\n"
            "spec.validations: Required value: validations or auditAnnotations must contain at least one item\n"
            "spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item\n");

  // Match conditions already stored are not checked again unless they or the paramKind change.
  json::object stored = policy;
  stored["spec"].as_object()["matchConditions"] = json::parse(R"([{"name":"Bad Name","expression":"true"}])");
  json::object relaxed = stored;
  relaxed["spec"].as_object()["failurePolicy"] = "Ignore";
  EXPECT_EQ(messages(admissionregistration::validate_admission_policy_update(relaxed, stored)), "");
  relaxed["spec"].as_object().erase("paramKind");
  EXPECT_NE(messages(admissionregistration::validate_admission_policy_update(relaxed, stored)), "");

  json::object binding = parse(R"({"metadata":{"name":"b"},"spec":{"policyName":"replica-limit",
    "paramRef":{"name":"limits","namespace":"default","parameterNotFoundAction":"Deny"},"validationActions":["Deny","Audit"]}})");
  EXPECT_EQ(messages(admissionregistration::validate_policy_binding(binding)), "");
  json::object bad_binding = parse(R"({"metadata":{"name":"b"},"spec":{
    "paramRef":{"name":"limits","selector":{},"parameterNotFoundAction":"Maybe"},
    "matchResources":{"namespaceSelector":{},"objectSelector":{}},"validationActions":["Deny","Warn","Deny"]}})");
  EXPECT_EQ(messages(admissionregistration::validate_policy_binding(bad_binding)),
            "spec.policyName: Required value\n"
            "spec.paramRef.name: Forbidden: name and selector are mutually exclusive\n"
            "spec.paramRef.selector: Forbidden: name and selector are mutually exclusive\n"
            "spec.paramRef.parameterNotFoundAction: Unsupported value: \"Maybe\": supported values: \"Deny\", \"Allow\"\n"
            "spec.matchResouces.matchPolicy: Required value\n"
            "spec.validationActions[2]: Duplicate value: \"Deny\"\n"
            "spec.validationActions: Invalid value: []admissionregistration.ValidationAction{\"Deny\", \"Warn\", "
            "\"Deny\"}: must not contain both Deny and Warn (repeating the same validation failure information in "
            "the API response and headers serves no purpose)\n");
  EXPECT_EQ(messages(admissionregistration::validate_policy_binding(parse(R"({"spec":{"policyName":"p"}})"))),
            "spec.validationActions: Required value: at least one validation action is required\n");
}

TEST(AdmissionRegistrationTest, PrintersCells) {
  const ResourceStorage webhooks = validatingwebhookconfigurations();
  const json::array cells = webhooks.strategy->table_cells(configuration({webhook("a.example.com"), webhook("b.example.com")}));
  EXPECT_EQ(cells[0], "config");
  EXPECT_EQ(cells[1], 2);
  const ResourceStorage policies = validatingadmissionpolicies();
  EXPECT_EQ(policies.strategy->table_cells(parse(R"({"metadata":{"name":"p"},"spec":{"paramKind":{"apiVersion":"v1","kind":"ConfigMap"},"validations":[{},{}]}})"))[2],
            "v1/ConfigMap");
  EXPECT_EQ(policies.strategy->table_cells(parse(R"({"metadata":{"name":"p"},"spec":{"validations":[{}]}})"))[1], 1);
  EXPECT_EQ(policies.strategy->table_cells(parse(R"({"metadata":{"name":"p"}})"))[2], "<unset>");
  const ResourceStorage bindings = validatingadmissionpolicybindings();
  EXPECT_EQ(bindings.strategy->table_cells(parse(R"({"metadata":{"name":"b"},"spec":{"policyName":"p","paramRef":{"name":"x"}}})"))[2], "*/x");
  EXPECT_EQ(bindings.strategy->table_cells(parse(R"({"metadata":{"name":"b"},"spec":{"paramRef":{"name":"x","namespace":"ns"}}})"))[2], "ns/x");
  EXPECT_EQ(bindings.strategy->table_cells(parse(R"({"metadata":{"name":"b"},"spec":{"paramRef":{"selector":{"matchLabels":{"a":"b"}}}}})"))[2],
            "&LabelSelector{MatchLabels:map[string]string{a: b,},MatchExpressions:[]LabelSelectorRequirement{},}");
  EXPECT_EQ(bindings.strategy->table_cells(parse(R"({"metadata":{"name":"b"},"spec":{}})"))[2], "<unset>");
}

}  // namespace
}  // namespace kapi::apis::admissionregistration_test
