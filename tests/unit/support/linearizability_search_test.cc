// The checker's search stays small on histories as large as the integration tests record: a sequential register
// run, its operations spread around their linearization points so that a dozen overlap at any time, some answers
// lost. Such a history is linearizable by construction; one stale read added to it is not.
#include "tests/support/linearizability/checker.h"

#include <gtest/gtest.h>

#include <random>

namespace kapi::test_support::linearizability::linearizability_search_test {
namespace {

using std::chrono::microseconds;

class SequentialRun {
 public:
  explicit SequentialRun(unsigned seed) : random_(seed) {}

  History run(int operations, int clients, int keys) {
    History history;
    for (int n = 0; n < operations; ++n) {
      const Clock::time_point point = Clock::time_point{} + microseconds(100 * n + 1000);
      Operation operation = next(n % clients, "k" + std::to_string(pick(keys)), "c" + std::to_string(n));
      // Spread around the point: about a dozen operations overlap at any moment.
      operation.call = point - microseconds(pick(600));
      operation.returned = point + microseconds(pick(600));
      history.push_back(std::move(operation));
    }
    return history;
  }

  // A GET after everything that returns a value overwritten long ago.
  std::optional<Operation> stale_read(const History& history) const {
    for (const Operation& write : history) {
      if (write.verb != Verb::Create || write.outcome != Outcome::Ok) continue;
      const auto current = state_.find(write.key);
      if (current != state_.end() && current->second.value == write.value) continue;
      Operation read;
      read.verb = Verb::Get;
      read.key = write.key;
      read.outcome = Outcome::Ok;
      read.found = Versioned{write.value, write.revision};
      read.call = history.back().returned + microseconds(1000);
      read.returned = read.call + microseconds(10);
      return read;
    }
    return std::nullopt;
  }

 private:
  int pick(int bound) { return std::uniform_int_distribution<int>(0, bound - 1)(random_); }

  Operation next(int client, std::string key, std::string value) {
    Operation operation;
    operation.client = client;
    operation.key = key;
    const auto current = state_.find(key);
    const bool exists = current != state_.end();
    const int dice = pick(100);
    if (dice < 25) {
      operation.verb = Verb::Get;
      operation.outcome = exists ? Outcome::Ok : Outcome::NotFound;
      if (exists) operation.found = current->second;
      return operation;
    }
    if (dice < 35) {
      operation.verb = Verb::List;
      operation.key.clear();
      operation.outcome = Outcome::Ok;
      operation.items = state_;
      operation.revision = revision_;
      return operation;
    }
    // A write; one in ten loses its answer, and of those half never happen.
    const bool lost = pick(10) == 0;
    const bool happens = !lost || pick(2) == 0;
    if (dice < 55) {
      operation.verb = Verb::Create;
      operation.value = std::move(value);
      operation.outcome = exists ? Outcome::AlreadyExists : Outcome::Ok;
      if (!exists && happens) write(operation);
    } else if (dice < 85) {
      operation.verb = Verb::Update;
      operation.value = std::move(value);
      operation.precondition = exists && pick(4) != 0 ? current->second.revision : revision_ - pick(5);
      operation.outcome = !exists                                               ? Outcome::NotFound
                          : current->second.revision == *operation.precondition ? Outcome::Ok
                                                                                : Outcome::Conflict;
      if (operation.outcome == Outcome::Ok && happens) write(operation);
    } else {
      operation.verb = Verb::Delete;
      operation.outcome = exists ? Outcome::Ok : Outcome::NotFound;
      if (exists && happens) {
        state_.erase(current);
        ++revision_;
      }
    }
    if (lost) {
      operation.outcome = Outcome::Unknown;
      operation.revision = 0;
    }
    return operation;
  }

  void write(Operation& operation) {
    operation.revision = ++revision_;
    state_[operation.key] = Versioned{operation.value, operation.revision};
  }

  std::mt19937 random_;
  std::map<std::string, Versioned> state_;
  Revision revision_ = 1;
};

TEST(LinearizabilitySearchTest, LargeConcurrentHistoriesAreDecidedWithinFewStates) {
  for (const unsigned seed : {1u, 2u, 3u, 4u, 5u}) {
    SequentialRun run(seed);
    const History history = run.run(400, 8, 3);
    const Verdict verdict = check_history(history);
    EXPECT_TRUE(verdict.linearizable()) << "seed " << seed << ": " << verdict.explanation;
    EXPECT_LT(verdict.states, 200'000u) << "seed " << seed;

    History stale = history;
    const std::optional<Operation> read = run.stale_read(history);
    ASSERT_TRUE(read) << seed;
    stale.push_back(*read);
    const Verdict refused = check_history(stale);
    EXPECT_EQ(refused.result, Verdict::Result::NotLinearizable) << "seed " << seed;
    EXPECT_EQ(refused.key, read->key) << refused.explanation;
  }
}

TEST(LinearizabilitySearchTest, TheBoundOnStatesEndsASearchUndecided) {
  const History history = SequentialRun(7).run(200, 8, 1);
  const Verdict verdict = check_history(history, {.max_states_per_key = 10});
  EXPECT_EQ(verdict.result, Verdict::Result::Undecided);
}

}  // namespace
}  // namespace kapi::test_support::linearizability::linearizability_search_test
