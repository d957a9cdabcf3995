// check_watch: each segment of the watch replayed over the state it started from. The events must make sense
// as changes of the keys (ADDED to an absent key, MODIFIED and DELETED of a present one, a DELETED carrying the
// value it removed), come in strictly increasing revisions, each be a write of the history that may have taken
// effect, at the revision that write took, at most once; an UPDATE's event must follow the object its
// precondition named. And every acknowledged write in the span a segment covers must be among its events.
#include "tests/support/linearizability/checker.h"

#include "tests/support/linearizability/written_values.h"

#include <set>

namespace kapi::test_support::linearizability {
namespace {

std::string_view name_of(EventType type) {
  switch (type) {
    case EventType::Added: return "ADDED";
    case EventType::Modified: return "MODIFIED";
    case EventType::Deleted: return "DELETED";
  }
  return "?";
}

std::string describe(const WatchEvent& event) {
  return std::string(name_of(event.type)) + " " + event.key + "=" + event.object.value + "@" +
         std::to_string(event.object.revision);
}

class SegmentCheck {
 public:
  SegmentCheck(const History& history, const WrittenValues& written, const WatchSegment& segment)
      : history_(history), written_(written), segment_(segment), state_(segment.initial), origin_(origin_of(history)) {}

  std::string run() {
    Revision previous = segment_.from;
    for (const WatchEvent& event : segment_.events) {
      if (event.object.revision <= previous) {
        return "watch out of order: " + describe(event) + " after resourceVersion " + std::to_string(previous);
      }
      if (event.object.revision > segment_.through) {
        return "watch event " + describe(event) + " beyond the revision it covers, " + std::to_string(segment_.through);
      }
      previous = event.object.revision;
      if (std::string why = apply(event); !why.empty()) return "watch event " + describe(event) + ": " + why;
    }
    return missing_acknowledged_write();
  }

 private:
  std::string apply(const WatchEvent& event) {
    const auto current = state_.find(event.key);
    if (event.type == EventType::Deleted) {
      if (current == state_.end()) return "deletes an absent key";
      if (current->second.value != event.object.value) return "the key held " + current->second.value;
      if (!deletable(event.key)) return "no DELETE of the key may have taken effect";
      state_.erase(current);
      return {};
    }
    if ((event.type == EventType::Added) != (current == state_.end())) {
      return event.type == EventType::Added ? "the key already existed" : "the key did not exist";
    }
    if (std::string why = written_.unwritten(event.key, event.object.value); !why.empty()) return why;
    const std::size_t index = *written_.writer(event.key, event.object.value);
    const Operation& write = history_[index];
    const Verb expected = event.type == EventType::Added ? Verb::Create : Verb::Update;
    if (write.verb != expected) return "it was written by " + describe(write, origin_);
    if (!delivered_.insert(index).second) return "delivered twice";
    if (const Revision revision = written_.revisions()[index]; revision != 0 && revision != event.object.revision) {
      return "its write took resourceVersion " + std::to_string(revision) + ": " + describe(write, origin_);
    }
    if (write.verb == Verb::Update && write.precondition && *write.precondition != current->second.revision) {
      return "it replaced " + current->second.value + "@" + std::to_string(current->second.revision) +
             ", not the object its precondition named: " + describe(write, origin_);
    }
    if (std::string why = out_of_real_time_order(index, event.object.revision); !why.empty()) return why;
    state_[event.key] = event.object;
    return {};
  }

  bool deletable(const std::string& key) const {
    for (const Operation& operation : history_) {
      if (operation.verb == Verb::Delete && operation.key == key && !failed(operation)) return true;
    }
    return false;
  }

  // A write the watch revealed at `revision` must be newer than every write that ended before it began, and older
  // than every write that began after it ended.
  std::string out_of_real_time_order(std::size_t index, Revision revision) const {
    const Operation& write = history_[index];
    for (std::size_t other = 0; other < history_.size(); ++other) {
      const Operation& operation = history_[other];
      const Revision known = written_.revisions()[other];
      if (other == index || known == 0 || operation.outcome != Outcome::Ok) continue;
      const bool earlier = operation.returned < write.call && known >= revision;
      const bool later = write.outcome == Outcome::Ok && write.returned < operation.call && known <= revision;
      if (earlier || later) return "out of real-time order with " + describe(operation, origin_);
    }
    return {};
  }

  std::string missing_acknowledged_write() const {
    for (std::size_t i = 0; i < history_.size(); ++i) {
      const Operation& write = history_[i];
      if ((write.verb != Verb::Create && write.verb != Verb::Update) || write.outcome != Outcome::Ok) continue;
      if (write.revision > segment_.from && write.revision <= segment_.through && !delivered_.contains(i)) {
        return "an acknowledged write is missing from the watch over (" + std::to_string(segment_.from) + ", " +
               std::to_string(segment_.through) + "]: " + describe(write, origin_);
      }
    }
    return {};
  }

  const History& history_;
  const WrittenValues& written_;
  const WatchSegment& segment_;
  std::map<std::string, Versioned> state_;
  std::set<std::size_t> delivered_;
  const Clock::time_point origin_;
};

}  // namespace

std::string check_watch(const History& history, const std::vector<WatchSegment>& watch) {
  const WrittenValues written(history);
  for (std::size_t i = 0; i < watch.size(); ++i) {
    if (std::string why = SegmentCheck(history, written, watch[i]).run(); !why.empty()) {
      return "watch segment " + std::to_string(i + 1) + " of " + std::to_string(watch.size()) + ": " + why;
    }
  }
  return {};
}

}  // namespace kapi::test_support::linearizability
