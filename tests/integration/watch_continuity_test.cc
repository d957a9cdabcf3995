// A watch never skips a change (issue 27): four clients create ConfigMaps while a fifth watches them, resuming
// from the last resourceVersion it saw whenever its stream ends and relisting only on 410 Gone, as client-go's
// reflector does; etcd is SIGKILLed under that load and restarted. Every acknowledged create must reach the
// watcher, as an ADDED event or in a relist after a 410: kube-apiserver's contract is every change after the
// watched resourceVersion, in order, or 410, never a silent gap.
//
// A sixth client reads at the newest acknowledged resourceVersion meanwhile (resourceVersionMatch=NotOlderThan,
// as an informer's relist does), so the watch cache is asked to catch up, and asks etcd for progress, while its
// etcd watch is being resumed after the kill: that is where etcd before 3.4.31 answered ahead of the events.
//
// KAPI_WATCH_CONTINUITY_ROUNDS repeats the scenario (the issue's acceptance ran it 20 times); CI runs one round.
#include "tests/integration/kapi_suite.h"
#include "tests/support/etcd_process.h"

#include <atomic>
#include <functional>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <thread>

namespace kapi::integration::watch_continuity_test {
namespace {

using namespace std::chrono_literals;
namespace json = boost::json;
using Clock = std::chrono::steady_clock;

constexpr std::string_view kConfigMaps = "/api/v1/namespaces/default/configmaps";

int rounds() {
  const char* value = std::getenv("KAPI_WATCH_CONTINUITY_ROUNDS");
  return value ? std::max(1, std::atoi(value)) : 1;
}

// What the writers were told and what the watcher learned, shared between their threads.
class Ledger {
 public:
  void acknowledged(std::string name, std::string resource_version) {
    std::lock_guard lock(mutex_);
    newest_ = std::max(newest_, std::stoll(resource_version));
    acknowledged_.emplace(std::move(name), std::move(resource_version));
  }
  long long newest_acknowledged() const {
    std::lock_guard lock(mutex_);
    return newest_;
  }
  void seen(std::string name) {
    std::lock_guard lock(mutex_);
    seen_.insert(std::move(name));
  }
  // Acknowledged creates the watcher has not seen, with their resourceVersions.
  std::map<std::string, std::string> missing() const {
    std::lock_guard lock(mutex_);
    std::map<std::string, std::string> missing;
    for (const auto& [name, version] : acknowledged_) {
      if (!seen_.contains(name)) missing.emplace(name, version);
    }
    return missing;
  }
  std::size_t acknowledged_count() const {
    std::lock_guard lock(mutex_);
    return acknowledged_.size();
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::string> acknowledged_;
  std::set<std::string> seen_;
  long long newest_ = 0;
};

std::string name_of(const json::object& object) {
  return std::string(object.at("metadata").as_object().at("name").as_string());
}
std::string version_of(const json::object& object) {
  return std::string(object.at("metadata").as_object().at("resourceVersion").as_string());
}

// Creates ConfigMaps named <prefix>-<n> until told to stop; a create counts once kapi answered 201.
void write_until(const KapiProcess& kapi, const std::string& prefix, const std::atomic<bool>& stop, Ledger& ledger) {
  std::optional<HttpConnection> connection;
  for (int n = 0; !stop.load(); ++n) {
    const std::string name = prefix + "-" + std::to_string(n);
    try {
      if (!connection) connection.emplace(kapi.port(), kapi.admin_tls(), 30s);
      const std::string body = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name + R"("}})";
      HttpResponse response = connection->request("POST", kConfigMaps, {{"Content-Type", "application/json"}}, body, 30s);
      if (response.status == 201) ledger.acknowledged(name, version_of(json_object(response.body)));
      if (response.closes_connection()) connection.reset();
      if (response.status >= 500 || response.status == 429) std::this_thread::sleep_for(50ms);
    } catch (const std::exception&) {
      connection.reset();  // kapi closed or timed out: not acknowledged, so not counted
      std::this_thread::sleep_for(50ms);
    }
  }
}

// Lists at the newest acknowledged resourceVersion or later, from the watch cache, until told to stop.
void read_until(const KapiProcess& kapi, const std::atomic<bool>& stop, const Ledger& ledger) {
  std::optional<HttpConnection> connection;
  while (!stop.load()) {
    const long long newest = ledger.newest_acknowledged();
    try {
      if (!connection) connection.emplace(kapi.port(), kapi.admin_tls(), 30s);
      const std::string target = std::string(kConfigMaps) + "?limit=1&resourceVersionMatch=NotOlderThan&resourceVersion=" +
                                 std::to_string(std::max(newest, 1LL));
      HttpResponse response = connection->request("GET", target, {}, {}, 30s);
      if (response.closes_connection()) connection.reset();
    } catch (const std::exception&) {
      connection.reset();
    }
    std::this_thread::sleep_for(20ms);
  }
}

// The reflector: LIST, then WATCH from the list's resourceVersion, re-watching from the last event's whenever the
// stream ends and relisting on 410 Gone, until `done` says the watcher may stop.
struct WatcherStats {
  int watches = 0;
  int relists = 0;
};

WatcherStats watch_until(const KapiProcess& kapi, const std::function<bool()>& done, Ledger& ledger) {
  WatcherStats stats;
  std::string from;
  auto relist = [&] {
    HttpResponse list = test_support::https_request(kapi.port(), kapi.admin_tls(), "GET", kConfigMaps);
    if (list.status != 200) return false;
    json::object body = json_object(list.body);
    for (const auto& item : body["items"].as_array()) ledger.seen(name_of(item.as_object()));
    from = std::string(body["metadata"].as_object()["resourceVersion"].as_string());
    ++stats.relists;
    return true;
  };
  while (!done()) {
    try {
      if (from.empty() && !relist()) {
        std::this_thread::sleep_for(100ms);
        continue;
      }
      HttpConnection watch(kapi.port(), kapi.admin_tls(), 30s);
      watch.send("GET " + std::string(kConfigMaps) + "?watch=1&timeoutSeconds=5&resourceVersion=" + from +
                 " HTTP/1.1\r\nHost: kapi\r\n\r\n");
      HttpResponse head = watch.read_head(30s);
      ++stats.watches;
      if (head.status != 200) {
        watch.read_body(head);
        if (head.status == 410) from.clear();
        std::this_thread::sleep_for(100ms);
        continue;
      }
      std::string buffer;
      while (auto chunk = watch.read_chunk(30s)) {
        buffer += *chunk;
        for (std::size_t end = buffer.find('\n'); end != std::string::npos; end = buffer.find('\n')) {
          json::object event = json_object(buffer.substr(0, end));
          buffer.erase(0, end + 1);
          const json::object& object = event["object"].as_object();
          if (event["type"] == "ERROR") {
            if (object.contains("code") && object.at("code") == 410) from.clear();  // relist
            continue;
          }
          if (event["type"] == "ADDED") ledger.seen(name_of(object));
          from = version_of(object);
        }
      }
    } catch (const std::exception&) {
      std::this_thread::sleep_for(100ms);  // kapi went away mid-stream: re-watch from the last version seen
    }
  }
  return stats;
}

class WatchContinuityTest : public ::testing::Test {};

TEST_F(WatchContinuityTest, EveryAcknowledgedCreateReachesAWatcherAcrossAnEtcdKill) {
  for (int round = 1; round <= rounds(); ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    test_support::EtcdProcess etcd;
    KapiProcess kapi({.extra_flags = {"--etcd-servers=" + etcd.endpoint()}});
    Ledger ledger;
    std::atomic<bool> stop_writing = false;
    std::atomic<bool> give_up = false;

    auto all_seen = [&] { return give_up.load() || (stop_writing.load() && ledger.missing().empty()); };
    WatcherStats stats;
    std::thread watcher([&] { stats = watch_until(kapi, all_seen, ledger); });
    std::vector<std::thread> writers;
    for (int i = 0; i < 4; ++i) {
      writers.emplace_back([&, i] { write_until(kapi, "w" + std::to_string(i), stop_writing, ledger); });
    }
    writers.emplace_back([&] { read_until(kapi, stop_writing, ledger); });

    std::this_thread::sleep_for(3s);
    etcd.kill();
    std::this_thread::sleep_for(3s);
    etcd.start();
    std::this_thread::sleep_for(4s);
    stop_writing = true;
    for (auto& writer : writers) writer.join();

    // The watcher catches up within a bound; what it still lacks then was skipped.
    const auto deadline = Clock::now() + 30s;
    while (!ledger.missing().empty() && Clock::now() < deadline) std::this_thread::sleep_for(100ms);
    give_up = true;
    watcher.join();

    const auto missing = ledger.missing();
    std::cout << "round " << round << ": " << ledger.acknowledged_count() << " acknowledged creates, "
              << missing.size() << " never seen by the watcher, " << stats.watches << " watches, " << stats.relists
              << " lists\n";
    EXPECT_GT(ledger.acknowledged_count(), 100u) << kapi.logs();
    std::string names;
    for (const auto& [name, version] : missing) names += " " + name + "@" + version;
    EXPECT_TRUE(missing.empty()) << missing.size() << " acknowledged creates never reached the watcher:" << names
                                 << "\n" << kapi.logs();
  }
}

}  // namespace
}  // namespace kapi::integration::watch_continuity_test
