// Endpoints, events and nodes as kube's registries keep them: storage keys, validation messages, field
// selectors and the cells of printEndpoints, printEvent and printNode.
#include "server/apis/resource_storage.h"
#include "tests/unit/server/apis/strategy_testing.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace kapi::apis::other_core_test {
namespace {

namespace json = boost::json;

using strategy_testing::parse;

using strategy_testing::messages;

std::vector<std::string> column_names(const registry::Strategy& strategy) {
  std::vector<std::string> names;
  for (const auto& column : strategy.table_columns()) names.push_back(column.name + (column.priority ? "*" : ""));
  return names;
}

TEST(EndpointsTest, StoredBesideServicesAndValidatedAsKube) {
  ResourceStorage storage = endpoints();
  EXPECT_EQ(storage.definition.storage_resource, "services/endpoints");
  EXPECT_TRUE(storage.strategy->allow_create_on_update());
  json::object object = parse(R"({"metadata":{"name":"web","namespace":"default"},"subsets":[
      {"addresses":[{"ip":"10.1.0.1"},{"ip":"127.0.0.1"},{"ip":"bad"}],
       "ports":[{"port":80,"protocol":"TCP"},{"name":"Metrics","port":70000,"protocol":"TCP"}]},
      {"ports":[{"port":53,"protocol":"UDP"}]}]})");
  EXPECT_EQ(messages(storage.strategy->validate(object)),
            "subsets[0].addresses[1].ip: Invalid value: \"127.0.0.1\": may not be in the loopback range "
            "(127.0.0.0/8, ::1/128)\n"
            "subsets[0].addresses[2].ip: Invalid value: \"bad\": must be a valid IP address, (e.g. 10.9.8.7 or "
            "2001:db8::ffff)\n"
            "subsets[0].addresses[2].ip: Invalid value: \"bad\": must be a valid IP address\n"
            "subsets[0].ports[0].name: Required value\n"
            "subsets[0].ports[1].name: Invalid value: \"Metrics\": a lowercase RFC 1123 label must consist of lower "
            "case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. "
            "'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')\n"
            "subsets[0].ports[1].port: Invalid value: 70000: must be between 1 and 65535, inclusive\n"
            "subsets[1]: Required value: must specify `addresses` or `notReadyAddresses`\n");
}

TEST(EndpointsTest, CellsShowThreeEndpointsAndCountTheRest) {
  ResourceStorage storage = endpoints();
  EXPECT_EQ(column_names(*storage.strategy), (std::vector<std::string>{"Name", "Endpoints", "Age"}));
  json::object none = parse(R"({"metadata":{"name":"empty"}})");
  EXPECT_EQ(storage.strategy->table_cells(none)[1], "<none>");
  json::object many = parse(R"({"metadata":{"name":"web"},"subsets":[
      {"addresses":[{"ip":"10.1.0.1"},{"ip":"10.1.0.2"}],"ports":[{"name":"http","port":80},{"name":"https","port":443}]}]})");
  EXPECT_EQ(storage.strategy->table_cells(many)[1], "10.1.0.1:80,10.1.0.2:80,10.1.0.1:443 + 1 more...");
  json::object headless = parse(R"({"metadata":{"name":"db"},"subsets":[{"addresses":[{"ip":"10.1.0.7"},{"ip":"fd00::1"}]}]})");
  EXPECT_EQ(storage.strategy->table_cells(headless)[1], "10.1.0.7,fd00::1");
}

TEST(EventsTest, ValidatedAsLegacyV1Events) {
  ResourceStorage storage = events();
  EXPECT_EQ(storage.definition.storage_resource, "events");
  EXPECT_TRUE(storage.strategy->allow_create_on_update());
  json::object matching = parse(R"({"metadata":{"name":"e1","namespace":"default"},
      "involvedObject":{"kind":"Pod","name":"p","namespace":"default"},"reason":"Started"})");
  EXPECT_EQ(messages(storage.strategy->validate(matching)), "");
  json::object elsewhere = parse(R"({"metadata":{"name":"e2","namespace":"default"},
      "involvedObject":{"kind":"Pod","name":"p","namespace":"other"}})");
  EXPECT_EQ(messages(storage.strategy->validate(elsewhere)),
            "involvedObject.namespace: Invalid value: \"other\": does not match event.namespace\n");
  json::object new_style = parse(R"({"metadata":{"name":"e3","namespace":"default"},
      "involvedObject":{"kind":"Node","name":"n"},"eventTime":"2024-01-01T00:00:00.000000Z"})");
  EXPECT_EQ(messages(storage.strategy->validate(new_style)),
            "reportingController: Required value\n"
            "reportingController: Invalid value: \"\": name part must be non-empty\n"
            "reportingController: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or "
            "'.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
            "'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')\n"
            "reportingInstance: Required value\n"
            "action: Required value\n"
            "reason: Required value\n");
}

TEST(EventsTest, PrintedAndSelectedAsKube) {
  ResourceStorage storage = events();
  EXPECT_EQ(column_names(*storage.strategy),
            (std::vector<std::string>{"Last Seen", "Type", "Reason", "Object", "Subobject*", "Source*", "Message",
                                      "First Seen*", "Count*", "Name*"}));
  json::object event = parse(R"({"metadata":{"name":"nginx.17a","namespace":"default"},
      "involvedObject":{"kind":"Pod","name":"nginx","namespace":"default","uid":"u1","fieldPath":"spec.containers{nginx}"},
      "reason":"Pulled","message":"  Successfully pulled image \"nginx\"\n","type":"Normal",
      "source":{"component":"kubelet","host":"node-1"},"firstTimestamp":"2020-01-01T00:00:00Z","count":3})");
  json::array row = storage.strategy->table_cells(event);
  ASSERT_EQ(row.size(), 10u);
  EXPECT_EQ(row[0], row[7]);  // no lastTimestamp: first seen stands in
  EXPECT_TRUE(row[0].as_string().ends_with("y") || row[0].as_string().ends_with("d")) << row[0];
  EXPECT_EQ(row[1], "Normal");
  EXPECT_EQ(row[2], "Pulled");
  EXPECT_EQ(row[3], "pod/nginx");
  EXPECT_EQ(row[4], "spec.containers{nginx}");
  EXPECT_EQ(row[5], "kubelet, node-1");
  EXPECT_EQ(row[6], "Successfully pulled image \"nginx\"");
  EXPECT_EQ(row[8], 3);
  EXPECT_EQ(row[9], "nginx.17a");

  registry::SelectableFields fields;
  storage.strategy->selectable_fields(event, fields);
  EXPECT_EQ(fields["involvedObject.name"], "nginx");
  EXPECT_EQ(fields["involvedObject.uid"], "u1");
  EXPECT_EQ(fields["source"], "kubelet");
  EXPECT_EQ(fields["type"], "Normal");

  json::object unknown_time = parse(R"({"metadata":{"name":"x"},"involvedObject":{"kind":"Node"}})");
  json::array bare = storage.strategy->table_cells(unknown_time);
  EXPECT_EQ(bare[0], "<unknown>");
  EXPECT_EQ(bare[3], "node");
  EXPECT_EQ(bare[8], 1);
}

TEST(NodesTest, ClusterScopedUnderMinions) {
  ResourceStorage storage = nodes(nullptr);
  EXPECT_FALSE(storage.definition.namespaced);
  EXPECT_EQ(storage.definition.storage_resource, "minions");
  EXPECT_EQ(storage.definition.subresources, (std::vector<std::string>{"proxy", "status"}));
  json::object node = parse(R"({"metadata":{"name":"n1"},"spec":{"podCIDR":"10.244.1.0/24",
      "configSource":{"configMap":{"name":"x"}}},"status":{"config":{"error":"x"},"phase":"Running"}})");
  storage.strategy->prepare_for_create(node);
  EXPECT_EQ(node["spec"], parse(R"({"podCIDR":"10.244.1.0/24","podCIDRs":["10.244.1.0/24"]})"));
  EXPECT_EQ(node["status"], parse(R"({"phase":"Running"})"));  // status may be set on create
  EXPECT_EQ(messages(storage.strategy->validate(node)), "");
}

TEST(NodesTest, ValidatedAsKube) {
  ResourceStorage storage = nodes(nullptr);
  json::object node = parse(R"({"metadata":{"name":"n1"},"spec":{"podCIDRs":["10.244.1.0/33"],
      "taints":[{"key":"dedicated","value":"db","effect":"NoSchedule"},{"key":"dedicated","value":"x","effect":"NoSchedule"},
                {"key":"k","effect":"Sometimes"}]}})");
  EXPECT_EQ(messages(storage.strategy->validate(node)),
            "metadata.taints[1]: Duplicate value: core.Taint{Key:\"dedicated\", Value:\"x\", Effect:\"NoSchedule\", "
            "TimeAdded:(*v1.Time)(nil)}: "
            "taints must be unique by key and effect pair\n"
            "metadata.taints[2].effect: Unsupported value: \"Sometimes\": supported values: \"NoSchedule\", "
            "\"PreferNoSchedule\", \"NoExecute\"\n"
            "spec.podCIDRs[0]: Invalid value: []string{\"10.244.1.0/33\"}: must be valid CIDR\n");
  json::object old = parse(R"({"metadata":{"name":"n1"},"spec":{"podCIDRs":["10.244.1.0/24"],"providerID":"aws://1"}})");
  json::object changed = parse(R"({"metadata":{"name":"n1"},"spec":{"podCIDRs":["10.244.2.0/24"],"providerID":"aws://2"}})");
  EXPECT_EQ(messages(storage.strategy->validate_update(changed, old)),
            "spec.podCIDRs: Forbidden: node updates may not change podCIDR except from \"\" to valid\n"
            "spec.providerID: Forbidden: node updates may not change providerID except from \"\" to valid\n");
}

TEST(NodesTest, PrintedAsPrintNode) {
  ResourceStorage storage = nodes(nullptr);
  EXPECT_EQ(column_names(*storage.strategy),
            (std::vector<std::string>{"Name", "Status", "Roles", "Age", "Version", "Internal-IP*", "External-IP*",
                                      "OS-Image*", "Kernel-Version*", "Container-Runtime*"}));
  json::object node = parse(R"j({"metadata":{"name":"n1","creationTimestamp":"2020-01-01T00:00:00Z",
      "labels":{"node-role.kubernetes.io/control-plane":"","node-role.kubernetes.io/etcd":"","kubernetes.io/role":"master"}},
      "spec":{"unschedulable":true},
      "status":{"conditions":[{"type":"MemoryPressure","status":"False"},{"type":"Ready","status":"True"}],
      "addresses":[{"type":"InternalIP","address":"192.168.0.10"},{"type":"Hostname","address":"n1"}],
      "nodeInfo":{"kubeletVersion":"v1.32.0","osImage":"Debian GNU/Linux 12 (bookworm)"}}})j");
  json::array row = storage.strategy->table_cells(node);
  ASSERT_EQ(row.size(), 10u);
  EXPECT_EQ(row[1], "Ready,SchedulingDisabled");
  EXPECT_EQ(row[2], "control-plane,etcd,master");
  EXPECT_EQ(row[4], "v1.32.0");
  EXPECT_EQ(row[5], "192.168.0.10");
  EXPECT_EQ(row[6], "<none>");
  EXPECT_EQ(row[7], "Debian GNU/Linux 12 (bookworm)");
  EXPECT_EQ(row[8], "<unknown>");
  json::object bare = parse(R"({"metadata":{"name":"n2"}})");
  EXPECT_EQ(storage.strategy->table_cells(bare)[1], "Unknown");
  EXPECT_EQ(storage.strategy->table_cells(bare)[2], "<none>");

  registry::SelectableFields fields;
  storage.strategy->selectable_fields(node, fields);
  EXPECT_EQ(fields["spec.unschedulable"], "true");
}

}  // namespace
}  // namespace kapi::apis::other_core_test
