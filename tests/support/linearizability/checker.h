#pragma once
// Judges a recorded history (history.h) against the sequential model of register_model.h, Porcupine/Knossos
// style, and a watch recorded beside it against the history.
//
// check_history: is there one order of the operations, each placed between its call and its return (an Unknown
// outcome anywhere after its call, or nowhere), in which every answer is what a versioned register per key would
// have answered, with resourceVersions increasing strictly over all writes? Each key is searched on its own
// (wing_gong.h), a LIST taking part in every key's search with what it said of that key; the revisions then tie
// the keys together: a LIST saw every write up to its resourceVersion and none after it, so the points chosen for
// it in each key's order are one point in time, and writes ordered in real time have increasing revisions.
//
// check_watch: a watch delivers the writes that took effect, each once, in revision order, with the revisions
// their writers were told, and no write that the history shows failed; every acknowledged write it covers is there.
#include "tests/support/linearizability/history.h"

#include <cstddef>
#include <string>
#include <vector>

namespace kapi::test_support::linearizability {

struct Verdict {
  enum class Result { Linearizable, NotLinearizable, Undecided };
  Result result = Result::Linearizable;  // Undecided: a key's search reached the bound on states
  std::string key;                       // the key whose operations failed; empty when the failure spans keys
  std::string explanation;               // what failed, with the operations of the shortest failing prefix
  std::size_t states = 0;                // search states visited over all keys

  bool linearizable() const { return result == Result::Linearizable; }
};

struct CheckOptions {
  // Per key. Histories of a few dozen operations per key need thousands; the bound keeps a pathological one from
  // hanging a test, which then fails as Undecided rather than passing.
  std::size_t max_states_per_key = 2'000'000;
};

Verdict check_history(const History& history, CheckOptions options = {});

// True (empty string) when the watch agrees with the history; otherwise what it got wrong.
std::string check_watch(const History& history, const std::vector<WatchSegment>& watch);

}  // namespace kapi::test_support::linearizability
