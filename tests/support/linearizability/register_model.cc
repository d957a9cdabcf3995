#include "tests/support/linearizability/register_model.h"

#include <algorithm>

namespace kapi::test_support::linearizability {
namespace {

bool exists(const RegisterState& state) { return state.value != kAbsent; }

// A read returns exactly the state: the value, and the resourceVersion of the write that made it.
bool reads(const RegisterState& state, const KeyOperation& read) {
  if (read.seen_value == kAbsent) return !exists(state);
  return state.value == read.seen_value && state.object_revision == read.seen_revision;
}

bool precondition_holds(const RegisterState& state, const KeyOperation& write) {
  if (!write.precondition) return true;
  if (state.object_revision == 0) return !write.precondition_known;
  return state.object_revision == *write.precondition;
}

// A 409 Conflict says the object's resourceVersion was another; one nobody learned may have been.
bool precondition_fails(const RegisterState& state, const KeyOperation& write) {
  return write.precondition && (state.object_revision == 0 || state.object_revision != *write.precondition);
}

// The state after a write of `value` at `revision` (0: unknown), which must come after every write and list the
// key's state has already been ordered behind.
std::optional<RegisterState> written(const RegisterState& state, int value, Revision revision) {
  if (revision != 0 && revision <= state.floor) return std::nullopt;
  RegisterState next = state;
  next.value = value;
  next.object_revision = revision;
  if (revision != 0) next.last_write = next.floor = revision;
  return next;
}

}  // namespace

std::optional<RegisterState> step(const RegisterState& state, const KeyOperation& operation) {
  const bool applied = operation.outcome == Outcome::Ok || operation.outcome == Outcome::Unknown;
  switch (operation.verb) {
    case Verb::Get:
      if (operation.outcome == Outcome::Ok || operation.outcome == Outcome::NotFound) {
        if (reads(state, operation)) return state;
      }
      return std::nullopt;

    case Verb::List: {
      // The list saw every key at its revision: this key's newest write is not newer, and any later one is.
      if (!reads(state, operation) || state.last_write > operation.revision) return std::nullopt;
      RegisterState next = state;
      next.floor = std::max(next.floor, operation.revision);
      return next;
    }

    case Verb::Create:
      if (operation.outcome == Outcome::AlreadyExists) {
        return exists(state) ? std::optional(state) : std::nullopt;
      }
      if (applied && !exists(state)) return written(state, operation.value, operation.revision);
      return std::nullopt;

    case Verb::Update:
      if (operation.outcome == Outcome::NotFound) return exists(state) ? std::nullopt : std::optional(state);
      if (!exists(state)) return std::nullopt;
      if (operation.outcome == Outcome::Conflict) {
        return precondition_fails(state, operation) ? std::optional(state) : std::nullopt;
      }
      if (applied && precondition_holds(state, operation)) {
        return written(state, operation.value, operation.revision);
      }
      return std::nullopt;

    case Verb::Delete:
      if (operation.outcome == Outcome::NotFound) return exists(state) ? std::nullopt : std::optional(state);
      if (!exists(state)) return std::nullopt;
      if (operation.outcome == Outcome::Conflict) {
        return precondition_fails(state, operation) ? std::optional(state) : std::nullopt;
      }
      if (applied && precondition_holds(state, operation)) {
        // A ConfigMap's DELETE answers a Status without the deletion's revision: the floor stays a lower bound.
        RegisterState next = state;
        next.value = kAbsent;
        next.object_revision = 0;
        return next;
      }
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace kapi::test_support::linearizability
