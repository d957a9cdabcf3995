// Faults between kapi and etcd (issue 25), under writes and a client's watch: etcd paused (SIGSTOP) for longer
// than a request may take, and a link to etcd that slows, stalls, breaks and refuses. Under each, kapi stays up,
// answers with kube's errors while etcd cannot answer, is writing again within 5 s of etcd's return, loses no
// acknowledged write, and its watchers see every create once, in order, with no 410 Gone.
// (etcd SIGKILLed under load: EtcdFailoverTest and WatchContinuityTest.)
#include "tests/integration/fault_load.h"
#include "tests/support/etcd_process.h"
#include "tests/support/tcp_proxy.h"

#include <iostream>

namespace kapi::integration::etcd_faults_test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// A short --request-timeout, so that a fault outlasts it within a test's time.
constexpr auto kRequestTimeout = 4s;

KapiOptions on_etcd(const std::string& endpoint) {
  return KapiOptions{.extra_flags = {"--etcd-servers=" + endpoint,
                                     "--request-timeout=" + std::to_string(kRequestTimeout.count()) + "s"}};
}

bool ready(const KapiProcess& kapi) {
  try {
    return kapi.connect_admin().request("GET", "/readyz", {}, {}, 10s).status == 200;
  } catch (const std::exception&) {
    return false;
  }
}

// Seconds from now until the writers have `more` creates acknowledged; fails the test past 5 s.
double seconds_to_recover(const ConfigMapWriters& writers, const KapiProcess& kapi, std::size_t more = 5) {
  const auto start = Clock::now();
  EXPECT_TRUE(writers.wait_for_acknowledged(more, 5s)) << "no write within 5 s of etcd's return\n" << kapi.logs();
  return seconds_since(start);
}

// What every fault test checks at its end, and prints for the closing figures.
void expect_nothing_lost(const KapiProcess& kapi, LoadUnderFault& load, const std::string& scenario,
                         const std::string& recoveries) {
  auto& [from, watch, writers] = load;
  writers.stop();
  const auto stored = stored_config_maps(kapi, "cm-");
  watch.stop();
  const WriteOutcomes outcomes = writers.outcomes();
  EXPECT_TRUE(holds_its_promises(outcomes, stored));
  EXPECT_TRUE(delivers_every_create(watch.events(), from, "cm-", stored));
  EXPECT_EQ(watch.gone(), 0);
  EXPECT_TRUE(replays_every_create(kapi, from, "cm-", stored));
  std::cout << "[ " << scenario << " ] " << describe(outcomes) << "; " << stored.size() << " stored; the watch resumed "
            << watch.resumed() << " times, 410 Gone " << watch.gone() << " times; recovered in " << recoveries << "\n";
}

TEST(EtcdFaultsTest, APausedEtcdTimesRequestsOutAndLosesNothingWhenItResumes) {
  test_support::EtcdProcess etcd;
  KapiProcess kapi(on_etcd(etcd.endpoint()));
  LoadUnderFault load(kapi);
  ConfigMapWriters& writers = load.writers;
  ASSERT_TRUE(writers.wait_for_acknowledged(20, 20s)) << kapi.logs();

  etcd.pause();
  const auto paused_at = Clock::now();
  {
    // A write is answered, not left hanging: 504 once the request timeout passes, as kube-apiserver answers.
    auto connection = kapi.connect_admin();
    const auto sent = Clock::now();
    const HttpResponse write = connection.request("POST", ConfigMapWriters::kCollection,
                                                  {{"Content-Type", "application/json"}},
                                                  R"({"metadata":{"name":"while-paused"}})", 30s);
    EXPECT_TRUE(is_status(write, 504, "Timeout")) << write.body;
    EXPECT_LT(seconds_since(sent), std::chrono::duration<double>(kRequestTimeout).count() + 2);
    // Reads the watch cache can answer go on.
    EXPECT_EQ(connection.request("GET", std::string(ConfigMapWriters::kCollection) + "?resourceVersion=0").status, 200);
  }
  EXPECT_TRUE(eventually([&] { return !ready(kapi); }, 15s)) << "/readyz still passes with etcd paused";
  std::this_thread::sleep_until(paused_at + 2 * kRequestTimeout);

  etcd.resume();
  const double recovered = seconds_to_recover(writers, kapi);
  EXPECT_TRUE(eventually([&] { return ready(kapi); }, 5s)) << kapi.logs();
  expect_nothing_lost(kapi, load, "etcd paused 8 s", std::to_string(recovered) + " s");
}

TEST(EtcdFaultsTest, ALinkToEtcdThatSlowsStallsBreaksAndRefusesLosesNothing) {
  test_support::EtcdProcess etcd;
  test_support::TcpProxy link(etcd.client_port());
  KapiProcess kapi(on_etcd(link.endpoint()));
  LoadUnderFault load(kapi);
  ConfigMapWriters& writers = load.writers;
  ASSERT_TRUE(writers.wait_for_acknowledged(20, 20s)) << kapi.logs();
  std::string recoveries;
  auto recovered = [&](const std::string& fault) {
    recoveries += (recoveries.empty() ? "" : ", ") + fault + " " + std::to_string(seconds_to_recover(writers, kapi)) + " s";
  };

  // Slow: every chunk waits 100 ms each way. Writes go on, slower.
  link.set_delay(100ms);
  EXPECT_TRUE(writers.wait_for_acknowledged(5, 10s)) << "no write over a slow link\n" << kapi.logs();
  link.set_delay(0ms);
  recovered("delay");

  // A short stall, within the request timeout: requests wait, then complete.
  link.stall();
  std::this_thread::sleep_for(2s);
  link.flow();
  recovered("short stall");

  // Connections reset three times in a row.
  for (int i = 0; i < 3; ++i) {
    link.cut();
    std::this_thread::sleep_for(1s);
  }
  recovered("cuts");

  // A stall past the request timeout: kapi answers 504s and reports etcd unready, then comes back.
  link.stall();
  {
    auto connection = kapi.connect_admin();
    const HttpResponse write = connection.request("POST", ConfigMapWriters::kCollection,
                                                  {{"Content-Type", "application/json"}},
                                                  R"({"metadata":{"name":"while-stalled"}})", 30s);
    EXPECT_TRUE(is_status(write, 504, "Timeout")) << write.body;
  }
  EXPECT_TRUE(eventually([&] { return !ready(kapi); }, 15s)) << "/readyz still passes with etcd unreachable";
  link.flow();
  recovered("long stall");
  EXPECT_TRUE(eventually([&] { return ready(kapi); }, 5s)) << kapi.logs();

  // etcd's port refuses: every connection is reset, old and new, for 3 s.
  link.refuse(true);
  link.cut();
  std::this_thread::sleep_for(3s);
  link.refuse(false);
  recovered("refused");

  expect_nothing_lost(kapi, load, "slow, stalled, cut and refused link", recoveries);
  std::cout << "[ link ] " << link.connections_accepted() << " connections to etcd, " << link.connections_cut()
            << " cut\n";
}

}  // namespace
}  // namespace kapi::integration::etcd_faults_test
