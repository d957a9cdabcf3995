// kapi on a three-member etcd cluster, as production control planes run kube-apiserver: --etcd-servers names
// every member, and when a member dies under writes (the one kapi talks to, then the leader) kapi moves on to
// another. No acknowledged write is lost, the watch cache holds every write once and in order (no relist, no
// gap), and the killed members rejoin.
#include "tests/integration/kapi_suite.h"

#include "tests/support/etcd_process.h"

#include <algorithm>
#include <atomic>
#include <sstream>
#include <thread>

namespace kapi::integration::etcd_failover_test {
namespace {

namespace json = boost::json;
using Headers = std::vector<std::pair<std::string, std::string>>;
using namespace std::chrono_literals;

// The index of the member that leads, from etcd's own view of the cluster.
std::size_t leader_of(test_support::EtcdCluster& etcd) {
  for (std::size_t i = 0; i < etcd.size(); ++i) {
    if (!etcd.member(i).running()) continue;
    const json::value statuses = json::parse(etcd.member(i).etcdctl("endpoint status --cluster -w json"));
    for (const auto& status : statuses.as_array()) {
      const json::value& fields = status.at("Status");
      if (fields.at("header").at("member_id") != fields.at("leader")) continue;
      const std::string endpoint(status.at("Endpoint").as_string());
      for (std::size_t j = 0; j < etcd.size(); ++j)
        if (etcd.member(j).endpoint() == endpoint) return j;
    }
  }
  throw std::runtime_error("no etcd member leads");
}

TEST(EtcdFailoverTest, MembersKilledUnderWritesLoseNothingAndTheWatchCacheHasNoGap) {
  test_support::EtcdCluster etcd(3);
  KapiProcess kapi(KapiOptions{.extra_flags = {"--etcd-servers=" + etcd.endpoints()}});
  const std::string collection = "/api/v1/namespaces/default/configmaps";
  const json::object first_list = json_object(kapi.connect_admin().request("GET", collection).body);
  const std::string from(first_list.at("metadata").at("resourceVersion").as_string());

  // One writer creates cm-0 ... cm-89 in order. A create that fails while kapi changes members is sent again until
  // it is stored (201) or found stored by the attempt that seemed to fail (409).
  constexpr int kWrites = 90;
  std::atomic<int> acknowledged = 0;
  std::vector<std::string> outcomes(kWrites);
  std::thread writer([&] {
    auto connection = kapi.connect_admin();
    const auto deadline = std::chrono::steady_clock::now() + 120s;
    for (int i = 0; i < kWrites; ++i) {
      const std::string body =
          R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-)" + std::to_string(i) + R"("}})";
      for (;;) {
        const HttpResponse created =
            connection.request("POST", collection, Headers{{"Content-Type", "application/json"}}, body);
        if (created.status == 201 || created.status == 409) {
          outcomes[i] = "stored";
          break;
        }
        if (std::chrono::steady_clock::now() > deadline) {
          outcomes[i] = "HTTP " + std::to_string(created.status) + ": " + created.body;
          break;
        }
        std::this_thread::sleep_for(100ms);
      }
      ++acknowledged;
    }
  });
  struct Join {
    std::thread& thread;
    ~Join() {
      if (thread.joinable()) thread.join();
    }
  } join{writer};
  auto after = [&](int writes) {
    ASSERT_TRUE(eventually([&] { return acknowledged >= writes; }, 60s)) << acknowledged << "\n" << kapi.logs();
  };

  after(20);
  etcd.member(0).kill();  // the first of --etcd-servers: the member kapi started on
  after(40);
  etcd.member(0).start();
  after(50);
  const std::size_t leader = leader_of(etcd);
  etcd.member(leader).kill();
  after(70);
  etcd.member(leader).start();
  writer.join();

  for (int i = 0; i < kWrites; ++i) EXPECT_EQ(outcomes[i], "stored") << "cm-" << i;
  // Every write is there, read from etcd (a consistent list) and from the watch cache (resourceVersion=0).
  auto written = [](const json::value& object) {
    return std::string_view(object.at("metadata").at("name").as_string()).starts_with("cm-");
  };
  for (const std::string query : {"", "?resourceVersion=0"}) {
    const HttpResponse listed = kapi.connect_admin().request("GET", collection + query);
    ASSERT_EQ(listed.status, 200) << listed.body;
    const json::object list = json_object(listed.body);
    const auto& items = list.at("items").as_array();
    EXPECT_EQ(std::count_if(items.begin(), items.end(), written), kWrites) << query;
  }
  // A watch from before the first write replays each create once, in order: the cache followed etcd across both
  // failovers without a relist (which would have answered 410 Gone for so old a resourceVersion).
  const HttpResponse watch =
      kapi.connect_admin().request("GET", collection + "?watch=true&timeoutSeconds=2&resourceVersion=" + from);
  ASSERT_EQ(watch.status, 200) << watch.body;
  std::istringstream lines(watch.body);
  std::vector<std::string> names;
  std::int64_t previous = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    const json::object event = json_object(line);
    if (!written(event.at("object"))) continue;
    ASSERT_EQ(event.at("type"), "ADDED") << line;
    const json::value& metadata = event.at("object").at("metadata");
    names.emplace_back(metadata.at("name").as_string());
    const std::int64_t version = std::stoll(std::string(metadata.at("resourceVersion").as_string()));
    EXPECT_GT(version, previous) << line;
    previous = version;
  }
  ASSERT_EQ(names.size(), static_cast<std::size_t>(kWrites)) << watch.body;
  for (int i = 0; i < kWrites; ++i) EXPECT_EQ(names[i], "cm-" + std::to_string(i));
  // The killed members are back in the cluster and hold the writes made while they were down.
  for (const std::size_t member : {std::size_t{0}, leader})
    EXPECT_TRUE(eventually([&] {
      return etcd.member(member).etcdctl("get --consistency=s --keys-only /registry/configmaps/default/cm-89") != "";
    })) << member;
  EXPECT_EQ(kapi.connect_admin().request("GET", "/readyz").status, 200);
}

}  // namespace
}  // namespace kapi::integration::etcd_failover_test
