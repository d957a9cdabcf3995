// x-kubernetes-validations end to end: CRDs whose CEL rules kapi compiles when they are written (a bad rule is
// refused with kube's message) and evaluates on every write of their custom resources, with kube's statuses and
// messages (message, messageExpression, reason, fieldPath, transition rules, the status subresource); and the
// Gateway API's standard-channel CRDs installed with `kubectl apply --server-side`, whose rules accept a valid
// HTTPRoute and refuse invalid ones as kube-apiserver does. On both stores (see tests/meson.build).
#include "tests/integration/kapi_suite.h"
#include "tests/integration/crd_setup.h"
#include "tests/integration/kubectl_runner.h"

#include <cstdlib>
#include <filesystem>

namespace kapi::integration::custom_resource_rules_test {
namespace {

constexpr std::string_view kGizmos = R"yaml(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gizmos.rules.example.com
spec:
  group: rules.example.com
  scope: Namespaced
  names: {plural: gizmos, singular: gizmo, kind: Gizmo}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-validations:
        - rule: "self.metadata.name.startsWith('g')"
          message: name must start with g
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: "self.min <= self.max"
              messageExpression: "'min exceeds max in mode ' + self.mode"
            - rule: "self.mode == oldSelf.mode"
              message: mode is immutable
            - rule: "!has(self.legacy)"
              reason: FieldValueForbidden
              fieldPath: .legacy
              message: legacy is no longer supported
            properties:
              min: {type: integer}
              max: {type: integer}
              mode: {type: string}
              legacy: {type: string}
              ports:
                type: array
                items:
                  type: integer
                  x-kubernetes-validations:
                  - rule: "self > 0 && self < 65536"
          status:
            type: object
            x-kubernetes-validations:
            - rule: "self.ready <= 10"
            properties:
              ready: {type: integer}
)yaml";

std::string gizmo(std::string_view name, std::string_view spec) {
  return R"({"apiVersion":"rules.example.com/v1","kind":"Gizmo","metadata":{"name":")" + std::string(name) +
         R"("},"spec":)" + std::string(spec) + "}";
}

class CustomResourceRulesTest : public KapiSuite<CustomResourceRulesTest> {
 protected:
  CommandResult kubectl(const std::string& arguments) { return run_kubectl(kapi(), arguments); }
  HttpResponse request(std::string_view method, std::string_view target, std::string_view body = {},
                       std::string content_type = "application/json") {
    std::vector<std::pair<std::string, std::string>> headers;
    if (!body.empty()) headers.emplace_back("Content-Type", content_type);
    return kapi().connect_admin().request(method, target, headers, body);
  }
  void establish(const std::string& file, std::string_view manifest, const std::string& name) {
    CommandResult installed = apply_crd_and_wait(kapi(), file, std::string(manifest), name);
    ASSERT_EQ(installed.exit_code, 0) << installed.output;
  }
  // The 422 Status's message and its first cause (reason, field, message).
  static std::string invalid_message(const HttpResponse& response) {
    EXPECT_TRUE(is_status(response, 422, "Invalid")) << response.body;
    return std::string(json_object(response.body)["message"].as_string());
  }
  static boost::json::object first_cause(const HttpResponse& response) {
    auto status = json_object(response.body);
    return status["details"].as_object()["causes"].as_array().at(0).as_object();
  }

  void SetUp() override {
    KapiSuite::SetUp();
    ASSERT_TRUE(std::filesystem::exists("/usr/bin/kubectl")) << "kubectl is not installed (scripts/install-deps)";
  }
};

constexpr std::string_view kGizmosPath = "/apis/rules.example.com/v1/namespaces/default/gizmos";

TEST_F(CustomResourceRulesTest, RulesAreEnforcedWithKubesMessages) {
  establish("gizmos-crd.yaml", kGizmos, "gizmos.rules.example.com");

  HttpResponse created = request("POST", kGizmosPath, gizmo("g1", R"({"min":1,"max":3,"mode":"a","ports":[80]})"));
  ASSERT_EQ(created.status, 201) << created.body;

  HttpResponse bounds = request("POST", kGizmosPath, gizmo("g2", R"({"min":5,"max":1,"mode":"a"})"));
  EXPECT_EQ(invalid_message(bounds), R"(Gizmo.rules.example.com "g2" is invalid: spec: Invalid value: "object": min exceeds max in mode a)");
  auto cause = first_cause(bounds);
  EXPECT_EQ(cause["reason"].as_string(), "FieldValueInvalid");
  EXPECT_EQ(cause["field"].as_string(), "spec");
  EXPECT_EQ(cause["message"].as_string(), R"(Invalid value: "object": min exceeds max in mode a)");

  HttpResponse named = request("POST", kGizmosPath, gizmo("x1", R"({"min":1,"max":1})"));
  EXPECT_EQ(invalid_message(named), R"(Gizmo.rules.example.com "x1" is invalid: <nil>: Invalid value: "object": name must start with g)");
  EXPECT_EQ(first_cause(named)["field"].as_string(), "<nil>");

  HttpResponse legacy = request("POST", kGizmosPath, gizmo("g3", R"({"min":1,"max":1,"legacy":"yes"})"));
  EXPECT_EQ(invalid_message(legacy), R"(Gizmo.rules.example.com "g3" is invalid: spec.legacy: Forbidden: legacy is no longer supported)");
  EXPECT_EQ(first_cause(legacy)["reason"].as_string(), "FieldValueForbidden");

  HttpResponse ports = request("POST", kGizmosPath, gizmo("g4", R"({"min":1,"max":1,"ports":[80,0]})"));
  EXPECT_EQ(invalid_message(ports), R"(Gizmo.rules.example.com "g4" is invalid: spec.ports[1]: Invalid value: "integer": failed rule: self > 0 && self < 65536)");

  // Several failures: kube's aggregate in brackets.
  HttpResponse both = request("POST", kGizmosPath, gizmo("x5", R"({"min":2,"max":1,"mode":"b"})"));
  EXPECT_EQ(invalid_message(both), R"(Gizmo.rules.example.com "x5" is invalid: [<nil>: Invalid value: "object": name must start with g, spec: Invalid value: "object": min exceeds max in mode b])");

  // A transition rule: mode may not change on update.
  HttpResponse changed = request("PATCH", std::string(kGizmosPath) + "/g1", R"({"spec":{"mode":"b"}})",
                                 "application/merge-patch+json");
  EXPECT_EQ(invalid_message(changed), R"(Gizmo.rules.example.com "g1" is invalid: spec: Invalid value: "object": mode is immutable)");
  HttpResponse kept = request("PATCH", std::string(kGizmosPath) + "/g1", R"({"spec":{"max":4}})",
                              "application/merge-patch+json");
  EXPECT_EQ(kept.status, 200) << kept.body;

  // The status subresource runs the object's rules too.
  HttpResponse status = request("PATCH", std::string(kGizmosPath) + "/g1/status", R"({"status":{"ready":11}})",
                                "application/merge-patch+json");
  EXPECT_EQ(invalid_message(status), R"(Gizmo.rules.example.com "g1" is invalid: status: Invalid value: "object": failed rule: self.ready <= 10)");
  HttpResponse ready = request("PATCH", std::string(kGizmosPath) + "/g1/status", R"({"status":{"ready":3}})",
                               "application/merge-patch+json");
  EXPECT_EQ(ready.status, 200) << ready.body;

  // kubectl shows the same.
  CommandResult applied = kubectl("apply -f " + write_manifest(kapi(), "g6.yaml", R"(apiVersion: rules.example.com/v1
kind: Gizmo
metadata: {name: g6}
spec: {min: 9, max: 2, mode: c}
)"));
  EXPECT_NE(applied.exit_code, 0);
  EXPECT_NE(applied.output.find(R"(spec: Invalid value: "object": min exceeds max in mode c)"), std::string::npos) << applied.output;
}

constexpr std::string_view kDials = R"yaml(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: dials.rules.example.com
spec:
  group: rules.example.com
  scope: Namespaced
  names: {plural: dials, singular: dial, kind: Dial}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              level:
                type: integer%RULE%
              label: {type: string%MAX%}
)yaml";

TEST_F(CustomResourceRulesTest, RatchetingKeepsWhatAnUpdateDoesNotChange) {
  auto dials = [](bool strict) {
    std::string text(kDials);
    text.replace(text.find("%RULE%"), 6, strict ? "\n                x-kubernetes-validations:\n                - rule: \"self <= 10\"" : "");
    text.replace(text.find("%MAX%"), 5, strict ? ", maxLength: 3" : "");
    return text;
  };
  establish("dials-crd.yaml", dials(false), "dials.rules.example.com");
  const std::string path = "/apis/rules.example.com/v1/namespaces/default/dials";
  HttpResponse created = request("POST", path, R"({"apiVersion":"rules.example.com/v1","kind":"Dial",
      "metadata":{"name":"d1"},"spec":{"level":50,"label":"loud"}})");
  ASSERT_EQ(created.status, 201) << created.body;

  // Tighten the schema, then wait until the served version enforces it.
  CommandResult tightened = kubectl("apply -f " + write_manifest(kapi(), "dials-crd.yaml", dials(true)));
  ASSERT_EQ(tightened.exit_code, 0) << tightened.output;
  HttpResponse probe;
  for (int attempt = 0; attempt < 100; ++attempt) {
    probe = request("POST", path, R"({"apiVersion":"rules.example.com/v1","kind":"Dial","metadata":{"name":"probe"},
        "spec":{"level":11}})");
    if (probe.status == 422) break;
    if (probe.status == 201) request("DELETE", path + "/probe");
    kubectl("get dials");  // a pause that asks the server something (no sleeping)
  }
  ASSERT_EQ(probe.status, 422) << probe.body;

  // Unchanged values that break the new rules stay, and the request is warned about each rule let through (the
  // schema's maxLength is ratcheted without a warning, as in kube); a changed one is held to them.
  HttpResponse other = request("PATCH", path + "/d1", R"({"metadata":{"labels":{"a":"b"}}})", "application/merge-patch+json");
  EXPECT_EQ(other.status, 200) << other.body;
  EXPECT_EQ(other.header_values("Warning"),
            std::vector<std::string>{R"(299 - "spec.level: Invalid value: \"integer\": failed rule: self <= 10")"});
  HttpResponse level = request("PATCH", path + "/d1", R"({"spec":{"level":60}})", "application/merge-patch+json");
  EXPECT_EQ(invalid_message(level), R"(Dial.rules.example.com "d1" is invalid: spec.level: Invalid value: "integer": failed rule: self <= 10)");
  HttpResponse label = request("PATCH", path + "/d1", R"({"spec":{"label":"louder"}})", "application/merge-patch+json");
  // A blocking schema error (too long) keeps the rules from running, as kube says.
  EXPECT_EQ(invalid_message(label), R"(Dial.rules.example.com "d1" is invalid: [spec.label: Too long: may not be more than 3 bytes, <nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation])");
}

TEST_F(CustomResourceRulesTest, DefinitionsWithBadRulesAreRefused) {
  CommandResult refused = kubectl("create -f " + write_manifest(kapi(), "bad-rules-crd.yaml", R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: bads.rules.example.com
spec:
  group: rules.example.com
  scope: Namespaced
  names: {plural: bads, singular: bad, kind: Bad}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: "self.nope > 1"
            properties:
              a: {type: integer}
)"));
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.output.find(
                R"(The CustomResourceDefinition "bads.rules.example.com" is invalid: spec.validation.openAPIV3Schema.)"
                R"(properties[spec].x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule{)"
                R"(Rule:"self.nope > 1", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), )"
                R"(FieldPath:"", OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:5: undefined field 'nope')"),
            std::string::npos)
      << refused.output;
}

TEST_F(CustomResourceRulesTest, GatewayApiStandardChannelRules) {
  const char* source_root = std::getenv("KAPI_SOURCE_ROOT");
  ASSERT_NE(source_root, nullptr) << "KAPI_SOURCE_ROOT names the repository (meson test sets it)";
  const std::string crds = std::string(source_root) + "/tests/data/gateway-api";
  CommandResult installed = kubectl("apply --server-side -f " + crds);
  ASSERT_EQ(installed.exit_code, 0) << installed.output;
  for (std::string_view kind : {"gatewayclasses", "gateways", "grpcroutes", "httproutes", "referencegrants"})
    ASSERT_EQ(kubectl("wait --for=condition=Established --timeout=30s crd/" + std::string(kind) +
                      ".gateway.networking.k8s.io").exit_code, 0);

  CommandResult valid = kubectl("apply -f " + write_manifest(kapi(), "route.yaml", R"(apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web}
spec:
  parentRefs:
  - name: edge
  hostnames: [example.com]
  rules:
  - matches:
    - path: {type: PathPrefix, value: /app}
    filters:
    - type: RequestHeaderModifier
      requestHeaderModifier:
        add: [{name: X-Env, value: test}]
    backendRefs:
    - name: app
      port: 8080
)"));
  EXPECT_EQ(valid.exit_code, 0) << valid.output;
  EXPECT_EQ(valid.output, "httproute.gateway.networking.k8s.io/web created\n");

  CommandResult slashes = kubectl("apply -f " + write_manifest(kapi(), "route-slashes.yaml", R"(apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: slashes}
spec:
  rules:
  - matches:
    - path: {type: PathPrefix, value: /a//b}
)"));
  EXPECT_NE(slashes.exit_code, 0);
  EXPECT_NE(slashes.output.find(R"(spec.rules[0].matches[0].path: Invalid value: "object": must not contain '//' when type one of ['Exact', 'PathPrefix'])"),
            std::string::npos)
      << slashes.output;

  CommandResult no_port = kubectl("apply -f " + write_manifest(kapi(), "route-port.yaml", R"(apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: noport}
spec:
  rules:
  - backendRefs:
    - name: app
)"));
  EXPECT_NE(no_port.exit_code, 0);
  EXPECT_NE(no_port.output.find(R"(spec.rules[0].backendRefs[0]: Invalid value: "object": Must have port for Service reference)"),
            std::string::npos)
      << no_port.output;

  // A list-level rule over every pair of parentRefs (has(), __namespace__, nested all()).
  CommandResult parents = kubectl("apply -f " + write_manifest(kapi(), "route-parents.yaml", R"(apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: parents}
spec:
  parentRefs:
  - name: edge
  - name: edge
    sectionName: https
)"));
  EXPECT_NE(parents.exit_code, 0);
  EXPECT_NE(parents.output.find(R"(spec.parentRefs: Invalid value: "array": sectionName must be specified when parentRefs includes 2 or more references to the same parent)"),
            std::string::npos)
      << parents.output;
  CommandResult sections = kubectl("apply -f " + write_manifest(kapi(), "route-sections.yaml", R"(apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: sections}
spec:
  parentRefs:
  - {name: edge, namespace: infra, sectionName: http}
  - {name: edge, namespace: infra, sectionName: https}
)"));
  EXPECT_EQ(sections.output, "httproute.gateway.networking.k8s.io/sections created\n");

  CommandResult filters = kubectl("apply -f " + write_manifest(kapi(), "route-filter.yaml", R"(apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: filter}
spec:
  rules:
  - filters:
    - type: RequestHeaderModifier
)"));
  EXPECT_NE(filters.exit_code, 0);
  EXPECT_NE(filters.output.find(R"(filter.requestHeaderModifier must be specified for RequestHeaderModifier filter.type)"),
            std::string::npos)
      << filters.output;
}

}  // namespace
}  // namespace kapi::integration::custom_resource_rules_test
