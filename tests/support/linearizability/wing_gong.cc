#include "tests/support/linearizability/wing_gong.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <unordered_set>

namespace kapi::test_support::linearizability {
namespace {

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

class Bitset {
 public:
  explicit Bitset(std::size_t size) : words_((size + 63) / 64) {}
  void set(std::size_t bit) { words_[bit / 64] |= std::uint64_t{1} << (bit % 64); }
  void reset(std::size_t bit) { words_[bit / 64] &= ~(std::uint64_t{1} << (bit % 64)); }
  std::size_t hash() const {
    std::size_t seed = words_.size();
    for (const std::uint64_t word : words_)
      seed ^= std::hash<std::uint64_t>{}(word) + 0x9e3779b97f4a7c15 + (seed << 6) + (seed >> 2);
    return seed;
  }
  friend bool operator==(const Bitset&, const Bitset&) = default;

 private:
  std::vector<std::uint64_t> words_;
};

// What the search has already tried: from this set of linearized operations in this state, nothing new follows.
struct Memo {
  Bitset linearized;
  RegisterState state;
  friend bool operator==(const Memo&, const Memo&) = default;
};

struct MemoHash {
  std::size_t operator()(const Memo& memo) const {
    const RegisterState& s = memo.state;
    std::size_t seed = memo.linearized.hash();
    for (const std::int64_t part : {std::int64_t{s.value}, s.object_revision, s.last_write, s.floor}) {
      seed ^= std::hash<std::int64_t>{}(part) + 0x9e3779b97f4a7c15 + (seed << 6) + (seed >> 2);
    }
    return seed;
  }
};

// The calls and returns in time order, as a doubly linked list that linearized operations are lifted out of
// (and put back into when the search backtracks: dancing links, undone in reverse order).
class Timeline {
 public:
  struct Entry {
    std::size_t operation = 0;
    bool is_call = true;
    std::size_t match = kNone;  // a call's return entry; kNone for an open-ended operation
  };

  explicit Timeline(const std::vector<KeyOperation>& operations) {
    struct Event {
      Clock::time_point at;
      bool is_call;
      std::size_t operation;
    };
    std::vector<Event> events;
    for (std::size_t i = 0; i < operations.size(); ++i) {
      events.push_back({operations[i].call, true, i});
      if (operations[i].returned) events.push_back({*operations[i].returned, false, i});
    }
    // At equal times calls go first: operations that touch are concurrent, the more permissive reading.
    std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
      return a.at != b.at ? a.at < b.at : a.is_call && !b.is_call;
    });
    std::vector<std::size_t> call_entry(operations.size(), kNone);
    for (const Event& event : events) {
      const std::size_t index = entries_.size();
      entries_.push_back({event.operation, event.is_call, kNone});
      if (event.is_call) {
        call_entry[event.operation] = index;
      } else {
        entries_[call_entry[event.operation]].match = index;
      }
    }
    head_ = entries_.size();
    next_.resize(entries_.size() + 1);
    previous_.resize(entries_.size() + 1);
    for (std::size_t i = 0; i < entries_.size(); ++i) {
      next_[i] = i + 1 < entries_.size() ? i + 1 : kNone;
      previous_[i] = i == 0 ? head_ : i - 1;
    }
    next_[head_] = entries_.empty() ? kNone : 0;
  }

  const Entry& entry(std::size_t index) const { return entries_[index]; }
  std::size_t first() const { return next_[head_]; }
  std::size_t after(std::size_t index) const { return next_[index]; }

  void lift(std::size_t call) {
    unlink(call);
    if (entries_[call].match != kNone) unlink(entries_[call].match);
  }
  void unlift(std::size_t call) {
    if (entries_[call].match != kNone) relink(entries_[call].match);
    relink(call);
  }

 private:
  void unlink(std::size_t index) {
    next_[previous_[index]] = next_[index];
    if (next_[index] != kNone) previous_[next_[index]] = previous_[index];
  }
  void relink(std::size_t index) {
    next_[previous_[index]] = index;
    if (next_[index] != kNone) previous_[next_[index]] = index;
  }

  std::vector<Entry> entries_;
  std::size_t head_ = 0;  // a sentinel before the first entry
  std::vector<std::size_t> next_;
  std::vector<std::size_t> previous_;
};

}  // namespace

SearchResult search_linearization(const std::vector<KeyOperation>& operations, std::size_t max_states) {
  SearchResult result;
  Timeline timeline(operations);
  std::size_t unlinearized_returns = 0;
  for (const KeyOperation& operation : operations) unlinearized_returns += operation.returned ? 1 : 0;

  struct Frame {
    std::size_t call_entry;
    RegisterState before;
  };
  std::vector<Frame> stack;
  std::unordered_set<Memo, MemoHash> tried;
  Bitset linearized(operations.size());
  RegisterState state;
  std::size_t best = 0;  // the longest prefix linearized so far

  std::size_t entry = timeline.first();
  while (unlinearized_returns > 0) {
    if (entry != kNone && timeline.entry(entry).is_call) {
      const std::size_t index = timeline.entry(entry).operation;
      if (std::optional<RegisterState> next = step(state, operations[index])) {
        Bitset with = linearized;
        with.set(index);
        if (tried.insert(Memo{std::move(with), *next}).second) {
          if (++result.states > max_states) return result;  // Undecided
          stack.push_back({entry, state});
          state = *next;
          linearized.set(index);
          if (operations[index].returned) --unlinearized_returns;
          timeline.lift(entry);
          if (stack.size() > best) {
            best = stack.size();
            result.linearization.clear();
            for (const Frame& frame : stack) result.linearization.push_back(timeline.entry(frame.call_entry).operation);
            result.blocked.reset();
          }
          entry = timeline.first();
          continue;
        }
      }
      entry = timeline.after(entry);
      continue;
    }
    // A return whose operation nothing linearized before it: undo the last choice and try the next call.
    if (entry != kNone && !result.blocked && stack.size() == best) {
      result.blocked = timeline.entry(entry).operation;
    }
    if (stack.empty()) {
      result.verdict = SearchResult::Verdict::NotLinearizable;
      return result;
    }
    const Frame frame = stack.back();
    stack.pop_back();
    const std::size_t index = timeline.entry(frame.call_entry).operation;
    state = frame.before;
    linearized.reset(index);
    if (operations[index].returned) ++unlinearized_returns;
    timeline.unlift(frame.call_entry);
    entry = timeline.after(frame.call_entry);
  }
  result.verdict = SearchResult::Verdict::Linearizable;
  result.linearization.clear();
  for (const Frame& frame : stack) result.linearization.push_back(timeline.entry(frame.call_entry).operation);
  result.blocked.reset();
  return result;
}

}  // namespace kapi::test_support::linearizability
