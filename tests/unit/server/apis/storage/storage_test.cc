// storage.k8s.io/v1 as kube's registry keeps it: definitions, SetDefaults_StorageClass/_CSIDriver, the validation
// messages of pkg/apis/storage/validation and the printers' cells.
#include "server/apis/storage/storage.h"
#include "tests/unit/server/apis/strategy_testing.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace kapi::apis::storage_test {
namespace {

namespace json = boost::json;

using strategy_testing::parse;

using strategy_testing::messages;

TEST(StorageTest, ServedAsKubeNamesThem) {
  EXPECT_EQ(storageclasses().definition.short_names, (std::vector<std::string>{"sc"}));
  EXPECT_FALSE(storageclasses().definition.namespaced);
  EXPECT_FALSE(csidrivers().definition.namespaced);
  EXPECT_FALSE(csinodes().definition.namespaced);
  EXPECT_TRUE(csistoragecapacities().definition.namespaced);
}

TEST(StorageTest, StorageClassDefaultsValidationAndPrinter) {
  auto strategy = storageclasses().strategy;
  json::object object = parse(R"({"metadata":{"name":"s","annotations":{"storageclass.beta.kubernetes.io/is-default-class":"true"}},
    "provisioner":"Example.com/Provisioner","allowVolumeExpansion":true,
    "allowedTopologies":[{"matchLabelExpressions":[{"key":"zone","values":["a","a"]},{"key":"zone","values":[]}]}]})");
  strategy->prepare_for_create(object);
  EXPECT_EQ(object["reclaimPolicy"], "Delete");
  EXPECT_EQ(object["volumeBindingMode"], "Immediate");
  EXPECT_EQ(messages(strategy->validate(object)),
            "allowedTopologies[0].matchLabelExpressions[0].values[1]: Duplicate value: \"a\"\n"
            "allowedTopologies[0].matchLabelExpressions[1].values: Required value\n"
            "allowedTopologies[0].matchLabelExpressions[1].key: Duplicate value: \"zone\"\n");
  json::array cells = strategy->table_cells(object);
  EXPECT_EQ(cells[0], "s (default)");
  EXPECT_EQ(cells[2], "Delete");
  EXPECT_EQ(cells[3], "Immediate");
  EXPECT_EQ(cells[4], true);

  json::object updated = object;
  updated["parameters"] = parse(R"({"a":"b"})");
  EXPECT_NE(messages(strategy->validate_update(updated, object)).find("parameters: Forbidden: updates to parameters are forbidden.\n"),
            std::string::npos);
}

TEST(StorageTest, CSIDriverDefaultsAndRules) {
  auto strategy = csidrivers().strategy;
  json::object driver = parse(R"({"metadata":{"name":"Bad_Driver"},"spec":{"fsGroupPolicy":"Sometimes",
    "volumeLifecycleModes":["Persistent","Forever"],
    "tokenRequests":[{"audience":"a","expirationSeconds":60},{"audience":"a"}]}})");
  strategy->prepare_for_create(driver);
  const auto& spec = driver["spec"].as_object();
  EXPECT_EQ(spec.at("attachRequired"), true);
  EXPECT_EQ(spec.at("seLinuxMount"), false);
  EXPECT_EQ(messages(strategy->validate(driver)),
            "name: Invalid value: \"Bad_Driver\": a lowercase RFC 1123 subdomain must consist of lower case "
            "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
            "'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\n"
            "spec.fsGroupPolicy: Unsupported value: \"Sometimes\": supported values: \"File\", \"None\", "
            "\"ReadWriteOnceWithFSType\"\n"
            "spec.tokenRequests[0].expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes\n"
            "spec.tokenRequests[1].audience: Duplicate value: \"a\"\n"
            "spec.volumeLifecycleModes: Unsupported value: \"Forever\": supported values: \"Persistent\", \"Ephemeral\"\n");
  json::object good = parse(R"({"metadata":{"name":"d.example.com"},"spec":{}})");
  strategy->prepare_for_create(good);
  json::object changed = good;
  changed["spec"].as_object()["volumeLifecycleModes"] = json::array{"Ephemeral"};
  EXPECT_EQ(messages(strategy->validate_update(changed, good)),
            "spec.volumeLifecycleModes: Invalid value: []storage.VolumeLifecycleMode{\"Ephemeral\"}: field is immutable\n");
  json::object republished = good;
  republished["spec"].as_object()["requiresRepublish"] = true;
  strategy->prepare_for_update(republished, good);
  EXPECT_EQ(republished["metadata"].as_object()["generation"], 1);
  json::array cells = strategy->table_cells(good);
  EXPECT_EQ(cells[4], "<unset>");
  EXPECT_EQ(cells[6], "Persistent");
}

TEST(StorageTest, CSINodeAndCapacityRules) {
  json::object node = parse(R"({"metadata":{"name":"n"},"spec":{"drivers":[
    {"name":"d.example.com","nodeID":"","allocatable":{"count":-1}},{"name":"d.example.com","nodeID":"x","topologyKeys":["k","k"]}]}})");
  EXPECT_EQ(messages(csinodes().strategy->validate(node)),
            "spec.drivers[0].nodeID: Required value\n"
            "spec.drivers[0].allocatable.count: Invalid value: -1: must be greater than or equal to 0\n"
            "spec.drivers[1].name: Duplicate value: \"d.example.com\"\n"
            "spec.drivers[1]: Duplicate value: \"k\"\n");
  EXPECT_EQ(csinodes().strategy->table_cells(node)[1], 2);
  json::object capacity = parse(R"({"metadata":{"name":"c","namespace":"default"},"storageClassName":"","capacity":"-1Gi"})");
  EXPECT_EQ(messages(csistoragecapacities().strategy->validate(capacity)),
            "storageClassName: Invalid value: \"\": a lowercase RFC 1123 subdomain must consist of lower case "
            "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
            "'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\n"
            "capacity: Invalid value: \"-1Gi\": must be greater than or equal to 0\n");
  EXPECT_EQ(csistoragecapacities().strategy->table_cells(parse(R"({"metadata":{"name":"c"},"storageClassName":"s"})"))[2],
            "<unset>");
}

TEST(StorageTest, VolumeAttachmentStatusSpecAndPrinter) {
  auto strategy = volumeattachments().strategy;
  EXPECT_EQ(volumeattachments().definition.subresources, (std::vector<std::string>{"status"}));
  json::object attachment = parse(R"({"metadata":{"name":"va"},"spec":{"attacher":"d.example.com","nodeName":"n1",
    "source":{"persistentVolumeName":"pv-1"}},"status":{"attached":true}})");
  strategy->prepare_for_create(attachment);
  EXPECT_EQ(attachment["status"], parse(R"({"attached":false})"));
  EXPECT_EQ(messages(strategy->validate(attachment)), "");
  json::array cells = strategy->table_cells(attachment);
  EXPECT_EQ(cells[1], "d.example.com");
  EXPECT_EQ(cells[2], "pv-1");
  EXPECT_EQ(cells[3], "n1");
  EXPECT_EQ(cells[4], false);
  json::object moved = attachment;
  moved["spec"].as_object()["nodeName"] = "n2";
  EXPECT_NE(messages(strategy->validate_update(moved, attachment)).find("field is immutable"), std::string::npos);
  json::object long_error = attachment;
  long_error["status"] = json::object{{"attachError", json::object{{"message", std::string(1025, 'x')}}}};
  EXPECT_EQ(messages(strategy->validate(long_error)), "status.attachError.message: Too long: may not be more than 1024 bytes\n");
}

}  // namespace
}  // namespace kapi::apis::storage_test
