#pragma once
// What the history wrote, by key and value: since every write writes its own value, a value read (by a GET, a
// LIST or a watch) names the write that produced it, and so the resourceVersion that write took, even when its
// own answer was lost. Shared by check_history and check_watch.
#include "tests/support/linearizability/history.h"

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kapi::test_support::linearizability {

class WrittenValues {
 public:
  // Throws std::invalid_argument when two writes wrote one value (the history cannot be judged then).
  explicit WrittenValues(const History& history);

  // The CREATE or UPDATE of `key` that wrote `value`.
  std::optional<std::size_t> writer(const std::string& key, const std::string& value) const;
  // Why no write could have produced `value` on `key` (never written there, or its write failed); empty when one
  // could.
  std::string unwritten(const std::string& key, const std::string& value) const;

  // The resourceVersion each write took, where known: its answer, else what reads of its value said (the first
  // read). 0 where unknown.
  const std::vector<Revision>& revisions() const { return revisions_; }
  // A read of a value whose resourceVersion disagrees with its write's answer, or with an earlier read of it;
  // empty when none does.
  const std::string& disagreement() const { return disagreement_; }

 private:
  void learn(const History& history, std::size_t reader, const std::string& key, const Versioned& object);

  const History& history_;
  std::map<std::string, std::map<std::string, std::size_t>> writers_;  // key → value → the write's index
  std::vector<Revision> revisions_;
  std::string disagreement_;
};

// Whether a write was certainly refused (its value can never be read).
inline bool failed(const Operation& write) { return write.outcome != Outcome::Ok && write.outcome != Outcome::Unknown; }

inline bool is_write(Verb verb) { return verb == Verb::Create || verb == Verb::Update || verb == Verb::Delete; }

}  // namespace kapi::test_support::linearizability
