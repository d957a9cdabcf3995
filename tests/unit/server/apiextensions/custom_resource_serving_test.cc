// The serving side of custom resources, below HTTP: a stored CRD read into its model, kube's version priority,
// the printer columns' JSONPath subset, None conversion's apiVersion rewrite, and the custom resource strategy
// (conforming bodies, validation, Table cells, scale paths).
#include "server/apiextensions/crd_model.h"
#include "server/apiextensions/custom_resource_strategy.h"
#include "server/apiextensions/jsonpath.h"
#include "server/apiextensions/none_conversion.h"
#include "server/registry/table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <algorithm>

namespace kapi::apiextensions::custom_resource_serving_test {
namespace {

namespace json = boost::json;
using ::testing::ElementsAre;

const kapi::schema::Catalog& catalog() {
  static const kapi::schema::Catalog kCatalog = kapi::schema::Catalog::builtin();
  return kCatalog;
}

json::object widget_crd() {
  return json::parse(R"({"kind":"CustomResourceDefinition","apiVersion":"apiextensions.k8s.io/v1",
    "metadata":{"name":"widgets.example.com","uid":"u1"},
    "spec":{"group":"example.com","scope":"Namespaced",
      "names":{"plural":"widgets","kind":"Widget","shortNames":["wd"],"categories":["all"]},
      "versions":[
        {"name":"v1beta1","served":true,"storage":false,"deprecated":true,
         "schema":{"openAPIV3Schema":{"type":"object"}}},
        {"name":"v1","served":true,"storage":true,
         "subresources":{"status":{},"scale":{"specReplicasPath":".spec.replicas",
                                              "statusReplicasPath":".status.replicas",
                                              "labelSelectorPath":".status.selector"}},
         "additionalPrinterColumns":[
           {"name":"Size","type":"string","jsonPath":".spec.size"},
           {"name":"Replicas","type":"integer","jsonPath":".spec.replicas","priority":1},
           {"name":"Ready","type":"string","jsonPath":".status.conditions[?(@.type==\"Ready\")].status"},
           {"name":"Created","type":"date","jsonPath":".metadata.creationTimestamp"}],
         "schema":{"openAPIV3Schema":{"type":"object","properties":{
           "spec":{"type":"object","properties":{
             "size":{"type":"string","enum":["small","large"]},
             "replicas":{"type":"integer","default":1}}},
           "status":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}}}]},
    "status":{"acceptedNames":{"plural":"widgets","kind":"Widget","shortNames":["wd"],"categories":["all"]},
      "conditions":[{"type":"NamesAccepted","status":"True"},{"type":"Established","status":"True"}]}})")
      .as_object();
}

TEST(CrdModelTest, ReadsNamesVersionsAndConditions) {
  Crd crd = parse_crd(widget_crd());
  EXPECT_EQ(crd.name, "widgets.example.com");
  EXPECT_EQ(crd.group, "example.com");
  EXPECT_TRUE(crd.namespaced);
  EXPECT_TRUE(crd.established);
  EXPECT_TRUE(crd.names_accepted);
  EXPECT_FALSE(crd.terminating);
  // singular and listKind default as kube's v1 defaults do.
  EXPECT_EQ(crd.names.singular, "widget");
  EXPECT_EQ(crd.accepted_names.list_kind, "WidgetList");
  ASSERT_EQ(crd.versions.size(), 2u);
  EXPECT_EQ(crd.storage_version()->name, "v1");
  EXPECT_TRUE(crd.versions[0].deprecated);
  EXPECT_EQ(crd.versions[1].printer_columns[1].priority, 1);

  registry::ResourceDefinition definition = crd.resource_definition(*crd.version("v1"));
  EXPECT_EQ(definition.group_version(), "example.com/v1");
  EXPECT_EQ(definition.resource, "widgets");
  EXPECT_EQ(definition.kind, "Widget");
  EXPECT_EQ(definition.storage_resource, "example.com/widgets");
  EXPECT_TRUE(definition.unstructured);
  EXPECT_THAT(definition.short_names, ElementsAre("wd"));
  EXPECT_THAT(definition.subresources, ElementsAre("status", "scale"));
  EXPECT_THAT(crd.resource_definition(*crd.version("v1beta1")).subresources, ::testing::IsEmpty());
}

TEST(CrdModelTest, TerminatingAndNotYetAcceptedDefinitions) {
  json::object object = widget_crd();
  object["metadata"].as_object()["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  object["status"].as_object()["conditions"] = json::array{json::object{{"type", "Established"}, {"status", "False"}}};
  Crd crd = parse_crd(object);
  EXPECT_TRUE(crd.terminating);
  EXPECT_FALSE(crd.established);
  EXPECT_FALSE(crd.names_accepted);
}

TEST(CrdModelTest, VersionsSortInKubesPriorityOrder) {
  std::vector<std::string> versions{"foo10", "v1beta1", "v11alpha2", "v1", "foo1", "v3beta1", "v10",
                                    "v12alpha1", "v2", "v10beta3", "v11beta2"};
  std::sort(versions.begin(), versions.end(), kube_aware_version_before);
  EXPECT_THAT(versions, ElementsAre("v10", "v2", "v1", "v11beta2", "v10beta3", "v3beta1", "v1beta1", "v12alpha1",
                                    "v11alpha2", "foo1", "foo10"));
}

TEST(CrdModelTest, OpenApiDefinitionNamesReverseTheGroup) {
  EXPECT_EQ(openapi_definition_name("example.com", "v1", "Widget"), "com.example.v1.Widget");
  EXPECT_EQ(openapi_definition_name("stuff.example.org", "v1beta1", "Thing"), "org.example.stuff.v1beta1.Thing");
}

TEST(JsonPathTest, FindsFieldsIndexesWildcardsAndFilters) {
  json::value object = json::parse(R"({"spec":{"replicas":3,"a.b":"dotted"},
    "status":{"conditions":[{"type":"Ready","status":"True"},{"type":"Synced","status":"False"}]},
    "list":[1,2,3]})");
  auto first = [&](std::string_view path) -> std::string {
    auto parsed = JsonPath::parse(path);
    if (!parsed) return "<invalid>";
    auto found = parsed->find(object);
    return found.empty() ? "<none>" : json::serialize(*found.front());
  };
  EXPECT_EQ(first(".spec.replicas"), "3");
  EXPECT_EQ(first("{.spec.replicas}"), "3");
  EXPECT_EQ(first(".spec['a.b']"), "\"dotted\"");
  EXPECT_EQ(first(".status.conditions[?(@.type==\"Synced\")].status"), "\"False\"");
  EXPECT_EQ(first(".status.conditions[1].type"), "\"Synced\"");
  EXPECT_EQ(first(".list[-1]"), "3");
  EXPECT_EQ(first(".spec.missing"), "<none>");
  EXPECT_EQ(first("spec"), "<invalid>");
  EXPECT_EQ(first(".spec["), "<invalid>");
  EXPECT_EQ(JsonPath::parse(".status.conditions[*].type")->find(object).size(), 2u);
  EXPECT_THAT(*JsonPath::parse(".spec.replicas")->field_names(), ElementsAre("spec", "replicas"));
  EXPECT_FALSE(JsonPath::parse(".list[0]")->field_names().has_value());
}

TEST(NoneConversionTest, RewritesApiVersionInPlaceOrByParsing) {
  EXPECT_EQ(with_api_version(R"({"kind":"Widget","apiVersion":"example.com/v1","metadata":{}})", "example.com/v2"),
            R"({"kind":"Widget","apiVersion":"example.com/v2","metadata":{}})");
  EXPECT_EQ(with_api_version(R"({"apiVersion":"example.com/v1","kind":"Widget"})", "example.com/v2"),
            R"({"apiVersion":"example.com/v2","kind":"Widget"})");
  // Objects of another shape are parsed and written again.
  EXPECT_EQ(with_api_version(R"({"metadata":{},"apiVersion":"example.com/v1"})", "example.com/v2"),
            R"({"metadata":{},"apiVersion":"example.com/v2"})");
  EXPECT_EQ(with_api_version(R"({"kind":"Widget","apiVersion":"example.com/v2"})", "example.com/v2"),
            R"({"kind":"Widget","apiVersion":"example.com/v2"})");
}

TEST(CustomResourceStrategyTest, ConformsValidatesAndPrints) {
  Crd crd = parse_crd(widget_crd());
  auto strategy = custom_resource_strategy(catalog(), crd, *crd.version("v1"));

  json::object object = json::parse(R"({"apiVersion":"example.com/v1","kind":"Widget",
    "metadata":{"name":"w","creationTimestamp":"2020-01-01T00:00:00Z"},
    "spec":{"size":"huge","extra":true},"status":{"conditions":[{"type":"Ready","status":"True"}]}})")
                            .as_object();
  auto unknown = strategy->conform(object);
  ASSERT_TRUE(unknown.has_value());
  EXPECT_THAT(*unknown, ElementsAre("spec.extra"));
  EXPECT_EQ(json::serialize(object["spec"]), R"({"size":"huge","replicas":1})");

  auto errors = strategy->validate(object);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].text(), R"(spec.size: Unsupported value: "huge": supported values: "small", "large")");

  std::vector<std::string> headers;
  for (const auto& column : strategy->table_columns()) headers.push_back(column.name);
  EXPECT_THAT(headers, ElementsAre("Name", "Size", "Replicas", "Ready", "Created"));
  EXPECT_EQ(strategy->table_columns()[2].priority, 1);
  json::array cells = strategy->table_cells(object);
  ASSERT_EQ(cells.size(), 5u);
  EXPECT_EQ(cells[0], "w");
  EXPECT_EQ(cells[1], "huge");
  EXPECT_EQ(cells[2], 1);
  EXPECT_EQ(cells[3], "True");
  EXPECT_EQ(cells[4], json::value(registry::age_of(object)));  // a date column shows the age, as kube's does
  json::object bad_date = object;
  bad_date["metadata"].as_object()["creationTimestamp"] = "yesterday";
  EXPECT_EQ(strategy->table_cells(bad_date)[4], "<invalid>");
  object["spec"].as_object().erase("size");
  EXPECT_TRUE(strategy->table_cells(object)[1].is_null());

  // The status subresource: a create drops status; scale paths come from the CRD; no strategic merge patch.
  strategy->prepare_for_create(object);
  EXPECT_FALSE(object.contains("status"));
  auto scale = strategy->scale_paths();
  ASSERT_TRUE(scale.has_value());
  EXPECT_THAT(scale->spec_replicas, ElementsAre("spec", "replicas"));
  EXPECT_THAT(scale->label_selector, ElementsAre("status", "selector"));
  EXPECT_FALSE(strategy->strategic_merge_patch());
  EXPECT_FALSE(strategy->generation_counts_status());
  json::object negative = json::parse(R"({"spec":{"size":"small","replicas":-1}})").as_object();
  auto scale_errors = strategy->validate(negative);
  ASSERT_FALSE(scale_errors.empty());
  EXPECT_EQ(scale_errors.back().text(), "spec.replicas: Invalid value: -1: should be a non-negative integer");

  // Lists of type set take no duplicates (kube's ValidateListSetsAndMaps runs with the schema's validation).
  json::object with_set = widget_crd();
  json::object& v1_schema = with_set["spec"].as_object()["versions"].as_array()[1].as_object()["schema"].as_object()
                                ["openAPIV3Schema"].as_object();
  v1_schema["properties"].as_object()["spec"].as_object()["properties"].as_object()["tags"] =
      json::object{{"type", "array"}, {"items", json::object{{"type", "string"}}}, {"x-kubernetes-list-type", "set"}};
  Crd set_crd = parse_crd(with_set);
  auto set_strategy = custom_resource_strategy(catalog(), set_crd, *set_crd.version("v1"));
  json::object tagged = json::parse(R"({"spec":{"size":"small","tags":["a","b","a"]}})").as_object();
  auto set_errors = set_strategy->validate(tagged);
  ASSERT_EQ(set_errors.size(), 1u);
  EXPECT_EQ(set_errors[0].text(), R"(spec.tags[2]: Duplicate value: "a")");

  // A deprecated version warns on every request; without printer columns the table has Age.
  auto deprecated = custom_resource_strategy(catalog(), crd, *crd.version("v1beta1"));
  EXPECT_THAT(deprecated->request_warnings(), ElementsAre("example.com/v1beta1 Widget is deprecated; use example.com/v1 Widget"));
  std::vector<std::string> default_headers;
  for (const auto& column : deprecated->table_columns()) default_headers.push_back(column.name);
  EXPECT_THAT(default_headers, ElementsAre("Name", "Age"));
  EXPECT_TRUE(deprecated->generation_counts_status());
}

}  // namespace
}  // namespace kapi::apiextensions::custom_resource_serving_test
