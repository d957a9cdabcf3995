// kapi's API is linearizable under faults (issue 25). Six clients run random GETs, CREATEs, UPDATEs with a
// resourceVersion precondition, DELETEs (some with one) and consistent LISTs on three ConfigMaps, while a seventh
// watches them; partway through each history a fault strikes and is repaired, and the clients go on until each
// has had answers again. Every history must be linearizable against a versioned register per key
// (tests/support/linearizability/checker.h), and the watch must agree with it. Answers a fault leaves unknown (a
// cut connection, a 504 or 500) count as operations that may or may not have taken effect.
//
// Faults: on the embedded store kapi itself is SIGKILLed and restarted on its data directory; on etcd, etcd is
// SIGKILLed and restarted, or paused (SIGSTOP) for longer than a request's timeout and continued.
#include "tests/integration/attack_support.h"
#include "tests/integration/kapi_suite.h"
#include "tests/support/etcd_process.h"
#include "tests/support/linearizability/checker.h"
#include "tests/support/linearizability/configmap_client.h"
#include "tests/support/linearizability/watch_recorder.h"

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <thread>

namespace kapi::integration::linearizability_test {
namespace {

namespace lin = test_support::linearizability;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr std::uint32_t kSeed = 25;
constexpr int kClients = 6;
constexpr int kKeys = 3;
constexpr int kHarnessClient = 0;               // the history's first and last LIST, and the fence
constexpr int kWatcherClient = kClients + 1;    // the watch's relists
constexpr int kOperationsBeforeFault = 20;      // over all clients
constexpr int kDefiniteAnswersAfterRepair = 4;  // per client
// kapi's deadline for each request (?timeout=): a fault outlasting it turns requests into 504s, unknown outcomes.
constexpr auto kRequestTimeout = 500ms;
// Bounds on waiting for the clients and the watch: far above what a history needs, so that only a kapi that does
// not recover fails a test on time.
constexpr auto kProgressBound = 30s;

// What the clients of one history have done, for the fault script to wait on.
class Progress {
 public:
  void recorded(int client, const lin::Operation& operation) {
    {
      std::lock_guard lock(mutex_);
      ++operations_;
      if (operation.outcome != lin::Outcome::Unknown) ++definite_since_repair_[client];
    }
    changed_.notify_all();
  }
  void repaired() {
    std::lock_guard lock(mutex_);
    definite_since_repair_.clear();
  }
  void wait_for_operations(int count) {
    wait("operations before the fault", [&] { return operations_ >= count; });
  }
  void wait_for_answers_from_each(int count) {
    wait("answers after the repair", [&] {
      if (static_cast<int>(definite_since_repair_.size()) < kClients) return false;
      for (const auto& [client, answers] : definite_since_repair_) {
        if (answers < count) return false;
      }
      return true;
    });
  }

 private:
  template <typename Ready>
  void wait(const char* what, Ready ready) {
    std::unique_lock lock(mutex_);
    if (!changed_.wait_for(lock, kProgressBound, ready)) throw std::runtime_error(std::string("no ") + what);
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  int operations_ = 0;
  std::map<int, int> definite_since_repair_;
};

// One client's random operations until told to stop. Its preconditions are mostly the resourceVersion it last saw
// of the key, else one older, so that updates and deletes both succeed and conflict.
void run_client(lin::ConfigMapClient& client, int id, std::uint32_t seed, const std::vector<std::string>& keys,
                const std::atomic<bool>& stop, Progress& progress) {
  std::seed_seq sequence{kSeed, seed, static_cast<std::uint32_t>(id)};
  std::mt19937 random(sequence);
  auto pick = [&](int bound) { return std::uniform_int_distribution<int>(0, bound - 1)(random); };
  std::map<std::string, lin::Revision> seen;
  for (int n = 0; !stop.load(); ++n) {
    const std::string& key = keys[static_cast<std::size_t>(pick(static_cast<int>(keys.size())))];
    const std::string value = "c" + std::to_string(id) + "." + std::to_string(n);
    const auto known = seen.find(key);
    const lin::Revision precondition = known == seen.end() ? 1 : (pick(10) < 7 ? known->second : known->second - 1);
    const int dice = pick(100);
    std::optional<lin::Operation> done;
    if (dice < 25) {
      done = client.get(key);
    } else if (dice < 35) {
      done = client.list();
    } else if (dice < 55) {
      done = client.create(key, value);
    } else if (dice < 80) {
      done = client.update(key, value, precondition);
    } else {
      done = client.remove(key, pick(2) == 0 ? std::optional(precondition) : std::nullopt);
    }
    if (!done) continue;  // never sent: kapi was down
    if (done->outcome == lin::Outcome::Ok) {
      if (done->found) seen[key] = done->found->revision;
      if (done->verb == lin::Verb::Create || done->verb == lin::Verb::Update) seen[key] = done->revision;
      for (const auto& [name, object] : done->items) seen[name] = object.revision;
    }
    progress.recorded(id, *done);
  }
}

// A fault of the store: struck once the clients are under way, repaired before they finish.
struct Fault {
  std::function<void()> strike;
  std::function<void()> repair;
};

struct RecordedHistory {
  lin::History history;
  std::vector<lin::WatchSegment> watch;
  std::vector<std::string> unexpected;  // answers that fit no operation's contract
};

// Retries `operation` until kapi answers it Ok (after a fault it may take a moment).
lin::Operation until_ok(const std::function<std::optional<lin::Operation>(int attempt)>& operation) {
  const auto deadline = Clock::now() + kProgressBound;
  for (int attempt = 0; Clock::now() < deadline; ++attempt) {
    if (std::optional<lin::Operation> done = operation(attempt); done && done->outcome == lin::Outcome::Ok) {
      return *done;
    }
  }
  throw std::runtime_error("kapi did not answer the harness's request in time");
}

RecordedHistory record_history(const lin::KapiEndpoint& endpoint, const std::string& label, std::uint32_t seed,
                               const Fault& fault) {
  const lin::ClientSettings settings{.label = label, .request_timeout = kRequestTimeout};
  lin::HistoryRecorder recorder;
  lin::ConfigMapClient harness(endpoint, settings, kHarnessClient, recorder);
  const lin::Operation start = until_ok([&](int) { return harness.list(); });
  lin::WatchRecorder watch(endpoint, settings, start,
                           lin::ConfigMapClient(endpoint, settings, kWatcherClient, recorder));

  std::vector<std::string> keys;
  for (int k = 0; k < kKeys; ++k) keys.push_back(label + "-k" + std::to_string(k));
  std::vector<lin::ConfigMapClient> clients;
  clients.reserve(kClients);
  for (int id = 1; id <= kClients; ++id) clients.emplace_back(endpoint, settings, id, recorder);
  Progress progress;
  std::atomic<bool> stop = false;
  {
    struct Threads {
      std::atomic<bool>& stop;
      std::vector<std::thread> running;
      ~Threads() {
        stop = true;
        for (std::thread& thread : running) thread.join();
      }
    } threads{stop, {}};
    for (int id = 1; id <= kClients; ++id) {
      threads.running.emplace_back(run_client, std::ref(clients[static_cast<std::size_t>(id - 1)]), id, seed,
                                   std::cref(keys), std::cref(stop), std::ref(progress));
    }
    progress.wait_for_operations(kOperationsBeforeFault);
    fault.strike();
    fault.repair();
    progress.repaired();
    progress.wait_for_answers_from_each(kDefiniteAnswersAfterRepair);
  }

  // The end of the history, and a fence: once the watch has delivered the fence, it has had its chance to deliver
  // every write acknowledged before it.
  until_ok([&](int) { return harness.list(); });
  const lin::Operation fence = until_ok([&](int attempt) {
    return harness.create(label + "-fence" + std::to_string(attempt), "fence." + std::to_string(attempt));
  });
  const bool covered = watch.wait_until_covered(fence.revision, Clock::now() + kProgressBound);
  RecordedHistory recorded{recorder.operations(), watch.stop(), harness.unexpected()};
  if (!covered) recorded.unexpected.push_back("the watch never reached the fence at " + std::to_string(fence.revision));
  for (const lin::ConfigMapClient& client : clients) {
    recorded.unexpected.insert(recorded.unexpected.end(), client.unexpected().begin(), client.unexpected().end());
  }
  return recorded;
}

// Runs `histories` faulted histories and checks each; prints the test's summary line.
void check_histories(const std::string& test, int histories, const lin::KapiEndpoint& endpoint, const Fault& fault,
                     const std::function<std::string()>& logs) {
  const auto started = Clock::now();
  std::size_t operations = 0, unknown = 0, states = 0, events = 0, segments = 0;
  for (int h = 0; h < histories; ++h) {
    const std::string label = test + "-" + std::to_string(h);
    const RecordedHistory recorded = record_history(endpoint, label, static_cast<std::uint32_t>(h), fault);
    const lin::Verdict verdict = lin::check_history(recorded.history);
    std::string whole;
    for (const lin::Operation& operation : recorded.history) {
      whole += "\n  " + lin::describe(operation, lin::origin_of(recorded.history));
    }
    ASSERT_TRUE(verdict.linearizable()) << label << ": " << verdict.explanation << "\nthe whole history:" << whole
                                        << "\n"
                                        << logs();
    const std::string watch_error = lin::check_watch(recorded.history, recorded.watch);
    ASSERT_EQ(watch_error, "") << label << "\nthe whole history:" << whole << "\n" << logs();
    ASSERT_TRUE(recorded.unexpected.empty()) << label << ": " << recorded.unexpected.front();
    operations += recorded.history.size();
    states += verdict.states;
    segments += recorded.watch.size();
    for (const lin::Operation& operation : recorded.history) unknown += operation.outcome == lin::Outcome::Unknown;
    for (const lin::WatchSegment& segment : recorded.watch) events += segment.events.size();
  }
  std::cout << "[ linearizability ] " << test << ": " << histories << " histories, " << operations << " operations ("
            << unknown << " unknown outcomes), " << histories << " faults, " << states << " search states, " << events
            << " watch events in " << segments << " segments, "
            << std::chrono::duration<double>(Clock::now() - started).count() << " s\n";
}

// At least 100 faulted histories per store; each test stays well within two minutes on two cores.
constexpr int kEmbeddedHistories = 100;
constexpr int kEtcdKillHistories = 50;
constexpr int kEtcdPauseHistories = 50;

TEST(LinearizabilityTest, EmbeddedStoreWithKapiKilledAndRestartedInEachHistory) {
  test_support::TempDir data("kapi-linearizability");
  const KapiOptions options{.data_dir = data.path(), .embedded_store = true};
  auto kapi = std::make_unique<KapiProcess>(options);
  lin::KapiEndpoint endpoint;
  endpoint.up(kapi->port(), kapi->admin_tls());
  auto strike = [&] {
    endpoint.down();
    kapi->kill();
  };
  auto repair = [&] {
    kapi = std::make_unique<KapiProcess>(options);
    endpoint.up(kapi->port(), kapi->admin_tls());
  };
  const Fault restart{strike, repair};
  // Each history restarts kapi, which AddressSanitizer slows several times over: a third of them there.
  const int histories = address_sanitized(kapi->pid()) ? kEmbeddedHistories / 3 : kEmbeddedHistories;
  check_histories("embedded-kill", histories, endpoint, restart, [&] { return kapi->logs(); });
}

// etcd elects itself within tens of milliseconds of a restart, rather than the default second.
test_support::EtcdProcess::Options quick_etcd() {
  test_support::EtcdProcess::Options options;
  options.extra_arguments = {"--heartbeat-interval=10", "--election-timeout=100"};
  return options;
}

TEST(LinearizabilityTest, EtcdKilledAndRestartedInEachHistory) {
  test_support::EtcdProcess etcd(quick_etcd());
  KapiProcess kapi(KapiOptions{.extra_flags = {"--etcd-servers=" + etcd.endpoint()}});
  lin::KapiEndpoint endpoint;
  endpoint.up(kapi.port(), kapi.admin_tls());
  const Fault crash{[&] { etcd.kill(); }, [&] { etcd.start(); }};
  check_histories("etcd-kill", kEtcdKillHistories, endpoint, crash, [&] { return kapi.logs(); });
}

TEST(LinearizabilityTest, EtcdPausedLongerThanARequestTimeoutInEachHistory) {
  test_support::EtcdProcess etcd(quick_etcd());
  KapiProcess kapi(KapiOptions{.extra_flags = {"--etcd-servers=" + etcd.endpoint()}});
  lin::KapiEndpoint endpoint;
  endpoint.up(kapi.port(), kapi.admin_tls());
  auto strike = [&] {
    etcd.pause();
    std::this_thread::sleep_for(kRequestTimeout + 300ms);  // the fault's length, not a wait for it
  };
  const Fault hang{strike, [&] { etcd.resume(); }};
  check_histories("etcd-pause", kEtcdPauseHistories, endpoint, hang, [&] { return kapi.logs(); });
}

}  // namespace
}  // namespace kapi::integration::linearizability_test
