// APIServices as kube-aggregator's registry keeps them: the type in the schema catalog, the resource definition,
// the v1 default port, ValidateAPIService and ValidateAPIServiceStatus word for word, the strategy's status
// handling (a local APIService is Available on create, updates keep the stored status) and the printer's cells.
#include "server/aggregator/apiservices.h"
#include "server/schema/catalog.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <google/protobuf/descriptor.h>

namespace kapi::aggregator::apiservices_test {
namespace {

namespace json = boost::json;

json::object parse(std::string_view text) { return json::parse(text).as_object(); }

std::string messages(const validation::ErrorList& errors) {
  std::string out;
  for (const auto& error : errors) out += error.text() + "\n";
  return out;
}

// What the Store does with a new object before validating it (the generic ObjectMeta checks aside).
std::string create_errors(json::object object) {
  auto strategy = apiservices_strategy();
  strategy->prepare_for_create(object);
  return messages(strategy->validate(object));
}

json::object remote(std::string_view name, std::string_view group, std::string_view version) {
  json::object object = parse(R"({"metadata":{},"spec":{"service":{"namespace":"ns","name":"api"},
                                  "groupPriorityMinimum":1000,"versionPriority":15,"caBundle":"Y2E="}})");
  object["metadata"].as_object()["name"] = name;
  object["spec"].as_object()["group"] = group;
  object["spec"].as_object()["version"] = version;
  return object;
}

TEST(APIServiceCatalogTest, KindIsKubeAggregators) {
  const schema::Catalog catalog = schema::Catalog::builtin();
  const auto* kind = catalog.kind("apiregistration.k8s.io", "v1", "APIService");
  ASSERT_NE(kind, nullptr);
  EXPECT_EQ(kind->full_name(), "k8s.io.kube_aggregator.pkg.apis.apiregistration.v1.APIService");
  EXPECT_EQ(schema::Catalog::openapi_name(kind), "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService");
  EXPECT_NE(catalog.kind("apiregistration.k8s.io", "v1", "APIServiceList"), nullptr);
  const auto* spec = catalog.message("k8s.io.kube_aggregator.pkg.apis.apiregistration.v1.APIServiceSpec");
  ASSERT_NE(spec, nullptr);
  // kube's field numbers (6 was the removed priority).
  EXPECT_EQ(spec->FindFieldByName("service")->number(), 1);
  EXPECT_EQ(spec->FindFieldByName("caBundle")->number(), 5);
  EXPECT_EQ(spec->FindFieldByName("groupPriorityMinimum")->number(), 7);
  EXPECT_EQ(spec->FindFieldByName("versionPriority")->number(), 8);
  EXPECT_EQ(spec->FindFieldByNumber(6), nullptr);
  const auto* reference = catalog.message("k8s.io.kube_aggregator.pkg.apis.apiregistration.v1.ServiceReference");
  ASSERT_NE(reference, nullptr);
  EXPECT_EQ(reference->FindFieldByName("port")->number(), 3);
  const auto* condition = catalog.message("k8s.io.kube_aggregator.pkg.apis.apiregistration.v1.APIServiceCondition");
  ASSERT_NE(condition, nullptr);
  EXPECT_EQ(condition->FindFieldByName("message")->number(), 5);
  // Built-in groups are unaffected.
  EXPECT_NE(catalog.kind("flowcontrol.apiserver.k8s.io", "v1", "FlowSchema"), nullptr);
}

TEST(APIServiceDefinitionTest, ServedAsKube) {
  const registry::ResourceDefinition definition = apiservices_definition();
  EXPECT_EQ(definition.group_version(), "apiregistration.k8s.io/v1");
  EXPECT_EQ(definition.resource, "apiservices");
  EXPECT_EQ(definition.kind, "APIService");
  EXPECT_EQ(definition.list_kind(), "APIServiceList");
  EXPECT_EQ(definition.singular, "apiservice");
  EXPECT_FALSE(definition.namespaced);
  EXPECT_TRUE(definition.short_names.empty());
  EXPECT_EQ(definition.categories, std::vector<std::string>{"api-extensions"});
  EXPECT_EQ(definition.subresources, std::vector<std::string>{"status"});
  EXPECT_EQ(definition.storage_resource, "apiregistration.k8s.io/apiservices");
  auto strategy = apiservices_strategy();
  EXPECT_FALSE(strategy->allow_create_on_update());
  EXPECT_FALSE(strategy->tracks_generation());
  EXPECT_TRUE(strategy->name_is_path_segment());
}

TEST(APIServiceDefaultsTest, ServicePort443) {
  json::object object = remote("v1.example.com", "example.com", "v1");
  apply_apiservice_defaults(object);
  EXPECT_EQ(object.at("spec").at("service").at("port"), 443);
  object["spec"].as_object()["service"].as_object()["port"] = 8443;
  apply_apiservice_defaults(object);
  EXPECT_EQ(object.at("spec").at("service").at("port"), 8443);
  json::object local = parse(R"({"metadata":{"name":"v1."},"spec":{"version":"v1","service":null}})");
  apply_apiservice_defaults(local);
  EXPECT_TRUE(local.at("spec").at("service").is_null());
  // The strategy applies it on create and update.
  json::object created = remote("v1.example.com", "example.com", "v1");
  apiservices_strategy()->prepare_for_create(created);
  EXPECT_EQ(created.at("spec").at("service").at("port"), 443);
  json::object updated = remote("v1.example.com", "example.com", "v1");
  apiservices_strategy()->prepare_for_update(updated, created);
  EXPECT_EQ(updated.at("spec").at("service").at("port"), 443);
}

TEST(APIServiceValidationTest, ValidObjects) {
  EXPECT_EQ(create_errors(remote("v1beta1.metrics.k8s.io", "metrics.k8s.io", "v1beta1")), "");
  EXPECT_EQ(create_errors(parse(R"({"metadata":{"name":"v1."},"spec":{"version":"v1","groupPriorityMinimum":18000,
                                    "versionPriority":1}})")),
            "");
  EXPECT_EQ(create_errors(parse(R"({"metadata":{"name":"v1.apps"},"spec":{"group":"apps","version":"v1",
                                    "service":null,"groupPriorityMinimum":17800,"versionPriority":15}})")),
            "");
  json::object insecure = remote("v1.example.com", "example.com", "v1");
  insecure["spec"].as_object().erase("caBundle");
  insecure["spec"].as_object()["insecureSkipTLSVerify"] = true;
  EXPECT_EQ(create_errors(insecure), "");
}

TEST(APIServiceValidationTest, NameMustBeVersionDotGroup) {
  EXPECT_EQ(create_errors(remote("v1.other.com", "example.com", "v1")),
            "metadata.name: Invalid value: \"v1.other.com\": must be `spec.version+\".\"+spec.group`: "
            "\"v1.example.com\"\n");
  EXPECT_EQ(create_errors(parse(R"({"metadata":{"name":"v1"},"spec":{"version":"v1","groupPriorityMinimum":1,
                                    "versionPriority":1}})")),
            "metadata.name: Invalid value: \"v1\": must be `spec.version+\".\"+spec.group`: \"v1.\"\n");
  // The path segment rules are the Store's (name_is_path_segment); the version.group rule waits for them.
  EXPECT_EQ(create_errors(remote("v1/x", "example.com", "v1")), "");
}

TEST(APIServiceValidationTest, GroupAndVersion) {
  EXPECT_EQ(create_errors(remote("v2.", "", "v2")),
            "spec.group: Required value: only v1 may have an empty group and it better be legacy kube\n");
  EXPECT_EQ(create_errors(remote("v1.Example_com", "Example_com", "v1")),
            "spec.group: Invalid value: \"Example_com\": a lowercase RFC 1123 subdomain must consist of lower case "
            "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
            "'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\n");
  const std::string dns1035 =
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
      "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation "
      "is '[a-z]([-a-z0-9]*[a-z0-9])?')";
  EXPECT_EQ(create_errors(remote("1v.example.com", "example.com", "1v")),
            "spec.version: Invalid value: \"1v\": " + dns1035 + "\n");
  EXPECT_EQ(create_errors(remote(".example.com", "example.com", "")),
            "spec.version: Invalid value: \"\": " + dns1035 + "\n");
  const std::string long_version = "v" + std::string(63, 'a');
  EXPECT_EQ(create_errors(remote(long_version + ".example.com", "example.com", long_version)),
            "spec.version: Invalid value: \"" + long_version + "\": must be no more than 63 characters\n");
}

TEST(APIServiceValidationTest, Priorities) {
  json::object object = remote("v1.example.com", "example.com", "v1");
  object["spec"].as_object().erase("groupPriorityMinimum");
  object["spec"].as_object()["versionPriority"] = 1001;
  EXPECT_EQ(create_errors(object),
            "spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000\n"
            "spec.versionPriority: Invalid value: 1001: must be positive and less than 1000\n");
  object["spec"].as_object()["groupPriorityMinimum"] = 20001;
  object["spec"].as_object()["versionPriority"] = -1;
  EXPECT_EQ(create_errors(object),
            "spec.groupPriorityMinimum: Invalid value: 20001: must be positive and less than 20000\n"
            "spec.versionPriority: Invalid value: -1: must be positive and less than 1000\n");
  object["spec"].as_object()["groupPriorityMinimum"] = 20000;
  object["spec"].as_object()["versionPriority"] = 1000;
  EXPECT_EQ(create_errors(object), "");
}

TEST(APIServiceValidationTest, LocalMayNotHaveTLSSettings) {
  json::object object = parse(R"({"metadata":{"name":"v1.example.com"},"spec":{"group":"example.com",
      "version":"v1","groupPriorityMinimum":100,"versionPriority":10,"caBundle":"Y2EtYnVuZGxl",
      "insecureSkipTLSVerify":true}})");
  EXPECT_EQ(create_errors(object),
            "spec.caBundle: Invalid value: \"9 bytes\": local APIServices may not have a caBundle\n"
            "spec.insecureSkipTLSVerify: Invalid value: true: local APIServices may not have insecureSkipTLSVerify\n");
}

TEST(APIServiceValidationTest, ServiceReference) {
  json::object object = remote("v1.example.com", "example.com", "v1");
  object["spec"].as_object()["service"] = json::object{{"port", 0}};
  object["spec"].as_object()["insecureSkipTLSVerify"] = true;
  EXPECT_EQ(create_errors(object),
            "spec.service.namespace: Required value\n"
            "spec.service.name: Required value\n"
            "spec.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive\n"
            "spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle is present\n");
  object["spec"].as_object()["service"] = json::object{{"namespace", "ns"}, {"name", "api"}, {"port", 65536}};
  object["spec"].as_object()["insecureSkipTLSVerify"] = false;
  EXPECT_EQ(create_errors(object),
            "spec.service.port: Invalid value: 65536: port is not valid: must be between 1 and 65535, inclusive\n");
  object["spec"].as_object()["service"].as_object()["port"] = 65535;
  EXPECT_EQ(create_errors(object), "");
}

TEST(APIServiceValidationTest, StatusConditions) {
  json::object object = remote("v1.example.com", "example.com", "v1");
  object["status"] = parse(R"({"conditions":[{"type":"Available","status":"True"},
                                             {"type":"Available","status":"Maybe"},{"type":"X"}]})");
  EXPECT_EQ(messages(validate_apiservice_status(object)),
            "status.conditions[1].status: Unsupported value: \"Maybe\": supported values: \"True\", \"False\", "
            "\"Unknown\"\n"
            "status.conditions[2].status: Unsupported value: \"\": supported values: \"True\", \"False\", "
            "\"Unknown\"\n");
  // A status write (the Store's validate_update) checks the conditions too.
  json::object old = remote("v1.example.com", "example.com", "v1");
  EXPECT_NE(messages(apiservices_strategy()->validate_update(object, old)), "");
}

TEST(APIServiceStrategyTest, CreateClearsStatusAndMarksLocalAvailable) {
  auto strategy = apiservices_strategy();
  json::object object = remote("v1.example.com", "example.com", "v1");
  object["status"] = parse(R"({"conditions":[{"type":"Available","status":"True","reason":"Lie"}]})");
  strategy->prepare_for_create(object);
  EXPECT_EQ(object.at("status"), json::object());

  json::object local = parse(R"({"metadata":{"name":"v1.apps"},"spec":{"group":"apps","version":"v1",
      "groupPriorityMinimum":17800,"versionPriority":15},
      "status":{"conditions":[{"type":"Available","status":"False","reason":"Lie"}]}})");
  strategy->prepare_for_create(local);
  const json::array& conditions = local.at("status").at("conditions").as_array();
  ASSERT_EQ(conditions.size(), 1u);
  const json::object& condition = conditions[0].as_object();
  EXPECT_EQ(condition.at("type"), "Available");
  EXPECT_EQ(condition.at("status"), "True");
  EXPECT_EQ(condition.at("reason"), "Local");
  EXPECT_EQ(condition.at("message"), "Local APIServices are always available");
  ASSERT_TRUE(condition.at("lastTransitionTime").is_string());
  EXPECT_EQ(condition.at("lastTransitionTime").as_string().size(), 20u);  // 2006-01-02T15:04:05Z
}

TEST(APIServiceStrategyTest, UpdateKeepsStoredStatus) {
  auto strategy = apiservices_strategy();
  json::object old = remote("v1.example.com", "example.com", "v1");
  old["status"] = parse(R"({"conditions":[{"type":"Available","status":"False","reason":"MissingEndpoints"}]})");
  json::object object = remote("v1.example.com", "example.com", "v1");
  object["status"] = parse(R"({"conditions":[{"type":"Available","status":"True"}]})");
  strategy->prepare_for_update(object, old);
  EXPECT_EQ(object.at("status"), old.at("status"));
  json::object without = remote("v1.example.com", "example.com", "v1");
  json::object changed = remote("v1.example.com", "example.com", "v1");
  changed["status"] = parse(R"({"conditions":[]})");
  strategy->prepare_for_update(changed, without);
  EXPECT_FALSE(changed.contains("status"));
}

TEST(APIServiceTableTest, ColumnsAndCells) {
  auto strategy = apiservices_strategy();
  const auto columns = strategy->table_columns();
  ASSERT_EQ(columns.size(), 4u);
  EXPECT_EQ(columns[0].name, "Name");
  EXPECT_EQ(columns[0].format, "name");
  EXPECT_EQ(columns[1].name, "Service");
  EXPECT_EQ(columns[1].description, "The reference to the service that hosts this API endpoint.");
  EXPECT_EQ(columns[2].name, "Available");
  EXPECT_EQ(columns[2].description, "Whether this service is available.");
  EXPECT_EQ(columns[3].name, "Age");
  for (const auto& column : columns) EXPECT_EQ(column.priority, 0) << column.name;

  json::object local = parse(R"({"metadata":{"name":"v1.apps"},"spec":{"group":"apps","version":"v1"},
      "status":{"conditions":[{"type":"Available","status":"True","reason":"Local"}]}})");
  EXPECT_EQ(strategy->table_cells(local), (json::array{"v1.apps", "Local", "True", "<unknown>"}));

  json::object unavailable = remote("v1beta1.metrics.k8s.io", "metrics.k8s.io", "v1beta1");
  unavailable["metadata"].as_object()["creationTimestamp"] = "2000-01-01T00:00:00Z";
  unavailable["status"] =
      parse(R"({"conditions":[{"type":"Other","status":"True"},
                              {"type":"Available","status":"False","reason":"MissingEndpoints"}]})");
  json::array cells = strategy->table_cells(unavailable);
  ASSERT_EQ(cells.size(), 4u);
  EXPECT_EQ(cells[0], "v1beta1.metrics.k8s.io");
  EXPECT_EQ(cells[1], "ns/api");
  EXPECT_EQ(cells[2], "False (MissingEndpoints)");
  EXPECT_TRUE(cells[3].as_string().ends_with("y")) << cells[3];

  unavailable["status"] = parse(R"({"conditions":[{"type":"Available","status":"False"}]})");
  EXPECT_EQ(strategy->table_cells(unavailable)[2], "False");
  unavailable["status"] = json::object();
  EXPECT_EQ(strategy->table_cells(unavailable)[2], "Unknown");
  unavailable["spec"].as_object()["service"] = nullptr;
  EXPECT_EQ(strategy->table_cells(unavailable)[1], "Local");
}

}  // namespace
}  // namespace kapi::aggregator::apiservices_test
