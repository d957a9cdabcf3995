// Several kapi servers on one etcd, as kube-apiserver runs behind a load balancer: servers started at the same
// moment on an empty etcd bootstrap it once between them (namespaces, RBAC, APF, priority classes) and then leave
// it alone; and writes through any server reach the watchers of every server in one order, with one set of
// resourceVersions, also when each server talks to another member of a three-member etcd.
#include "tests/integration/kapi_suite.h"

#include "tests/support/etcd_process.h"
#include "tests/support/temp_dir.h"

#include <functional>
#include <future>
#include <thread>
#include <sstream>

namespace kapi::integration::scale_out_test {
namespace {

namespace json = boost::json;
using Headers = std::vector<std::pair<std::string, std::string>>;
using namespace std::chrono_literals;

// The members of `etcd`, the `first`'s first: each server of a control plane lists its local member first.
std::string members_from(test_support::EtcdCluster& etcd, std::size_t first) {
  std::string out;
  for (std::size_t i = 0; i < etcd.size(); ++i)
    out += (i ? "," : "") + etcd.member((first + i) % etcd.size()).endpoint();
  return out;
}

// One PKI for every server, as a control plane's servers share one: made by a first start on the embedded store,
// then copied into each server's data directory (servers on separate machines each have their copy). Server i
// talks to `etcd(i)`.
std::vector<KapiOptions> servers_sharing_a_pki(const test_support::TempDir& dir,
                                               const std::function<std::string(int)>& etcd, int count) {
  const auto first = dir.path() / "first";
  { const KapiProcess first_start(KapiOptions{.data_dir = first}); }
  std::vector<KapiOptions> options;
  for (int i = 0; i < count; ++i) {
    const auto data = dir.path() / ("server-" + std::to_string(i));
    std::filesystem::create_directories(data);
    std::filesystem::copy(first / "pki", data / "pki", std::filesystem::copy_options::recursive);
    options.push_back({.extra_flags = {"--etcd-servers=" + etcd(i)}, .data_dir = data});
  }
  return options;
}

// Whether every FlowSchema carries its Dangling condition: the one status write the APF configuration
// controllers make after bootstrap (the first server to see a FlowSchema without it writes it; the others then
// find it set), so the FlowSchemas are settled only then.
bool flow_schemas_have_their_conditions(const KapiProcess& kapi) {
  const HttpResponse listed = kapi.connect_admin().request("GET", "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas");
  if (listed.status != 200) return false;
  const json::object list = json_object(listed.body);
  for (const auto& item : list.at("items").as_array()) {
    const json::object* status = item.as_object().if_contains("status") ? item.at("status").if_object() : nullptr;
    const json::value* conditions = status ? status->if_contains("conditions") : nullptr;
    if (!conditions || !conditions->is_array()) return false;
    bool dangling = false;
    for (const auto& condition : conditions->as_array())
      dangling = dangling || (condition.is_object() && condition.as_object().if_contains("type") &&
                              condition.at("type") == "Dangling");
    if (!dangling) return false;
  }
  return true;
}

// The names and resourceVersions of a list's items, "name@rv ...", in the order served.
std::string items_of(const KapiProcess& kapi, const std::string& path) {
  const HttpResponse listed = kapi.connect_admin().request("GET", path);
  if (listed.status != 200) return "status " + std::to_string(listed.status);
  const json::object list = json_object(listed.body);
  std::string out;
  for (const auto& item : list.at("items").as_array())
    out += std::string(item.at("metadata").at("name").as_string()) + "@" +
           std::string(item.at("metadata").at("resourceVersion").as_string()) + " ";
  return out;
}

TEST(ScaleOutTest, ServersStartedTogetherBootstrapOneEtcdOnceAndThenLeaveItAlone) {
  test_support::EtcdProcess etcd;
  test_support::TempDir dir("kapi-scale-out");
  const std::vector<KapiOptions> options = servers_sharing_a_pki(dir, [&](int) { return etcd.endpoint(); }, 3);
  // Each server is started, and later stopped, by a thread of its own that lives as long as it: a child dies with
  // the thread that spawned it (PR_SET_PDEATHSIG).
  std::promise<void> finished;
  const std::shared_future<void> done = finished.get_future().share();
  std::vector<std::promise<KapiProcess*>> started(options.size());
  std::vector<std::thread> owners;
  for (std::size_t i = 0; i < options.size(); ++i)
    owners.emplace_back([&, i] {
      try {
        KapiProcess server(options[i]);
        started[i].set_value(&server);
        done.wait();
      } catch (...) {
        started[i].set_exception(std::current_exception());
      }
    });
  struct Join {
    std::promise<void>& finished;
    std::vector<std::thread>& owners;
    ~Join() {
      finished.set_value();
      for (auto& owner : owners) owner.join();
    }
  } join{finished, owners};
  std::vector<KapiProcess*> servers;
  for (auto& start : started) servers.push_back(start.get_future().get());
  for (const auto* server : servers)
    EXPECT_EQ(server->connect_admin().request("GET", "/readyz").status, 200) << server->logs();

  // Every server serves the same bootstrap objects, each written once (a duplicate would be a second version).
  const std::vector<std::string> bootstrap = {
      "/api/v1/namespaces", "/apis/rbac.authorization.k8s.io/v1/clusterroles",
      "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas",
      "/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations",
      "/apis/scheduling.k8s.io/v1/priorityclasses"};
  // Settled: the FlowSchemas carry their conditions and every server serves the same lists, unchanged over two
  // seconds. The bound is generous for slow machines (three servers bootstrap at once); a fight over an object
  // would never settle.
  auto served_by_all = [&] {
    std::vector<std::string> lists;
    for (const auto& path : bootstrap) {
      lists.push_back(items_of(*servers[0], path));
      if (items_of(*servers[1], path) != lists.back() || items_of(*servers[2], path) != lists.back())
        return std::vector<std::string>{};
    }
    return lists;
  };
  std::vector<std::string> first;
  ASSERT_TRUE(eventually(
      [&] {
        if (!flow_schemas_have_their_conditions(*servers[0])) return false;
        std::vector<std::string> now = served_by_all();
        const bool settled = !now.empty() && now == first;
        first = std::move(now);
        return settled;
      },
      90s, 2s))
      << servers[0]->logs();
  EXPECT_NE(first[0].find("kube-system@"), std::string::npos) << first[0];
  EXPECT_NE(first[4].find("workload-low@"), std::string::npos) << first[4];
  EXPECT_NE(first[5].find("system-node-critical@"), std::string::npos) << first[5];

  // And nobody rewrites them afterwards: no fight over status between the servers.
  std::this_thread::sleep_for(3s);
  for (std::size_t i = 0; i < bootstrap.size(); ++i)
    for (const auto* server : servers) EXPECT_EQ(items_of(*server, bootstrap[i]), first[i]) << bootstrap[i];
}

// The events a watch from `from` delivers within two seconds: "TYPE name@rv" lines.
std::string watched(const KapiProcess& kapi, const std::string& from) {
  const HttpResponse watch = kapi.connect_admin().request(
      "GET", "/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=2&resourceVersion=" + from);
  std::istringstream lines(watch.body);
  std::string out;
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    const json::object event = json_object(line);
    const json::value& metadata = event.at("object").at("metadata");
    out += std::string(event.at("type").as_string()) + " " + std::string(metadata.at("name").as_string()) + "@" +
           std::string(metadata.at("resourceVersion").as_string()) + "\n";
  }
  return out;
}

TEST(ScaleOutTest, WritesThroughEitherServerReachEveryWatcherInOneOrder) {
  test_support::EtcdCluster etcd(3);  // each server on its own member
  test_support::TempDir dir("kapi-scale-out-watch");
  const std::vector<KapiOptions> options =
      servers_sharing_a_pki(dir, [&](int server) { return members_from(etcd, static_cast<std::size_t>(server)); }, 2);
  KapiProcess one(options[0]);
  KapiProcess two(options[1]);
  const std::string from =
      std::string(json_object(one.connect_admin().request("GET", "/api/v1/namespaces/default/configmaps").body)
                      .at("metadata")
                      .at("resourceVersion")
                      .as_string());

  // Both servers write at once, each its own objects, and each changes the other's.
  auto write = [](const KapiProcess& server, const std::string& mine, const std::string& theirs) {
    auto connection = server.connect_admin();
    for (int i = 0; i < 10; ++i) {
      const std::string name = mine + "-" + std::to_string(i);
      connection.request("POST", "/api/v1/namespaces/default/configmaps", Headers{{"Content-Type", "application/json"}},
                         R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name + R"("}})");
      connection.request("PATCH", "/api/v1/namespaces/default/configmaps/" + theirs + "-" + std::to_string(i),
                         Headers{{"Content-Type", "application/merge-patch+json"}}, R"({"data":{"by":")" + mine + "\"}}");
    }
  };
  auto writing_one = std::async(std::launch::async, [&] { write(one, "one", "two"); });
  auto writing_two = std::async(std::launch::async, [&] { write(two, "two", "one"); });
  writing_one.get();
  writing_two.get();

  const std::string through_one = watched(one, from);
  const std::string through_two = watched(two, from);
  EXPECT_EQ(through_one, through_two);
  EXPECT_GE(std::count(through_one.begin(), through_one.end(), '\n'), 20) << through_one;
  std::int64_t previous = 0;
  std::istringstream lines(through_one);
  for (std::string line; std::getline(lines, line);) {
    const std::int64_t version = std::stoll(line.substr(line.find('@') + 1));
    EXPECT_GT(version, previous) << through_one;
    previous = version;
  }
}

}  // namespace
}  // namespace kapi::integration::scale_out_test
