// Duplicate fields in JSON bodies, worded and ordered as sigs.k8s.io/json's strict decoding reports them.
#include "server/schema/duplicate_fields.h"

#include "server/apierrors/errors.h"
#include "server/schema/catalog.h"
#include "server/schema/decoding.h"

#include <gtest/gtest.h>

namespace kapi::schema::duplicate_fields_test {
namespace {

using Errors = std::vector<std::string>;

TEST(DuplicateFieldsTest, NoDuplicatesLeavesTheUnknownFieldsAsTheyAre) {
  EXPECT_EQ(strict_decoding_errors(R"({"a":1,"b":{"c":[{"d":1}]}})", {"b.x", "a.y"}),
            (Errors{"unknown field \"b.x\"", "unknown field \"a.y\""}));
  EXPECT_TRUE(strict_decoding_errors(R"({"a":1})", {}).empty());
}

TEST(DuplicateFieldsTest, DuplicatesInDocumentOrderWithTheUnknownOnes) {
  // kube's own case (test/integration/apiserver/field_validation_test.go, invalidBodyJSON)
  const std::string body = R"({
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "dupename", "name": "x", "labels": {"app": "nginx"}, "unknownMeta": "metaVal"},
    "spec": {"unknown1": "val1", "unknownDupe": "valDupe", "unknownDupe": "valDupe2", "paused": true, "paused": false,
      "selector": {"matchLabels": {"app": "nginx"}},
      "template": {"metadata": {"labels": {"app": "nginx"}}, "spec": {"containers": [{"name": "nginx",
        "image": "nginx:latest", "unknownNested": "val1", "imagePullPolicy": "Always", "imagePullPolicy": "Never"}]}}}})";
  const Errors unknown{"metadata.unknownMeta", "spec.unknown1", "spec.unknownDupe",
                       "spec.template.spec.containers[0].unknownNested"};
  EXPECT_EQ(strict_decoding_errors(body, unknown),
            (Errors{"duplicate field \"metadata.name\"", "unknown field \"metadata.unknownMeta\"",
                    "unknown field \"spec.unknown1\"", "unknown field \"spec.unknownDupe\"",
                    "duplicate field \"spec.paused\"", "unknown field \"spec.template.spec.containers[0].unknownNested\"",
                    "duplicate field \"spec.template.spec.containers[0].imagePullPolicy\""}));
}

TEST(DuplicateFieldsTest, MapKeysCountAndNothingInsideAnUnknownFieldDoes) {
  EXPECT_EQ(strict_decoding_errors(R"({"data":{"a":"1","a":"2","a":"3"}})", {}), (Errors{"duplicate field \"data.a\""}));
  EXPECT_EQ(strict_decoding_errors(R"({"extra":{"a":1,"a":2},"kind":"x","kind":"y"})", {"extra"}),
            (Errors{"unknown field \"extra\"", "duplicate field \"kind\""}));
  EXPECT_EQ(strict_decoding_errors(R"([{"a":1,"a":1}])", {}), (Errors{"duplicate field \"[0].a\""}));
}

TEST(DuplicateFieldsTest, FieldValidationDecidesWhatTheErrorsDo) {
  const Catalog catalog = Catalog::builtin();
  const auto* config_map = catalog.kind("", "v1", "ConfigMap");
  const Errors errors{"duplicate field \"data.a\"", "unknown field \"extra\""};
  EXPECT_TRUE(report_strict_errors(FieldValidation::kIgnore, config_map, errors).empty());
  EXPECT_EQ(report_strict_errors(FieldValidation::kWarn, config_map, errors), errors);
  try {
    report_strict_errors(FieldValidation::kStrict, config_map, errors);
    ADD_FAILURE() << "Strict must refuse";
  } catch (const apierrors::ApiError& error) {
    EXPECT_EQ(error.status().code, 400);
    EXPECT_EQ(error.status().message,
              "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: strict decoding error: "
              "duplicate field \"data.a\", unknown field \"extra\"");
  }
  // go-yaml's error is one strict error, but one warning per line (kube's parseYAMLWarnings)
  const Errors yaml{"yaml: unmarshal errors:\n  line 3: key \"a\" already set in map\n  line 5: key \"b\" already set in map",
                    "unknown field \"extra\""};
  EXPECT_EQ(report_strict_errors(FieldValidation::kWarn, config_map, yaml),
            (Errors{"line 3: key \"a\" already set in map", "line 5: key \"b\" already set in map",
                    "unknown field \"extra\""}));
  try {
    report_strict_errors(FieldValidation::kStrict, config_map, yaml);
    ADD_FAILURE() << "Strict must refuse";
  } catch (const apierrors::ApiError& error) {
    EXPECT_EQ(error.status().message,
              "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: strict decoding error: yaml: unmarshal "
              "errors:\n  line 3: key \"a\" already set in map\n  line 5: key \"b\" already set in map, unknown field "
              "\"extra\"");
  }
}

}  // namespace
}  // namespace kapi::schema::duplicate_fields_test
