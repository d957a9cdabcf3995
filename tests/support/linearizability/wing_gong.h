#pragma once
// Wing & Gong's search for a linearization of one key's operations, with Lowe's memoisation as Porcupine and
// Knossos run it: walk the calls and returns in time order, linearize a called operation when the model allows it
// and the (linearized set, state) pair is new, and backtrack at a return whose operation is not linearized yet.
// Open-ended operations (Unknown outcomes) have no return: nothing forces them in, so they may take effect at any
// point after their call, or never.
#include "tests/support/linearizability/register_model.h"

#include <cstddef>
#include <optional>
#include <vector>

namespace kapi::test_support::linearizability {

struct SearchResult {
  enum class Verdict { Linearizable, NotLinearizable, Undecided };
  Verdict verdict = Verdict::Undecided;  // Undecided: the search reached its bound on states
  std::size_t states = 0;                // distinct (linearized set, state) pairs visited
  // A linearization of every completed operation when linearizable; otherwise the longest linearizable prefix
  // found (indices into the operations, in order) and the operation whose return came before it could follow.
  std::vector<std::size_t> linearization;
  std::optional<std::size_t> blocked;
};

SearchResult search_linearization(const std::vector<KeyOperation>& operations, std::size_t max_states);

}  // namespace kapi::test_support::linearizability
