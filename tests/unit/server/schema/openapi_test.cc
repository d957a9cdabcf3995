#include "server/schema/openapi.h"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <functional>

namespace kapi::schema::openapi_test {
namespace {

namespace json = boost::json;

std::vector<registry::ResourceDefinition> resources() {
  registry::ResourceDefinition configmaps{.group = "", .version = "v1", .resource = "configmaps", .kind = "ConfigMap"};
  registry::ResourceDefinition namespaces{.group = "", .version = "v1", .resource = "namespaces", .kind = "Namespace",
                                          .namespaced = false, .subresources = {"status", "finalize"}};
  registry::ResourceDefinition leases{.group = "coordination.k8s.io", .version = "v1", .resource = "leases",
                                      .kind = "Lease"};
  return {configmaps, namespaces, leases};
}

class OpenApiTest : public ::testing::Test {
 protected:
  Catalog catalog = Catalog::builtin();
  OpenApiDocuments documents{catalog, resources(), "v1.32.0"};

  json::object v3(std::string_view path) {
    const OpenApiDocument* document = documents.v3(path);
    EXPECT_NE(document, nullptr) << path;
    return document ? json::parse(document->body).as_object() : json::object{};
  }
};

TEST_F(OpenApiTest, RootListsEachGroupVersionWithItsHash) {
  json::value root = json::parse(documents.v3_root().body);
  const auto& paths = root.at("paths").as_object();
  ASSERT_EQ(paths.size(), 2u);
  EXPECT_EQ(paths.at("api/v1").at("serverRelativeURL").as_string(), "/openapi/v3/api/v1?hash=" + documents.v3("api/v1")->hash);
  EXPECT_TRUE(paths.contains("apis/coordination.k8s.io/v1"));
  EXPECT_EQ(documents.v3("api/v1")->hash.size(), 128u);  // SHA-512, upper-case hex
  EXPECT_EQ(documents.v3("apis/apps/v1"), nullptr);
}

// What kubectl's query-param verifier and apply look for (kubectl-wire.md 5.3).
TEST_F(OpenApiTest, PatchOperationsTellKubectlTheServerValidatesAndTakesStrategicMergePatch) {
  json::object document = v3("api/v1");
  const auto& patch = document.at("paths").at("/api/v1/namespaces/{namespace}/configmaps/{name}").at("patch");
  EXPECT_EQ(patch.at("x-kubernetes-group-version-kind"), json::parse(R"({"group":"","kind":"ConfigMap","version":"v1"})"));
  bool field_validation = false;
  for (const auto& parameter : patch.at("parameters").as_array())
    field_validation |= parameter.at("name") == "fieldValidation";
  EXPECT_TRUE(field_validation);
  EXPECT_TRUE(patch.at("requestBody").at("content").as_object().contains("application/strategic-merge-patch+json"));
  EXPECT_EQ(patch.at("operationId"), "patchCoreV1NamespacedConfigMap");
  EXPECT_TRUE(document.at("paths").as_object().contains("/api/v1/configmaps"));
  EXPECT_TRUE(document.at("paths").as_object().contains("/api/v1/namespaces/{name}/status"));
  EXPECT_EQ(document.at("paths").at("/api/v1/namespaces/{name}").at("get").at("operationId"), "readCoreV1Namespace");
}

TEST_F(OpenApiTest, SchemasCarryKindsDescriptionsAndPatchMetadata) {
  json::object document = v3("api/v1");
  const auto& schemas = document.at("components").at("schemas").as_object();
  const auto& configmap = schemas.at("io.k8s.api.core.v1.ConfigMap");
  EXPECT_EQ(configmap.at("x-kubernetes-group-version-kind"),
            json::parse(R"([{"group":"","kind":"ConfigMap","version":"v1"}])"));
  EXPECT_EQ(configmap.at("properties").at("data").at("additionalProperties"), json::parse(R"({"type":"string"})"));
  EXPECT_EQ(configmap.at("properties").at("kind").at("type"), "string");
  EXPECT_EQ(configmap.at("properties").at("metadata").at("allOf"),
            json::parse(R"([{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}])"));
  EXPECT_FALSE(configmap.at("description").as_string().empty());
  const auto& owners = schemas.at("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta").at("properties").at("ownerReferences");
  EXPECT_EQ(owners.at("x-kubernetes-patch-merge-key"), "uid");
  EXPECT_EQ(owners.at("x-kubernetes-patch-strategy"), "merge");
  EXPECT_EQ(owners.at("x-kubernetes-list-map-keys"), json::parse(R"(["uid"])"));
  EXPECT_EQ(schemas.at("io.k8s.apimachinery.pkg.apis.meta.v1.Time"), json::parse(
      R"({"description":"A point in time with second precision, written as an RFC 3339 string (\"2026-11-30T10:00:00Z\").","type":"string","format":"date-time"})"));
  EXPECT_EQ(schemas.at("io.k8s.api.core.v1.ConfigMapList").at("x-kubernetes-group-version-kind").at(0).at("kind"),
            "ConfigMapList");
  EXPECT_FALSE(schemas.contains("io.k8s.api.coordination.v1.Lease"));  // only this group version's closure
}

// Every $ref in every document resolves to a schema of the same document.
TEST_F(OpenApiTest, EveryReferenceResolves) {
  auto check = [](const json::object& document, std::string_view prefix, const json::object& schemas) {
    std::function<void(const json::value&)> walk = [&](const json::value& value) {
      if (value.is_array())
        for (const auto& item : value.as_array()) walk(item);
      if (!value.is_object()) return;
      for (const auto& [key, child] : value.as_object()) {
        if (key == "$ref") {
          std::string_view ref = child.as_string();
          ASSERT_TRUE(ref.starts_with(prefix)) << ref;
          EXPECT_TRUE(schemas.contains(ref.substr(prefix.size()))) << ref;
        }
        walk(child);
      }
    };
    walk(document);
  };
  for (std::string_view path : {"api/v1", "apis/coordination.k8s.io/v1"}) {
    json::object document = v3(path);
    check(document, "#/components/schemas/", document.at("components").at("schemas").as_object());
  }
  json::object v2 = json::parse(documents.v2().body).as_object();
  EXPECT_EQ(v2.at("swagger"), "2.0");
  check(v2, "#/definitions/", v2.at("definitions").as_object());
  EXPECT_TRUE(v2.at("paths").as_object().contains("/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name}"));
}

}  // namespace
}  // namespace kapi::schema::openapi_test
