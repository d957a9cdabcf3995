// Services as kube's service registry keeps them: ranges parsed as kube-apiserver's flags, cluster IPs and node
// ports allocated once each (under concurrency too) and released when the stored service goes, ValidateService's
// messages, the allocation errors' Status, printService's cells.
#include "base/uuid.h"
#include "server/apierrors/errors.h"
#include "server/apis/core/service_allocator.h"
#include "server/apis/core/service_tracker.h"
#include "server/apis/resource_storage.h"
#include "server/registry/object_meta.h"
#include "tests/unit/server/apis/strategy_testing.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <mutex>
#include <set>
#include <thread>

namespace kapi::apis {
namespace {

namespace json = boost::json;
using core::ServiceAllocator;
using core::ServiceNetwork;

using strategy_testing::parse;

// A service as decoding leaves it (markers applied) and the Store hands it over (uid and namespace set).
json::object service(std::string_view name, std::string_view spec_extra = "") {
  std::string spec = R"({"type":"ClusterIP","sessionAffinity":"None","ports":[{"port":80,"protocol":"TCP"}]})";
  if (!spec_extra.empty()) spec = spec.substr(0, spec.size() - 1) + "," + std::string(spec_extra) + "}";
  json::object object = parse(R"({"apiVersion":"v1","kind":"Service","metadata":{"namespace":"default",
      "creationTimestamp":"2020-01-01T00:00:00Z"}})");
  object["metadata"].as_object()["name"] = name;
  object["metadata"].as_object()["uid"] = base::new_uuid();
  object["spec"] = json::parse(spec);
  return object;
}

using strategy_testing::messages;

class ServicesTest : public ::testing::Test {
 protected:
  void SetUp() override { allocator_->resync({}); }

  json::object created(json::object object) const {
    storage_.strategy->prepare_for_create(object);
    return object;
  }
  // The status of what prepare_for_create threw.
  apierrors::Status create_error(json::object object) const {
    try {
      storage_.strategy->prepare_for_create(object);
    } catch (const apierrors::ApiError& error) {
      return error.status();
    }
    ADD_FAILURE() << "no error for " << json::serialize(object);
    return {};
  }
  static std::string cluster_ip(const json::object& object) {
    return std::string(object.at("spec").at("clusterIP").as_string());
  }

  std::shared_ptr<ServiceAllocator> allocator_ = std::make_shared<ServiceAllocator>(ServiceNetwork{});
  ResourceStorage storage_ = services(allocator_, nullptr);
};

TEST(ServiceRangesTest, ParseAsKubeApiserversFlags) {
  auto cidr = core::parse_service_cidr("10.96.0.7/12");
  ASSERT_TRUE(cidr);
  EXPECT_EQ(cidr->text(), "10.96.0.0/12");
  EXPECT_EQ(cidr->address(1), "10.96.0.1");
  EXPECT_EQ(cidr->offset_of("10.96.1.0"), 256u);
  EXPECT_FALSE(cidr->offset_of("10.112.0.0"));
  EXPECT_FALSE(core::parse_service_cidr("10.0.0.0/8"));
  EXPECT_FALSE(core::parse_service_cidr("10.0.0.0"));
  EXPECT_FALSE(core::parse_service_cidr("fd00::/108"));
  EXPECT_EQ(ServiceNetwork{}.first_address(), "10.0.0.1");

  auto ports = core::parse_port_range("30000-32767");
  ASSERT_TRUE(ports);
  EXPECT_EQ(ports->size, 2768);
  EXPECT_EQ(core::parse_port_range("30000+9")->text(), "30000-30009");
  EXPECT_EQ(core::parse_port_range("8080")->size, 1);
  EXPECT_FALSE(core::parse_port_range("32767-30000"));
  EXPECT_FALSE(core::parse_port_range("0-10"));
}

TEST_F(ServicesTest, IsServedAsKubeServesServices) {
  EXPECT_EQ(storage_.definition.storage_resource, "services/specs");
  EXPECT_EQ(storage_.definition.short_names, std::vector<std::string>{"svc"});
  EXPECT_EQ(storage_.definition.subresources, (std::vector<std::string>{"proxy", "status"}));
}

TEST_F(ServicesTest, CreateDefaultsAndAllocatesFromTheUpperBand) {
  json::object result = created(service("web", R"("selector":{"app":"web"})"));
  const auto& spec = result["spec"].as_object();
  const std::string ip = cluster_ip(result);
  auto offset = ServiceNetwork{}.cluster_ips.offset_of(ip);
  ASSERT_TRUE(offset) << ip;
  // /24: offsets 1..16 are kept for addresses users choose, as kube's offset band keeps them.
  EXPECT_GT(*offset, 16u);
  EXPECT_LT(*offset, 255u);
  EXPECT_EQ(spec.at("clusterIPs"), json::array{json::string(ip)});
  EXPECT_EQ(spec.at("ipFamilies"), json::array{"IPv4"});
  EXPECT_EQ(spec.at("ipFamilyPolicy"), "SingleStack");
  EXPECT_EQ(spec.at("internalTrafficPolicy"), "Cluster");
  EXPECT_EQ(spec.at("ports").at(0).at("targetPort"), 80);
  EXPECT_FALSE(spec.contains("externalTrafficPolicy"));
  EXPECT_EQ(result["status"], parse(R"({"loadBalancer":{}})"));
  EXPECT_EQ(messages(storage_.strategy->validate(result)), "");
  EXPECT_EQ(allocator_->ips_in_use(), 1u);
}

TEST_F(ServicesTest, ExplicitIpIsHonouredOnceAndCheckedAgainstTheRange) {
  json::object first = created(service("a", R"("clusterIP":"10.0.0.5")"));
  EXPECT_EQ(cluster_ip(first), "10.0.0.5");
  apierrors::Status taken = create_error(service("b", R"("clusterIP":"10.0.0.5")"));
  EXPECT_EQ(taken.code, 422);
  EXPECT_EQ(taken.message,
            "Service \"b\" is invalid: spec.clusterIPs: Invalid value: []string{\"10.0.0.5\"}: failed to allocate IP "
            "10.0.0.5: provided IP is already allocated");
  apierrors::Status outside = create_error(service("c", R"("clusterIP":"10.0.1.5")"));
  EXPECT_EQ(outside.message,
            "Service \"c\" is invalid: spec.clusterIPs: Invalid value: []string{\"10.0.1.5\"}: failed to allocate IP "
            "10.0.1.5: the provided IP (10.0.1.5) is not in the valid range. The range of valid IPs is 10.0.0.0/24");
  // Once the stored service is gone, its address is free again.
  allocator_->observe(first);
  allocator_->forget(registry::meta_string(first, "uid"));
  EXPECT_EQ(cluster_ip(created(service("b", R"("clusterIP":"10.0.0.5")"))), "10.0.0.5");
}

TEST_F(ServicesTest, HeadlessAndExternalNameServicesTakeNoAddress) {
  json::object headless = created(service("h", R"("clusterIP":"None","selector":{"app":"db"})"));
  EXPECT_EQ(cluster_ip(headless), "None");
  EXPECT_EQ(headless["spec"].at("ipFamilyPolicy"), "SingleStack");
  json::object selectorless = created(service("h2", R"("clusterIP":"None")"));
  EXPECT_EQ(selectorless["spec"].at("ipFamilyPolicy"), "RequireDualStack");
  EXPECT_EQ(messages(storage_.strategy->validate(selectorless)), "");
  json::object external = parse(R"({"metadata":{"name":"ext","namespace":"default","uid":"u-ext"},
      "spec":{"type":"ExternalName","externalName":"db.example.com","sessionAffinity":"None"}})");
  external = created(std::move(external));
  EXPECT_FALSE(external["spec"].as_object().contains("clusterIP"));
  EXPECT_EQ(messages(storage_.strategy->validate(external)), "");
  EXPECT_EQ(allocator_->ips_in_use(), 0u);
  EXPECT_EQ(storage_.strategy->table_cells(external)[3], "db.example.com");
}

TEST_F(ServicesTest, NodePortsComeFromTheirRange) {
  json::object result = created(service("np", R"("type":"NodePort")"));
  const std::int64_t port = result["spec"].at("ports").at(0).at("nodePort").as_int64();
  EXPECT_GE(port, 30000);
  EXPECT_LE(port, 32767);
  EXPECT_EQ(result["spec"].at("externalTrafficPolicy"), "Cluster");
  json::object explicit_port = service("np2", R"("type":"NodePort")");
  explicit_port["spec"].as_object()["ports"].as_array()[0].as_object()["nodePort"] = port;
  apierrors::Status taken = create_error(explicit_port);
  EXPECT_EQ(taken.message, "Service \"np2\" is invalid: spec.ports[0].nodePort: Invalid value: " +
                               std::to_string(port) + ": provided port is already allocated");
  explicit_port["spec"].as_object()["ports"].as_array()[0].as_object()["nodePort"] = 80;
  EXPECT_EQ(create_error(explicit_port).message,
            "Service \"np2\" is invalid: spec.ports[0].nodePort: Invalid value: 80: provided port is not in the "
            "valid range. The range of valid ports is 30000-32767");
  json::array row = storage_.strategy->table_cells(result);
  EXPECT_EQ(row[4].as_string(), "80:" + std::to_string(port) + "/TCP");
}

TEST_F(ServicesTest, ConcurrentCreatesNeverShareAnAddress) {
  std::mutex mutex;
  std::set<std::string> seen;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        json::object object = service("s" + std::to_string(t) + "-" + std::to_string(i));
        storage_.strategy->prepare_for_create(object);
        std::lock_guard lock(mutex);
        if (!seen.insert(cluster_ip(object)).second) ++failures;
      }
    });
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(seen.size(), 200u);
}

TEST_F(ServicesTest, AFullRangeIsAnInternalError) {
  ServiceNetwork small;
  small.cluster_ips = *core::parse_service_cidr("10.0.0.0/30");  // two usable addresses
  auto allocator = std::make_shared<ServiceAllocator>(small);
  allocator->resync({});
  ResourceStorage storage = services(allocator, nullptr);
  for (const char* name : {"a", "b"}) {
    json::object object = service(name);
    storage.strategy->prepare_for_create(object);
  }
  json::object third = service("c");
  try {
    storage.strategy->prepare_for_create(third);
    ADD_FAILURE() << "the third service got an address";
  } catch (const apierrors::ApiError& error) {
    EXPECT_EQ(error.status().code, 500);
    EXPECT_EQ(error.status().message, "Internal error occurred: failed to allocate a serviceIP: range is full");
  }
}

TEST_F(ServicesTest, ReservationsLapseWhenNeverStored) {
  auto allocator = std::make_shared<ServiceAllocator>(ServiceNetwork{}, std::chrono::seconds(0));
  allocator->resync({});
  ResourceStorage storage = services(allocator, nullptr);
  json::object dry = service("dry", R"("clusterIP":"10.0.0.9")");
  storage.strategy->prepare_for_create(dry);
  EXPECT_EQ(allocator->ips_in_use(), 0u);  // a dry run or a failed write holds nothing for long
  json::object stored = service("real", R"("clusterIP":"10.0.0.9")");
  storage.strategy->prepare_for_create(stored);
  allocator->observe(stored);  // the tracker saw it stored: held for good
  EXPECT_EQ(allocator->ips_in_use(), 1u);
}

TEST_F(ServicesTest, AllocationWaitsForTheFirstSync) {
  auto allocator = std::make_shared<ServiceAllocator>(ServiceNetwork{});
  ResourceStorage storage = services(allocator, nullptr);
  json::object object = service("early");
  try {
    storage.strategy->prepare_for_create(object);
    ADD_FAILURE() << "allocated before the stored services were read";
  } catch (const apierrors::ApiError& error) {
    EXPECT_EQ(error.status().code, 503);
  }
  json::object existing = service("old", R"("clusterIP":"10.0.0.20")");
  allocator->resync({existing});
  EXPECT_EQ(allocator->ips_in_use(), 1u);
}

TEST_F(ServicesTest, UpdatesKeepAllocatedValues) {
  json::object old = created(service("web", R"("type":"NodePort")"));
  allocator_->observe(old);
  json::object sent = service("web", R"("type":"NodePort")");
  sent["metadata"].as_object()["uid"] = old["metadata"].at("uid");
  storage_.strategy->prepare_for_update(sent, old);
  EXPECT_EQ(sent["spec"].at("clusterIP"), old["spec"].at("clusterIP"));
  EXPECT_EQ(sent["spec"].at("ports").at(0).at("nodePort"), old["spec"].at("ports").at(0).at("nodePort"));
  EXPECT_EQ(messages(storage_.strategy->validate_update(sent, old)), "");

  json::object moved = sent;
  moved["spec"].as_object()["clusterIP"] = "10.0.0.9";
  moved["spec"].as_object()["clusterIPs"] = json::array{"10.0.0.9"};
  EXPECT_EQ(messages(storage_.strategy->validate_update(moved, old)),
            "spec.clusterIPs[0]: Invalid value: []string{\"10.0.0.9\"}: may not change once set\n");
}

TEST_F(ServicesTest, ChangingTheTypeDropsWhatTheOldTypeHad) {
  json::object old = created(service("web", R"("type":"NodePort")"));
  allocator_->observe(old);
  EXPECT_EQ(allocator_->ports_in_use(), 1u);
  json::object sent = old;
  sent["spec"].as_object()["type"] = "ClusterIP";
  storage_.strategy->prepare_for_update(sent, old);
  EXPECT_FALSE(sent["spec"].at("ports").at(0).as_object().contains("nodePort"));
  EXPECT_FALSE(sent["spec"].as_object().contains("externalTrafficPolicy"));
  EXPECT_EQ(sent["spec"].at("clusterIP"), old["spec"].at("clusterIP"));
  EXPECT_EQ(messages(storage_.strategy->validate_update(sent, old)), "");
  allocator_->observe(sent);  // stored: the node port is free again
  EXPECT_EQ(allocator_->ports_in_use(), 0u);
  EXPECT_EQ(allocator_->ips_in_use(), 1u);
}

TEST_F(ServicesTest, ValidationReportsKubesMessages) {
  json::object object = service("1st", R"("type":"Magic","sessionAffinity":"Sometimes","selector":{"app":"a b"})");
  object["spec"].as_object()["ports"] =
      json::parse(R"([{"port":0,"protocol":"TCP"},{"name":"b","port":80,"protocol":"TCP","nodePort":30001,"targetPort":"Http_Port"}])");
  EXPECT_EQ(messages(storage_.strategy->validate(object)),
            "metadata.name: Invalid value: \"1st\": a DNS-1035 label must consist of lower case alphanumeric "
            "characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. "
            "'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')\n"
            "spec.ports[0].name: Required value\n"
            "spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive\n"
            "spec.ports[1].targetPort: Invalid value: \"Http_Port\": must contain only alpha-numeric characters "
            "(a-z, 0-9), and hyphens (-)\n"
            "spec.selector: Invalid value: \"a b\": a valid label must be an empty string or consist of "
            "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. "
            "'MyValue',  or 'my_value',  or '12345', regex used for validation is "
            "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')\n"
            "spec.sessionAffinity: Unsupported value: \"Sometimes\": supported values: \"ClientIP\", \"None\"\n"
            "spec.type: Unsupported value: \"Magic\": supported values: \"ClusterIP\", \"ExternalName\", "
            "\"LoadBalancer\", \"NodePort\"\n");
  json::object no_ports = service("empty");
  no_ports["spec"].as_object().erase("ports");
  no_ports = created(std::move(no_ports));
  EXPECT_EQ(messages(storage_.strategy->validate(no_ports)), "spec.ports: Required value\n");
  json::object cluster_with_node_port = created(service("cnp"));
  cluster_with_node_port["spec"].as_object()["ports"].as_array()[0].as_object()["nodePort"] = 30100;
  EXPECT_EQ(messages(storage_.strategy->validate(cluster_with_node_port)),
            "spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'\n");
}

TEST_F(ServicesTest, TableFollowsPrintService) {
  auto columns = storage_.strategy->table_columns();
  std::vector<std::string> names;
  for (const auto& column : columns) names.push_back(column.name);
  EXPECT_EQ(names, (std::vector<std::string>{"Name", "Type", "Cluster-IP", "External-IP", "Port(s)", "Age", "Selector"}));
  EXPECT_EQ(columns.back().priority, 1);
  json::object object = created(service("web", R"("selector":{"tier":"front","app":"web"},"externalIPs":["192.0.2.1"])"));
  object["spec"].as_object()["ports"].as_array().push_back(parse(R"({"name":"dns","port":53,"protocol":"UDP"})"));
  json::array row = storage_.strategy->table_cells(object);
  ASSERT_EQ(row.size(), 7u);
  EXPECT_EQ(row[0], "web");
  EXPECT_EQ(row[1], "ClusterIP");
  EXPECT_EQ(row[2].as_string(), cluster_ip(object));
  EXPECT_EQ(row[3], "192.0.2.1");
  EXPECT_EQ(row[4], "80/TCP,53/UDP");
  EXPECT_EQ(row[6], "app=web,tier=front");

  json::object balancer = created(service("lb", R"("type":"LoadBalancer")"));
  EXPECT_EQ(storage_.strategy->table_cells(balancer)[3], "<pending>");
  balancer["status"] = parse(R"({"loadBalancer":{"ingress":[{"ip":"203.0.113.9"},{"hostname":"lb.example.com"}]}})");
  EXPECT_EQ(storage_.strategy->table_cells(balancer)[3], "203.0.113.9,lb.example.com");
  EXPECT_EQ(storage_.strategy->table_cells(balancer)[6], "<none>");
}

TEST_F(ServicesTest, FieldSelectorsAsKubeOffersThem) {
  json::object object = created(service("web"));
  registry::SelectableFields fields;
  storage_.strategy->selectable_fields(object, fields);
  EXPECT_EQ(fields["spec.type"], "ClusterIP");
  EXPECT_EQ(fields["spec.clusterIP"], cluster_ip(object));
}

TEST_F(ServicesTest, TheKubernetesServiceLeadsToTheSecurePort) {
  ServiceNetwork network;
  network.secure_port = 7443;
  json::object kubernetes = core::kubernetes_service(network);
  kubernetes["metadata"].as_object()["uid"] = "u-kubernetes";
  kubernetes = created(std::move(kubernetes));
  EXPECT_EQ(cluster_ip(kubernetes), "10.0.0.1");
  EXPECT_EQ(kubernetes["spec"].at("ports"), json::parse(R"([{"name":"https","protocol":"TCP","port":443,"targetPort":7443}])"));
  EXPECT_EQ(messages(storage_.strategy->validate(kubernetes)), "");
}

}  // namespace
}  // namespace kapi::apis
