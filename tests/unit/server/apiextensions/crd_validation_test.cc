#include "server/apiextensions/crd_validation.h"

#include "tests/unit/server/apiextensions/schema_test_util.h"

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kapi::apiextensions::crd_validation_test {
namespace {

namespace json = boost::json;
using schema::testing::texts;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

const char kSchema[] = R"({"type":"object","properties":{"spec":{"type":"object","properties":{
  "replicas":{"type":"integer","default":1},"cronSpec":{"type":"string"}}},
  "status":{"type":"object","properties":{"replicas":{"type":"integer"}}}}})";

// A CronTab CRD as a client sends it, defaulted as kube decodes it.
json::object crontab() {
  json::object crd = json::parse(std::string(R"({
    "apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
    "metadata":{"name":"crontabs.stable.example.com"},
    "spec":{"group":"stable.example.com","scope":"Namespaced",
            "names":{"plural":"crontabs","kind":"CronTab","shortNames":["ct"],"categories":["all"]},
            "versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":)") +
                                     kSchema + R"(}}]}})")
                         .as_object();
  default_crd(crd);
  return crd;
}

json::object& spec(json::object& crd) { return crd["spec"].as_object(); }
json::object& names(json::object& crd) { return spec(crd)["names"].as_object(); }
json::object& version(json::object& crd, std::size_t i) { return spec(crd)["versions"].as_array()[i].as_object(); }

std::vector<std::string> check(const json::object& crd) { return texts(validate_crd(crd)); }

// A second version, v2, served but not stored, with the same schema as v1.
json::object two_versions() {
  json::object crd = crontab();
  json::object v2 = version(crd, 0);
  v2["name"] = "v2";
  v2["storage"] = false;
  spec(crd)["versions"].as_array().push_back(v2);
  return crd;
}

const std::string kDns1035 =
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, "
    "and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is "
    "'[a-z]([-a-z0-9]*[a-z0-9])?')";

TEST(CrdDefaultingTest, FillsNamesConversionAndStoredVersions) {
  json::object crd = crontab();
  EXPECT_EQ(names(crd)["singular"], "crontab");
  EXPECT_EQ(names(crd)["listKind"], "CronTabList");
  EXPECT_EQ(spec(crd)["conversion"], json::parse(R"({"strategy":"None"})"));
  EXPECT_EQ(crd["status"], json::parse(R"({"storedVersions":["v1"]})"));

  json::object given = json::parse(R"({"spec":{"names":{"kind":"Foo","singular":"one","listKind":"Foos"},
      "conversion":{"strategy":"Webhook","webhook":{"clientConfig":{"service":{"name":"s","namespace":"n"}}}},
      "versions":[{"name":"v1","storage":false},{"name":"v2","storage":true}]},
      "status":{"storedVersions":["v1"]}})")
                           .as_object();
  default_crd(given);
  EXPECT_EQ(given, json::parse(R"({"spec":{"names":{"kind":"Foo","singular":"one","listKind":"Foos"},
      "conversion":{"strategy":"Webhook","webhook":{"clientConfig":{"service":{"name":"s","namespace":"n","port":443}}}},
      "versions":[{"name":"v1","storage":false},{"name":"v2","storage":true}]},
      "status":{"storedVersions":["v1"]}})"));

  json::object no_kind = json::parse(R"({"spec":{"names":{"plural":"foos"}}})").as_object();
  default_crd(no_kind);
  EXPECT_EQ(no_kind, json::parse(R"({"spec":{"names":{"plural":"foos"},"conversion":{"strategy":"None"}}})"));
}

TEST(CrdValidationTest, AcceptsAValidCrd) {
  EXPECT_THAT(check(crontab()), IsEmpty());
  EXPECT_THAT(check(two_versions()), IsEmpty());
  json::object crd = crontab();
  version(crd, 0)["subresources"] =
      json::parse(R"({"status":{},"scale":{"specReplicasPath":".spec.replicas","statusReplicasPath":".status.replicas",
                      "labelSelectorPath":".status.selector"}})");
  version(crd, 0)["additionalPrinterColumns"] =
      json::parse(R"([{"name":"Replicas","type":"integer","format":"int32","jsonPath":".spec.replicas"}])");
  EXPECT_THAT(check(crd), IsEmpty());
}

TEST(CrdValidationTest, NameMustBePluralDotGroup) {
  json::object crd = crontab();
  crd["metadata"].as_object()["name"] = "foo.example.com";
  EXPECT_THAT(check(crd), ElementsAre(R"(metadata.name: Invalid value: "foo.example.com": must be spec.names.plural+"."+spec.group)"));
}

TEST(CrdValidationTest, Group) {
  json::object crd = crontab();
  spec(crd)["group"] = "example";
  crd["metadata"].as_object()["name"] = "crontabs.example";
  EXPECT_THAT(check(crd), ElementsAre(R"(spec.group: Invalid value: "example": should be a domain with at least one dot)"));
  spec(crd)["group"] = "Example.com";
  crd["metadata"].as_object()["name"] = "crontabs.Example.com";
  EXPECT_THAT(check(crd), ElementsAre(R"(spec.group: Invalid value: "Example.com": a lowercase RFC 1123 subdomain must consist of lower )"
                                      R"(case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character )"
                                      R"((e.g. 'example.com', regex used for validation is )"
                                      R"('[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'))"));
  spec(crd).erase("group");
  crd["metadata"].as_object()["name"] = "crontabs.";
  EXPECT_THAT(check(crd), ElementsAre("spec.group: Required value"));
}

TEST(CrdValidationTest, Scope) {
  json::object crd = crontab();
  spec(crd)["scope"] = "Global";
  EXPECT_THAT(check(crd), ElementsAre(R"(spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced")"));
  spec(crd).erase("scope");
  EXPECT_THAT(check(crd), ElementsAre("spec.scope: Required value"));
}

TEST(CrdValidationTest, Names) {
  json::object crd = crontab();
  names(crd)["plural"] = "CronTabs";
  crd["metadata"].as_object()["name"] = "CronTabs.stable.example.com";
  names(crd)["kind"] = "Cron_Tab";
  names(crd)["listKind"] = "Cron_Tab";
  names(crd)["shortNames"] = json::array{"ct", "1ct"};
  names(crd)["categories"] = json::array{"All"};
  EXPECT_THAT(check(crd),
              ElementsAre(R"(spec.names.plural: Invalid value: "CronTabs": )" + kDns1035,
                          R"(spec.names.kind: Invalid value: "Cron_Tab": may have mixed case, but should otherwise match: )" + kDns1035,
                          R"(spec.names.listKind: Invalid value: "Cron_Tab": may have mixed case, but should otherwise match: )" + kDns1035,
                          R"(spec.names.shortNames[1]: Invalid value: "1ct": )" + kDns1035,
                          R"(spec.names.listKind: Invalid value: "Cron_Tab": kind and listKind may not be the same)",
                          R"(spec.names.categories[0]: Invalid value: "All": )" + kDns1035));

  json::object undefaulted = crontab();
  names(undefaulted) = json::object{{"plural", "crontabs"}};
  EXPECT_THAT(check(undefaulted), ElementsAre("spec.names.singular: Required value", "spec.names.kind: Required value",
                                              "spec.names.listKind: Required value"));
}

TEST(CrdValidationTest, Versions) {
  json::object crd = two_versions();
  version(crd, 1)["storage"] = true;
  EXPECT_THAT(
      check(crd),
      ElementsAre(
          "spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{"
          R"(apiextensions.CustomResourceDefinitionVersion{Name:"v1", Served:true, Storage:true, Deprecated:false, )"
          "DeprecationWarning:(*string)(nil), Schema:(*apiextensions.CustomResourceValidation)(nil), "
          "Subresources:(*apiextensions.CustomResourceSubresources)(nil), "
          "AdditionalPrinterColumns:[]apiextensions.CustomResourceColumnDefinition(nil), SelectableFields:[]apiextensions.SelectableField(nil)}, "
          R"(apiextensions.CustomResourceDefinitionVersion{Name:"v2", Served:true, Storage:true, Deprecated:false, )"
          "DeprecationWarning:(*string)(nil), Schema:(*apiextensions.CustomResourceValidation)(nil), "
          "Subresources:(*apiextensions.CustomResourceSubresources)(nil), "
          "AdditionalPrinterColumns:[]apiextensions.CustomResourceColumnDefinition(nil), SelectableFields:[]apiextensions.SelectableField(nil)}}"
          ": must have exactly one version marked as storage version",
          R"(status.storedVersions: Invalid value: []string{"v1"}: must have the storage version v2)"));

  crd = two_versions();
  version(crd, 1)["name"] = "v1";
  auto errors = check(crd);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0], ::testing::EndsWith(": must contain unique version names"));

  crd = crontab();
  version(crd, 0)["name"] = "V1";
  crd["status"].as_object()["storedVersions"] = json::array{"V1"};
  EXPECT_THAT(check(crd), ElementsAre(R"(spec.versions[0].name: Invalid value: "V1": )" + kDns1035,
                                      R"(spec.version: Invalid value: "V1": )" + kDns1035));

  crd = crontab();
  spec(crd)["versions"] = json::array();
  crd.erase("status");
  EXPECT_THAT(check(crd), ElementsAre("spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{}: must have "
                                      "exactly one version marked as storage version",
                                      "status.storedVersions: Invalid value: []string(nil): must have at least one stored version"));
}

TEST(CrdValidationTest, DeprecationWarning) {
  json::object crd = crontab();
  version(crd, 0)["deprecationWarning"] = "old";
  EXPECT_THAT(check(crd), ElementsAre(R"(spec.versions[0].deprecationWarning: Invalid value: "old": can only be set for deprecated versions)"));
  version(crd, 0)["deprecated"] = true;
  EXPECT_THAT(check(crd), IsEmpty());
}

TEST(CrdValidationTest, SchemasAreRequiredAndChecked) {
  json::object crd = crontab();
  version(crd, 0).erase("schema");
  EXPECT_THAT(check(crd), ElementsAre("spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required"));

  // Identical schemas are the internal spec.validation, and kube names that path.
  crd = crontab();
  version(crd, 0)["schema"] = json::parse(R"({"openAPIV3Schema":{"type":"object","properties":{"spec":{"properties":{}}}}})");
  EXPECT_THAT(check(crd), ElementsAre("spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for "
                                      "specified object fields"));

  // Schemas that differ stay per version.
  crd = two_versions();
  version(crd, 1)["schema"] = json::parse(R"({"openAPIV3Schema":{"type":"object","properties":{"spec":{"properties":{}}}}})");
  EXPECT_THAT(check(crd), ElementsAre("spec.versions[1].schema.openAPIV3Schema.properties[spec].type: Required value: must not be "
                                      "empty for specified object fields"));
}

TEST(CrdValidationTest, StatusSubresourceRestrictsTheRootSchema) {
  json::object crd = crontab();
  version(crd, 0)["subresources"] = json::parse(R"({"status":{}})");
  version(crd, 0)["schema"].as_object()["openAPIV3Schema"].as_object()["anyOf"] =
      json::parse(R"([{"required":["spec"]},{"required":["status"]}])");
  EXPECT_THAT(check(crd), ElementsAre("spec.validation.openAPIV3Schema: Invalid value: apiextensions.JSONSchemaProps{...}: only "
                                      "[Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength "
                                      "MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties "
                                      "ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root "
                                      "of the schema if the status subresource is enabled"));
}

TEST(CrdValidationTest, Subresources) {
  json::object crd = crontab();
  version(crd, 0)["subresources"] = json::parse(
      R"({"scale":{"specReplicasPath":".status.replicas","statusReplicasPath":"status.replicas","labelSelectorPath":".metadata.labels"}})");
  EXPECT_THAT(check(crd),
              ElementsAre(R"(spec.subresources.scale.specReplicasPath: Invalid value: ".status.replicas": should be a json path under .spec)",
                          R"(spec.subresources.scale.statusReplicasPath: Invalid value: "status.replicas": must be a simple json path starting with .)",
                          R"(spec.subresources.scale.labelSelectorPath: Invalid value: ".metadata.labels": should be a json path under either .spec or .status)"));
  version(crd, 0)["subresources"] = json::parse(R"({"scale":{}})");
  EXPECT_THAT(check(crd), ElementsAre("spec.subresources.scale.specReplicasPath: Required value",
                                      "spec.subresources.scale.statusReplicasPath: Required value"));

  // Per version when the versions differ.
  crd = two_versions();
  version(crd, 1)["subresources"] = json::parse(R"({"scale":{"specReplicasPath":".spec.replicas","statusReplicasPath":".spec.replicas"}})");
  EXPECT_THAT(check(crd), ElementsAre(R"(spec.versions[1].subresources.scale.statusReplicasPath: Invalid value: ".spec.replicas": should be a json path under .status)"));
}

TEST(CrdValidationTest, PrinterColumns) {
  json::object crd = crontab();
  version(crd, 0)["additionalPrinterColumns"] =
      json::parse(R"([{"type":"text","format":"uuid"},{"name":"A","jsonPath":"spec.a"}])");
  EXPECT_THAT(check(crd),
              ElementsAre("spec.additionalPrinterColumns[0].name: Required value",
                          R"(spec.additionalPrinterColumns[0].type: Invalid value: "text": must be one of boolean,date,integer,number,string)",
                          R"(spec.additionalPrinterColumns[0].format: Invalid value: "uuid": must be one of byte,date,date-time,double,float,int32,int64,password)",
                          "spec.additionalPrinterColumns[0].JSONPath: Required value",
                          "spec.additionalPrinterColumns[1].type: Required value: must be one of boolean,date,integer,number,string",
                          R"(spec.additionalPrinterColumns[1].JSONPath: Invalid value: "spec.a": must be a simple json path starting with .)"));
  crd = two_versions();
  version(crd, 1)["additionalPrinterColumns"] = json::parse(R"([{"name":"A","type":"string","jsonPath":"a"}])");
  EXPECT_THAT(check(crd), ElementsAre(R"(spec.versions[1].additionalPrinterColumns[0].JSONPath: Invalid value: "a": must be a simple json path starting with .)"));
}

TEST(CrdValidationTest, WebhookConversionIsRefused) {
  json::object crd = crontab();
  spec(crd)["conversion"] = json::parse(R"({"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"],
      "clientConfig":{"url":"https://convert.example.com/convert"}}})");
  EXPECT_THAT(check(crd), ElementsAre("spec.conversion.strategy: Forbidden: webhook conversion is not supported by this server "
                                      "(kapi); use strategy None"));
  spec(crd)["conversion"] = json::parse(R"({"strategy":"Magic"})");
  EXPECT_THAT(check(crd), ElementsAre(R"(spec.conversion.strategy: Unsupported value: "Magic": supported values: "None", "Webhook")"));
  spec(crd)["conversion"] = json::parse(R"({"strategy":"None","webhook":{"conversionReviewVersions":["v1"],"clientConfig":{"url":"https://x"}}})");
  EXPECT_THAT(check(crd), ElementsAre("spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook",
                                      "spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook"));
  spec(crd)["conversion"] = json::object();
  EXPECT_THAT(check(crd), ElementsAre("spec.conversion.strategy: Required value"));
}

TEST(CrdValidationTest, PreserveUnknownFieldsMustBeFalse) {
  json::object crd = crontab();
  spec(crd)["preserveUnknownFields"] = true;
  EXPECT_THAT(check(crd), ElementsAre("spec.preserveUnknownFields: Invalid value: true: must be false in order to use defaults in the schema",
                                      "spec.preserveUnknownFields: Invalid value: true: cannot set to true, set "
                                      "x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead"));
}

TEST(CrdValidationTest, ProtectedGroupsNeedApproval) {
  json::object crd = crontab();
  spec(crd)["group"] = "stable.k8s.io";
  crd["metadata"].as_object()["name"] = "crontabs.stable.k8s.io";
  EXPECT_THAT(check(crd), ElementsAre("metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have "
                                      "approval annotation \"api-approved.kubernetes.io\", see "
                                      "https://github.com/kubernetes/enhancements/pull/1111"));
  crd["metadata"].as_object()["annotations"] = json::object{{"api-approved.kubernetes.io", "https://github.com/kubernetes/kubernetes/pull/1"}};
  EXPECT_THAT(check(crd), IsEmpty());
  crd["metadata"].as_object()["annotations"] = json::object{{"api-approved.kubernetes.io", "unapproved, experimental"}};
  EXPECT_THAT(check(crd), IsEmpty());
}

json::object established(json::object crd) {
  crd["status"].as_object()["conditions"] = json::parse(R"([{"type":"Established","status":"True"}])");
  return crd;
}

TEST(CrdValidationUpdateTest, GroupAndPluralAreImmutable) {
  json::object old = crontab();
  json::object crd = crontab();
  EXPECT_THAT(texts(validate_crd_update(crd, old)), IsEmpty());
  spec(crd)["group"] = "other.example.com";
  names(crd)["plural"] = "crons";
  EXPECT_THAT(texts(validate_crd_update(crd, old)),
              ElementsAre(R"(spec.group: Invalid value: "other.example.com": field is immutable)",
                          R"(spec.names.plural: Invalid value: "crons": field is immutable)"));
}

TEST(CrdValidationUpdateTest, KindAndScopeFreezeOnceEstablished) {
  json::object crd = crontab();
  names(crd)["kind"] = "Cron";
  names(crd)["listKind"] = "CronList";
  spec(crd)["scope"] = "Cluster";
  EXPECT_THAT(texts(validate_crd_update(crd, crontab())), IsEmpty());
  EXPECT_THAT(texts(validate_crd_update(crd, established(crontab()))),
              ElementsAre(R"(spec.scope: Invalid value: "Cluster": field is immutable)",
                          R"(spec.names.kind: Invalid value: "Cron": field is immutable)"));
}

TEST(CrdValidationUpdateTest, StoredVersionsMustStayInSpec) {
  json::object old = two_versions();
  old["status"].as_object()["storedVersions"] = json::array{"v1", "v2"};
  json::object crd = old;
  spec(crd)["versions"].as_array().erase(spec(crd)["versions"].as_array().begin() + 1);
  EXPECT_THAT(texts(validate_crd_update(crd, old)),
              ElementsAre(R"(status.storedVersions[1]: Invalid value: "v2": missing from spec.versions; v2 was previously a )"
                          "storage version, and must remain in spec.versions until a storage migration ensures no data "
                          "remains persisted in v2 and removes v2 from status.storedVersions"));
}

TEST(CrdValidationUpdateTest, OldCrdsWithoutSchemasOnlyNeedThemForServedVersions) {
  json::object old = crontab();
  version(old, 0).erase("schema");
  json::object crd = two_versions();
  version(crd, 1).erase("schema");
  version(crd, 1)["served"] = false;
  EXPECT_THAT(texts(validate_crd_update(crd, old)), IsEmpty());
  version(crd, 1)["served"] = true;
  EXPECT_THAT(texts(validate_crd_update(crd, old)),
              ElementsAre("spec.versions[1].schema.openAPIV3Schema: Required value: because otherwise all fields are pruned"));
  EXPECT_THAT(texts(validate_crd_update(crd, crontab())),
              ElementsAre("spec.versions[1].schema.openAPIV3Schema: Required value: schemas are required"));
}

// kube's preexistingExpressions: a CRD update compiles the rules and messageExpressions the stored CRD already has
// in the StoredExpressions environment (here: two-variable comprehensions, stored-only in 1.32), wherever they
// sit now, and new expressions in NewExpressions.
TEST(CrdValidationUpdateTest, ExpressionsTheStoredCrdHasCompileInTheStoredEnvironment) {
  const std::string stored_only = "[1, 2].all(i, v, v > i)";
  auto with_rules = [](json::object crd, const char* property, json::array rules) {
    version(crd, 0)["schema"].as_object()["openAPIV3Schema"].as_object()["properties"].as_object()[property]
        .as_object()["x-kubernetes-validations"] = std::move(rules);
    return crd;
  };
  const json::object old = with_rules(crontab(), "spec", json::array{{{"rule", stored_only}}});
  const std::string rule_path = "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0]";
  ASSERT_THAT(check(old), ElementsAre(::testing::StartsWith(rule_path + ".rule: Invalid value: ")));
  EXPECT_THAT(check(old)[0], ::testing::HasSubstr("compilation failed"));

  // Kept (with the schema changed around it), or moved to another node: accepted.
  json::object kept = old;
  version(kept, 0)["schema"].as_object()["openAPIV3Schema"].as_object()["properties"].as_object()["spec"]
      .as_object()["properties"].as_object()["suspend"] = json::parse(R"({"type":"boolean"})");
  EXPECT_THAT(texts(validate_crd_update(kept, old)), IsEmpty());
  const json::object moved = with_rules(crontab(), "status", json::array{{{"rule", stored_only}}});
  EXPECT_THAT(texts(validate_crd_update(moved, old)), IsEmpty());

  // A new rule, or the stored one as a new messageExpression, must compile in NewExpressions.
  const json::object added =
      with_rules(crontab(), "spec",
                 json::array{{{"rule", stored_only}}, {{"rule", "[3].exists(i, v, v == i)"}},
                             {{"rule", "true"}, {"messageExpression", "string([1, 2].all(i, v, v > i))"}}});
  EXPECT_THAT(texts(validate_crd_update(added, old)),
              ElementsAre(::testing::StartsWith(
                              "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[1].rule: "),
                          ::testing::StartsWith("spec.validation.openAPIV3Schema.properties[spec]."
                                                "x-kubernetes-validations[2].messageExpression: ")));
}

TEST(CrdStatusValidationTest, AcceptedNames) {
  json::object crd = crontab();
  crd["status"].as_object()["acceptedNames"] = json::parse(R"({"plural":"CronTabs","kind":"CronTab","listKind":"CronTab"})");
  EXPECT_THAT(texts(validate_crd_status(crd)),
              ElementsAre(R"(status.acceptedNames.plural: Invalid value: "CronTabs": )" + kDns1035,
                          R"(status.acceptedNames.listKind: Invalid value: "CronTab": kind and listKind may not be the same)"));
  crd["status"].as_object()["acceptedNames"] = json::parse(R"({"plural":"crontabs","kind":"CronTab","listKind":"CronTabList"})");
  EXPECT_THAT(texts(validate_crd_status(crd)), IsEmpty());
}

}  // namespace
}  // namespace kapi::apiextensions::crd_validation_test
