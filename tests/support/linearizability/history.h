#pragma once
// A concurrent history of operations on a few ConfigMaps, as the clients that ran them saw them: who called what
// when, and what came back when (issue 25's linearizability check; checker.h judges such histories).
//
// Every write writes a value that no other write writes (the tests make it from the client and a counter), so a
// value read names the one write that produced it, also when that write's own answer was lost.
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::test_support::linearizability {

using Clock = std::chrono::steady_clock;
using Revision = std::int64_t;

enum class Verb { Get, Create, Update, Delete, List };

// How an operation ended, as its client saw it.
enum class Outcome {
  Ok,             // GET 200, CREATE 201, PUT 200, DELETE 200, LIST 200
  NotFound,       // GET, PUT or DELETE: 404
  AlreadyExists,  // CREATE: 409 AlreadyExists
  Conflict,       // PUT, or DELETE with a precondition: 409 Conflict (the resourceVersion did not match)
  // No answer that says what happened (a timeout, a cut connection, a 5xx): the operation may or may not have
  // taken effect, at any moment after its call, so its return is open-ended.
  Unknown,
};

// A ConfigMap as the store held it: its value (data.v) and resourceVersion.
struct Versioned {
  std::string value;
  Revision revision = 0;
  friend bool operator==(const Versioned&, const Versioned&) = default;
};

struct Operation {
  int client = 0;
  Verb verb = Verb::Get;
  std::string key;                       // the ConfigMap's name; empty for LIST
  std::string value;                     // CREATE, UPDATE: the value written
  std::optional<Revision> precondition;  // UPDATE: metadata.resourceVersion; DELETE: preconditions.resourceVersion
  Clock::time_point call;
  Clock::time_point returned;  // meaningless when the outcome is Unknown
  Outcome outcome = Outcome::Unknown;
  Revision revision = 0;                   // Ok CREATE or UPDATE: the new resourceVersion; Ok LIST: the list's
  std::optional<Versioned> found;          // Ok GET: the object read
  std::map<std::string, Versioned> items;  // Ok LIST: name → object
};

using History = std::vector<Operation>;

// How a watch saw the same ConfigMaps change: its events after `from` up to `through`, from one stream or from
// several that each resumed where the last ended. A watch that had to start over (410 Gone, relist) begins a new
// segment at the list it started from.
enum class EventType { Added, Modified, Deleted };

struct WatchEvent {
  EventType type = EventType::Added;
  std::string key;
  Versioned object;  // Deleted: the last value, at the deletion's resourceVersion
};

struct WatchSegment {
  Revision from = 0;                         // the resourceVersion the watch started after
  std::map<std::string, Versioned> initial;  // the state at `from` (the items of the list it came from)
  std::vector<WatchEvent> events;
  Revision through = 0;  // every change up to here was delivered (the last event's or bookmark's revision)
};

// Collects the operations of concurrent clients; thread-safe.
class HistoryRecorder {
 public:
  void add(Operation operation) {
    std::lock_guard lock(mutex_);
    operations_.push_back(std::move(operation));
  }
  History operations() const {
    std::lock_guard lock(mutex_);
    return operations_;
  }

 private:
  mutable std::mutex mutex_;
  History operations_;
};

// One line for a report: "c2 UPDATE k1 if rv=12 value=c2.5 → Ok rv=15 [+12.3 ms, +14.0 ms]", times from `origin`.
std::string describe(const Operation& operation, Clock::time_point origin);
std::string_view name_of(Verb verb);
std::string_view name_of(Outcome outcome);
// The earliest call of the history: the origin its descriptions count from.
Clock::time_point origin_of(const History& history);

}  // namespace kapi::test_support::linearizability
