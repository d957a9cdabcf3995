#pragma once
// The load the fault tests put on kapi while a fault is injected, and what they check afterwards.
//
// ConfigMapWriters: threads that each create ConfigMaps named <prefix>-<thread>-<n>, every name tried once, and
// sort each outcome as a client must read it:
//   acknowledged  201: kapi promised the object is stored, at that resourceVersion;
//   rejected      a 4xx other than a timeout (429 included): kapi promised it was not stored;
//   unknown       a 5xx, a 504, a cut connection or no answer: it may or may not have been stored.
// check_stored() then holds kapi to it: every acknowledged create is there at its resourceVersion, nothing is
// there that was not tried, and nothing rejected is there.
#include "tests/integration/kapi_suite.h"

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace kapi::integration {

struct WriteOutcomes {
  std::map<std::string, std::int64_t> acknowledged;  // name → resourceVersion
  std::set<std::string> rejected;
  std::set<std::string> unknown;
  std::map<std::string, int> answers;  // "504 Timeout", "connection: …": how often each failure was seen
  std::int64_t newest_acknowledged() const {
    std::int64_t newest = 0;
    for (const auto& [name, version] : acknowledged) newest = std::max(newest, version);
    return newest;
  }
};

class ConfigMapWriters {
 public:
  static constexpr std::string_view kCollection = "/api/v1/namespaces/default/configmaps";

  // Each ConfigMap carries `payload_bytes` of data, so that a test can make storage grow quickly.
  ConfigMapWriters(const KapiProcess& kapi, std::string prefix, int threads, std::size_t payload_bytes = 0,
                   std::chrono::milliseconds client_timeout = std::chrono::seconds(30))
      : port_(kapi.port()),
        tls_(kapi.admin_tls()),
        prefix_(std::move(prefix)),
        payload_(payload_bytes, 'x'),
        client_timeout_(client_timeout) {
    for (int i = 0; i < threads; ++i) threads_.emplace_back([this, i] { write(i); });
  }
  ~ConfigMapWriters() { stop(); }
  ConfigMapWriters(const ConfigMapWriters&) = delete;
  ConfigMapWriters& operator=(const ConfigMapWriters&) = delete;

  void stop() {
    stopping_ = true;
    for (auto& thread : threads_)
      if (thread.joinable()) thread.join();
  }
  std::size_t acknowledged() const { return acknowledged_count_.load(); }
  // Whether `more` creates are acknowledged within `bound` from now: kapi is writing again.
  bool wait_for_acknowledged(std::size_t more, std::chrono::milliseconds bound) const {
    const std::size_t target = acknowledged() + more;
    return eventually([&] { return acknowledged() >= target; }, bound);
  }
  WriteOutcomes outcomes() const {
    std::lock_guard lock(mutex_);
    return outcomes_;
  }

 private:
  void write(int thread) {
    std::optional<HttpConnection> connection;
    for (int n = 0; !stopping_; ++n) {
      const std::string name = prefix_ + "-" + std::to_string(thread) + "-" + std::to_string(n);
      const std::string body = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name +
                               R"("},"data":{"payload":")" + payload_ + R"("}})";
      std::string failure;
      bool rejected = false;
      try {
        if (!connection) connection.emplace(port_, tls_, client_timeout_);
        const HttpResponse response = connection->request("POST", kCollection, {{"Content-Type", "application/json"}},
                                                          body, client_timeout_);
        if (response.closes_connection()) connection.reset();
        if (response.status == 201) {
          const auto version = json_object(response.body).at("metadata").at("resourceVersion").as_string();
          std::lock_guard lock(mutex_);
          outcomes_.acknowledged.emplace(name, std::stoll(std::string(version)));
          ++acknowledged_count_;
          continue;
        }
        rejected = response.status >= 400 && response.status < 500 && response.status != 408 && response.status != 504;
        failure = std::to_string(response.status);
        if (response.body.starts_with('{')) failure += " " + std::string(json_object(response.body)["reason"].as_string());
      } catch (const std::exception& error) {
        connection.reset();
        failure = "connection: " + std::string(error.what()).substr(0, 60);
      }
      {
        std::lock_guard lock(mutex_);
        (rejected ? outcomes_.rejected : outcomes_.unknown).insert(name);
        ++outcomes_.answers[failure];
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));  // a client backs off after an error
    }
  }

  int port_;
  test_support::TlsClientOptions tls_;
  std::string prefix_;
  std::string payload_;
  std::chrono::milliseconds client_timeout_;
  std::atomic<bool> stopping_{false};
  std::atomic<std::size_t> acknowledged_count_{0};
  mutable std::mutex mutex_;
  WriteOutcomes outcomes_;
  std::vector<std::thread> threads_;
};

// The ConfigMaps whose names start with `prefix`, name → resourceVersion, from a consistent LIST (retried for up to
// 10 s while kapi recovers); `list_version` gets the LIST's resourceVersion.
inline std::map<std::string, std::int64_t> stored_config_maps(const KapiProcess& kapi, std::string_view prefix,
                                                              std::int64_t* list_version = nullptr) {
  std::map<std::string, std::int64_t> stored;
  HttpResponse listed;
  eventually([&] {
    try {
      listed = kapi.connect_admin().request("GET", std::string(ConfigMapWriters::kCollection));
    } catch (const std::exception&) {
      return false;
    }
    return listed.status == 200;
  }, std::chrono::seconds(10));
  if (listed.status != 200) throw std::runtime_error("LIST after the fault: " + std::to_string(listed.status) + " " + listed.body);
  const boost::json::object list = json_object(listed.body);
  if (list_version) *list_version = std::stoll(std::string(list.at("metadata").at("resourceVersion").as_string()));
  for (const auto& item : list.at("items").as_array()) {
    const auto& metadata = item.at("metadata");
    const std::string name(metadata.at("name").as_string());
    if (name.starts_with(prefix)) stored.emplace(name, std::stoll(std::string(metadata.at("resourceVersion").as_string())));
  }
  return stored;
}

// Every acknowledged create is stored at its resourceVersion; every stored object was tried and not rejected.
inline ::testing::AssertionResult holds_its_promises(const WriteOutcomes& outcomes,
                                                     const std::map<std::string, std::int64_t>& stored) {
  std::string broken;
  for (const auto& [name, version] : outcomes.acknowledged) {
    const auto found = stored.find(name);
    if (found == stored.end()) broken += "acknowledged but lost: " + name + "@" + std::to_string(version) + "\n";
    else if (found->second != version) broken += "acknowledged " + name + "@" + std::to_string(version) + " but stored @" + std::to_string(found->second) + "\n";
  }
  for (const auto& [name, version] : stored) {
    if (outcomes.rejected.contains(name)) broken += "rejected but stored: " + name + "\n";
    else if (!outcomes.acknowledged.contains(name) && !outcomes.unknown.contains(name)) broken += "never written but stored: " + name + "\n";
  }
  if (broken.empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << broken;
}

// Whether `events` (watch event lines, in the order a client received them) hold the create of every stored object
// of `prefix` once, in resourceVersion order, after `from`, and nothing else of `prefix`.
inline ::testing::AssertionResult delivers_every_create(const std::vector<std::string>& events, std::int64_t from,
                                                        std::string_view prefix,
                                                        const std::map<std::string, std::int64_t>& stored) {
  std::set<std::string> seen;
  std::int64_t previous = from;
  for (const std::string& line : events) {
    const boost::json::object event = json_object(line);
    const auto& metadata = event.at("object").at("metadata");
    if (!metadata.as_object().contains("name")) continue;  // a bookmark
    const std::string name(metadata.at("name").as_string());
    if (!name.starts_with(prefix)) continue;
    const std::int64_t version = std::stoll(std::string(metadata.at("resourceVersion").as_string()));
    if (event.at("type") != "ADDED") return ::testing::AssertionFailure() << "unexpected event: " << line;
    if (version <= previous) return ::testing::AssertionFailure() << "out of order after " << previous << ": " << line;
    if (!seen.insert(name).second) return ::testing::AssertionFailure() << "delivered twice: " << line;
    const auto found = stored.find(name);
    if (found == stored.end() || found->second != version) return ::testing::AssertionFailure() << "not stored so: " << line;
    previous = version;
  }
  if (seen.size() != stored.size()) {
    std::string missing;
    for (const auto& [name, version] : stored)
      if (!seen.contains(name)) missing += " " + name + "@" + std::to_string(version);
    return ::testing::AssertionFailure() << "the watch missed" << missing;
  }
  return ::testing::AssertionSuccess();
}

// A watch from `from` replays the create of every stored object once, in order: the watch cache followed storage
// through the fault without a gap or a repeat.
inline ::testing::AssertionResult replays_every_create(const KapiProcess& kapi, std::int64_t from, std::string_view prefix,
                                                       const std::map<std::string, std::int64_t>& stored) {
  const HttpResponse watch = kapi.connect_admin().request(
      "GET", std::string(ConfigMapWriters::kCollection) + "?watch=true&timeoutSeconds=3&resourceVersion=" + std::to_string(from));
  if (watch.status != 200) return ::testing::AssertionFailure() << "watch: " << watch.status << " " << watch.body;
  std::vector<std::string> events;
  std::istringstream lines(watch.body);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) events.push_back(line);
  return delivers_every_create(events, from, prefix, stored);
}

// A client's watch kept through the fault, as client-go's reflector keeps it: short watches, each resumed from
// the last resourceVersion received. A 410 Gone would force a relist, which kapi must never need here (the watch
// cache outlives any storage fault): it is counted, and the test expects none.
class ResumingWatch {
 public:
  ResumingWatch(const KapiProcess& kapi, std::int64_t from)
      : port_(kapi.port()), tls_(kapi.admin_tls()), from_(from), thread_([this] { run(); }) {}
  ~ResumingWatch() { stop(); }
  void stop() {
    stopping_ = true;
    if (thread_.joinable()) thread_.join();
  }
  // Once stopped: every event line received, in order, and how often the watch had to be resumed or was gone.
  const std::vector<std::string>& events() const { return events_; }
  int resumed() const { return resumed_; }
  int gone() const { return gone_; }

 private:
  void run() {
    std::int64_t from = from_;
    // One more short watch after the stop, so that the events of the last acknowledged writes arrive too.
    for (bool last = false; !last;) {
      last = stopping_;
      try {
        const HttpResponse watch = HttpConnection(port_, tls_, std::chrono::seconds(30))
                                       .request("GET", std::string(ConfigMapWriters::kCollection) +
                                                           "?watch=true&allowWatchBookmarks=true&timeoutSeconds=2&resourceVersion=" +
                                                           std::to_string(from),
                                                {}, {}, std::chrono::seconds(30));
        if (watch.status == 410) ++gone_;
        if (watch.status != 200) continue;
        std::istringstream lines(watch.body);
        for (std::string line; std::getline(lines, line);) {
          if (line.empty()) continue;
          const boost::json::object event = json_object(line);
          if (event.at("type") == "ERROR") {
            ++gone_;
            continue;
          }
          from = std::stoll(std::string(event.at("object").at("metadata").at("resourceVersion").as_string()));
          events_.push_back(line);
        }
      } catch (const std::exception&) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));  // kapi did not answer: try again from `from`
      }
      ++resumed_;
    }
  }

  int port_;
  test_support::TlsClientOptions tls_;
  std::int64_t from_;
  std::atomic<bool> stopping_{false};
  std::vector<std::string> events_;
  int resumed_ = 0;
  int gone_ = 0;
  std::thread thread_;
};

// The load a fault test puts on kapi: four writers, and a client's watch from the resourceVersion before them.
struct LoadUnderFault {
  explicit LoadUnderFault(const KapiProcess& kapi)
      : from(list_version(kapi)), watch(kapi, from), writers(kapi, "cm", 4) {}
  static std::int64_t list_version(const KapiProcess& kapi) {
    std::int64_t version = 0;
    stored_config_maps(kapi, "cm-", &version);
    return version;
  }
  const std::int64_t from;
  ResumingWatch watch;
  ConfigMapWriters writers;
};

// How the writes went, for the test's output and the closing figures: "812 acknowledged, 3 unknown (504 Timeout×3)".
inline std::string describe(const WriteOutcomes& outcomes) {
  std::string text = std::to_string(outcomes.acknowledged.size()) + " acknowledged, " +
                     std::to_string(outcomes.unknown.size()) + " unknown, " + std::to_string(outcomes.rejected.size()) +
                     " rejected";
  std::string answers;
  for (const auto& [answer, count] : outcomes.answers) answers += (answers.empty() ? "" : ", ") + answer + " ×" + std::to_string(count);
  return answers.empty() ? text : text + " (" + answers + ")";
}

}  // namespace kapi::integration
