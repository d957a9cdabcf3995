// Services as kube's service registry keeps them: ranges parsed as kube-apiserver's flags, cluster IPs and node
// ports allocated once each from the stored ranges (by two servers at once too) and released when the stored
// service goes, the repair of the ranges, ValidateService's messages, the allocation errors' Status,
// printService's cells.
#include "base/log.h"
#include "base/uuid.h"
#include "server/apierrors/errors.h"
#include "server/apis/core/service_allocator.h"
#include "server/apis/core/kubernetes_service.h"
#include "server/apis/core/service_repair.h"
#include "server/apis/resource_storage.h"
#include "server/registry/object_meta.h"
#include "storage/embedded/store.h"
#include "tests/support/io_thread.h"
#include "tests/support/temp_dir.h"
#include "tests/unit/server/apis/strategy_testing.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>

namespace kapi::apis::services_test {
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

// The service registry of one server over the store of the test's embedded backend.
struct ServiceServer {
  ServiceServer(storage::Interface& backend, ServiceNetwork network = {}, const std::string& key_root = "/registry")
      : allocator(std::make_shared<ServiceAllocator>(network, backend, key_root)),
        storage(services(allocator, nullptr)),
        store(storage.definition, storage.strategy, backend, key_root) {}

  std::shared_ptr<ServiceAllocator> allocator;
  ResourceStorage storage;
  registry::Store store;
};

class ServicesTest : public ::testing::Test {
 protected:
  void SetUp() override { repair(server_); }

  // A pass of this server's repair (one for its whole life, as it counts leaks over passes), or of another's.
  void repair(ServiceServer& server) {
    if (&server == &server_) return io_.run(repair_.run_once());
    core::ServiceAllocationRepair repair(server.store, *server.allocator, logger_);
    io_.run(repair.run_once());
  }
  // Prepared and given its values, as the Store does before it stores a new service.
  json::object created(json::object object, bool dry_run = false) {
    return created_by(storage_, std::move(object), dry_run);
  }
  json::object created_by(const ResourceStorage& storage, json::object object, bool dry_run = false) {
    storage.strategy->prepare_for_create(object);
    io_.run(begin(storage, object, nullptr, dry_run));
    return object;
  }
  // The status of what creating it threw.
  apierrors::Status create_error(json::object object) {
    try {
      created(std::move(object));
    } catch (const apierrors::ApiError& error) {
      return error.status();
    }
    ADD_FAILURE() << "no error for " << json::serialize(object);
    return {};
  }
  // Prepared and given its values as an update of `old`, stored or not.
  json::object updated(json::object object, const json::object& old, bool stored = true) {
    storage_.strategy->prepare_for_update(object, old);
    registry::Strategy::FinishWrite finish = io_.run(begin(storage_, object, &old, false));
    if (finish) io_.run(finish(stored));
    return object;
  }
  void deleted(const json::object& object) {
    const std::string stored = json::serialize(object);
    io_.run(storage_.strategy->after_delete(stored));
  }
  std::uint64_t ips_in_use() { return in_use(allocator_->cluster_ips()); }
  std::uint64_t ports_in_use() { return in_use(allocator_->node_ports()); }
  std::uint64_t in_use(core::StoredRange& range) { return range.bitmap_of(io_.run(range.get())).used(); }
  static std::string cluster_ip(const json::object& object) {
    return std::string(object.at("spec").at("clusterIP").as_string());
  }

  static asio::awaitable<registry::Strategy::FinishWrite> begin(const ResourceStorage& storage, json::object& object,
                                                                const json::object* old, bool dry_run) {
    co_return co_await storage.strategy->begin_write(object, old, dry_run);
  }

  static std::unique_ptr<storage::embedded::Store> open_backend(const test_support::TempDir& dir) {
    storage::embedded::Options options;
    options.data_dir = dir.path() / "data";
    return storage::embedded::Store::open(std::move(options));
  }

  test_support::TempDir dir_{"kapi-services"};
  test_support::IoThread io_;
  base::Logger logger_{-1};
  std::unique_ptr<storage::embedded::Store> backend_ = open_backend(dir_);
  ServiceServer server_{*backend_};
  std::shared_ptr<ServiceAllocator>& allocator_ = server_.allocator;
  ResourceStorage& storage_ = server_.storage;
  core::ServiceAllocationRepair repair_{server_.store, *server_.allocator, logger_};
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
  EXPECT_EQ(ips_in_use(), 1u);
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
  deleted(first);
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
  EXPECT_EQ(ips_in_use(), 0u);
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

TEST_F(ServicesTest, TwoServersCreatingAtOnceNeverShareAValue) {
  // Two servers on one store, each on its own threads, as two kapi processes on one etcd.
  ServiceServer other(*backend_);
  test_support::IoThread other_io;
  std::mutex mutex;
  std::set<std::string> seen;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      const bool first = t % 2 == 0;
      for (int i = 0; i < 25; ++i) {
        json::object object = service("s" + std::to_string(t) + "-" + std::to_string(i), R"("type":"NodePort")");
        const ResourceStorage& storage = first ? storage_ : other.storage;
        storage.strategy->prepare_for_create(object);
        (first ? io_ : other_io).run(begin(storage, object, nullptr, false));
        std::lock_guard lock(mutex);
        if (!seen.insert(cluster_ip(object)).second) ++failures;
        if (!seen.insert(json::serialize(object["spec"].at("ports").at(0).at("nodePort"))).second) ++failures;
      }
    });
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(seen.size(), 200u);
  EXPECT_EQ(ips_in_use(), 100u);
  EXPECT_EQ(ports_in_use(), 100u);
}

TEST_F(ServicesTest, AFullRangeIsAnInternalError) {
  ServiceNetwork small;
  small.cluster_ips = *core::parse_service_cidr("10.0.0.0/30");  // two usable addresses
  ServiceServer server(*backend_, small, "/small");
  repair(server);
  for (const char* name : {"a", "b"}) created_by(server.storage, service(name));
  try {
    created_by(server.storage, service("c"));
    ADD_FAILURE() << "the third service got an address";
  } catch (const apierrors::ApiError& error) {
    EXPECT_EQ(error.status().code, 500);
    EXPECT_EQ(error.status().message, "Internal error occurred: failed to allocate a serviceIP: range is full");
  }
}

TEST_F(ServicesTest, DryRunsAndFailedWritesTakeNothing) {
  json::object dry = created(service("dry", R"("clusterIP":"10.0.0.9","type":"NodePort")"), true);
  EXPECT_TRUE(dry["spec"].at("ports").at(0).as_object().contains("nodePort"));  // what it would get, shown
  EXPECT_EQ(ips_in_use(), 0u);
  EXPECT_EQ(ports_in_use(), 0u);
  json::object failed = service("failed", R"("clusterIP":"10.0.0.9")");
  storage_.strategy->prepare_for_create(failed);
  registry::Strategy::FinishWrite finish = io_.run(begin(storage_, failed, nullptr, false));
  EXPECT_EQ(ips_in_use(), 1u);
  io_.run(finish(false));  // the write failed: given back
  EXPECT_EQ(ips_in_use(), 0u);
  EXPECT_EQ(cluster_ip(created(service("real", R"("clusterIP":"10.0.0.9")"))), "10.0.0.9");
  EXPECT_EQ(ips_in_use(), 1u);
}

TEST_F(ServicesTest, AllocationWaitsForTheFirstRepair) {
  ServiceServer server(*backend_, ServiceNetwork{}, "/fresh");
  try {
    created_by(server.storage, service("early"));
    ADD_FAILURE() << "allocated before the ranges were stored";
  } catch (const apierrors::ApiError& error) {
    EXPECT_EQ(error.status().code, 500);
    EXPECT_EQ(error.status().message,
              "Internal error occurred: failed to allocate a serviceIP: cannot allocate resources of type "
              "serviceipallocations at this time");
  }
  repair(server);
  EXPECT_FALSE(cluster_ip(created_by(server.storage, service("later"))).empty());
}

TEST_F(ServicesTest, TheRepairRecordsWhatServicesHoldAndFreesLeaksOnItsThirdPass) {
  // Stored with values the ranges do not record (written before the ranges existed, or the range was lost). The
  // address is in the static band, so the leak below, taken from the upper band, cannot be it.
  json::object held = service("held", R"("type":"NodePort","clusterIP":"10.0.0.12","clusterIPs":["10.0.0.12"])");
  held["spec"].as_object()["ports"].as_array()[0].as_object()["nodePort"] = 30500;
  const std::string key = server_.store.key("default", "held");
  storage::WriteOptions write_options;
  io_.run(backend_->create(key, json::serialize(held), write_options));
  // Taken by a server that died before it stored its service: a leak.
  std::optional<std::uint64_t> leaked = io_.run(allocator_->cluster_ips().allocate_next());
  ASSERT_TRUE(leaked);
  EXPECT_EQ(ips_in_use(), 1u);

  repair(server_);
  EXPECT_EQ(ips_in_use(), 2u);  // the held address recorded, the leak kept for now
  EXPECT_EQ(ports_in_use(), 1u);
  EXPECT_EQ(create_error(service("b", R"("clusterIP":"10.0.0.12")")).code, 422);
  repair(server_);
  EXPECT_EQ(ips_in_use(), 2u);
  repair(server_);
  EXPECT_EQ(ips_in_use(), 1u);  // the third pass frees the leak
  EXPECT_TRUE(io_.run(allocator_->cluster_ips().available(*leaked)));
}

TEST_F(ServicesTest, UpdatesKeepAllocatedValues) {
  json::object old = created(service("web", R"("type":"NodePort")"));
  json::object sent = service("web", R"("type":"NodePort")");
  sent["metadata"].as_object()["uid"] = old["metadata"].at("uid");
  sent = updated(std::move(sent), old);
  EXPECT_EQ(sent["spec"].at("clusterIP"), old["spec"].at("clusterIP"));
  EXPECT_EQ(sent["spec"].at("ports").at(0).at("nodePort"), old["spec"].at("ports").at(0).at("nodePort"));
  EXPECT_EQ(messages(storage_.strategy->validate_update(sent, old)), "");
  EXPECT_EQ(ips_in_use(), 1u);
  EXPECT_EQ(ports_in_use(), 1u);

  json::object moved = sent;
  moved["spec"].as_object()["clusterIP"] = "10.0.0.9";
  moved["spec"].as_object()["clusterIPs"] = json::array{"10.0.0.9"};
  EXPECT_EQ(messages(storage_.strategy->validate_update(moved, old)),
            "spec.clusterIPs[0]: Invalid value: []string{\"10.0.0.9\"}: may not change once set\n");
}

TEST_F(ServicesTest, ChangingTheTypeDropsWhatTheOldTypeHad) {
  json::object old = created(service("web", R"("type":"NodePort")"));
  EXPECT_EQ(ports_in_use(), 1u);
  json::object sent = old;
  sent["spec"].as_object()["type"] = "ClusterIP";
  updated(sent, old, false);
  EXPECT_EQ(ports_in_use(), 1u);  // the update failed: the old service keeps its port
  sent = updated(std::move(sent), old);
  EXPECT_FALSE(sent["spec"].at("ports").at(0).as_object().contains("nodePort"));
  EXPECT_FALSE(sent["spec"].as_object().contains("externalTrafficPolicy"));
  EXPECT_EQ(sent["spec"].at("clusterIP"), old["spec"].at("clusterIP"));
  EXPECT_EQ(messages(storage_.strategy->validate_update(sent, old)), "");
  EXPECT_EQ(ports_in_use(), 0u);  // stored: the node port is free again
  EXPECT_EQ(ips_in_use(), 1u);
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
}  // namespace kapi::apis::services_test
