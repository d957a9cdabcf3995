#pragma once
// The sequential specification each key of a history is checked against: a versioned register (does the
// ConfigMap exist, its value, its resourceVersion) under kapi's rule that resourceVersions increase strictly over
// all writes. Keys are independent objects, so a history is checked key by key (linearizability is local), with
// a LIST split into what it said about each key; the revisions tie the keys back together (see checker.cc).
#include "tests/support/linearizability/history.h"

#include <cstddef>
#include <optional>

namespace kapi::test_support::linearizability {

inline constexpr int kAbsent = -1;  // the value of a key that does not exist

// One operation of the history as it concerns one key: a GET, CREATE, UPDATE or DELETE of it, or what a LIST
// said about it (verb List). Values are interned per key (see checker.cc).
struct KeyOperation {
  std::size_t source = 0;  // its index in the history
  Verb verb = Verb::Get;
  Outcome outcome = Outcome::Unknown;
  int value = kAbsent;  // CREATE, UPDATE: the value written
  std::optional<Revision> precondition;
  // Whether the precondition is the resourceVersion some write is known to have taken: then it cannot be that of
  // an object whose revision nobody learned (any other one may be, since a client may guess).
  bool precondition_known = false;
  // CREATE, UPDATE: the resourceVersion written, 0 when nobody learned it (an Unknown outcome no read revealed);
  // LIST: the list's resourceVersion.
  Revision revision = 0;
  int seen_value = kAbsent;  // GET Ok, LIST: the value read; kAbsent: the key was absent
  Revision seen_revision = 0;
  Clock::time_point call;
  std::optional<Clock::time_point> returned;  // std::nullopt: open-ended (an Unknown outcome)
};

struct RegisterState {
  int value = kAbsent;
  Revision object_revision = 0;  // the object's resourceVersion; 0 when no one learned it
  Revision last_write = 0;       // the newest known resourceVersion of a write to this key
  // A later write's resourceVersion must exceed this: the last write's, or that of a LIST that saw the key as it is
  // (such a list held every write up to its revision, and no later one).
  Revision floor = 0;
  friend bool operator==(const RegisterState&, const RegisterState&) = default;
};

// The state after `operation`, or std::nullopt when its outcome contradicts `state`. An Unknown write is stepped
// as one that took effect: one that did not is simply never linearized, which the search allows (it has no return
// that would force it in).
std::optional<RegisterState> step(const RegisterState& state, const KeyOperation& operation);

}  // namespace kapi::test_support::linearizability
