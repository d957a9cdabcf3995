// The linearizability checker (tests/support/linearizability) on small hand-written histories: ones a versioned
// register could have produced, and the classic ways a store gets it wrong.
#include "tests/support/linearizability/checker.h"
#include "tests/unit/support/history_builders.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kapi::test_support::linearizability::linearizability_checker_test {
namespace {

using namespace builders;
using ::testing::HasSubstr;
using ::testing::Not;

::testing::AssertionResult linearizable(const History& history) {
  const Verdict verdict = check_history(history);
  if (verdict.linearizable()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << verdict.explanation;
}

Verdict refused(const History& history) {
  Verdict verdict = check_history(history);
  EXPECT_EQ(verdict.result, Verdict::Result::NotLinearizable) << verdict.explanation;
  return verdict;
}

TEST(LinearizabilityCheckerTest, ASequentialHistoryOfEveryVerbIsLinearizable) {
  EXPECT_TRUE(linearizable({
      get_not_found(1, "a", 0, 1),
      create(1, "a", "v1", 2, 3, Outcome::Ok, 10),
      create(2, "a", "v2", 4, 5, Outcome::AlreadyExists),
      get(2, "a", 6, 7, "v1", 10),
      update(1, "a", "v3", 10, 8, 9, Outcome::Ok, 11),
      update(2, "a", "v4", 10, 10, 11, Outcome::Conflict),
      list(3, 12, 13, 11, {{"a", {"v3", 11}}}),
      remove(1, "a", 14, 15, Outcome::Conflict, 10),
      remove(1, "a", 16, 17, Outcome::Ok, 11),
      remove(2, "a", 18, 19, Outcome::NotFound),
      update(2, "a", "v5", 11, 20, 21, Outcome::NotFound),
      list(3, 22, 23, 12, {}),
  }));
}

TEST(LinearizabilityCheckerTest, AReadConcurrentWithAWriteMaySeeEitherState) {
  for (const bool sees_new : {false, true}) {
    EXPECT_TRUE(linearizable({
        create(1, "a", "v1", 0, 1, Outcome::Ok, 10), update(1, "a", "v2", 10, 2, 8, Outcome::Ok, 11),
        sees_new ? get(2, "a", 3, 5, "v2", 11) : get(2, "a", 3, 5, "v1", 10),
        get(3, "a", 4, 6, "v1", 10),  // a read may be ordered before one that ended earlier, if they overlap
    })) << sees_new;
  }
}

TEST(LinearizabilityCheckerTest, AStaleReadAfterACompletedWriteIsNot) {
  const Verdict verdict = refused({
      create(1, "a", "v1", 0, 1, Outcome::Ok, 10),
      update(1, "a", "v2", 10, 2, 3, Outcome::Ok, 11),
      get(2, "a", 4, 5, "v1", 10),
      get(2, "a", 6, 7, "v2", 11),
  });
  EXPECT_EQ(verdict.key, "a");
  // The shortest failing prefix ends with the stale read, and names the write it missed.
  EXPECT_THAT(verdict.explanation, HasSubstr("c2 GET a → Ok v1@10"));
  EXPECT_THAT(verdict.explanation, HasSubstr("value=v2"));
  EXPECT_THAT(verdict.explanation, Not(HasSubstr("v2@11 [")));
}

TEST(LinearizabilityCheckerTest, TwoUpdatesAcceptedWithOnePreconditionAreALostUpdate) {
  const Verdict verdict = refused({
      create(1, "a", "v1", 0, 1, Outcome::Ok, 10),
      update(1, "a", "v2", 10, 2, 6, Outcome::Ok, 11),
      update(2, "a", "v3", 10, 3, 7, Outcome::Ok, 12),
  });
  EXPECT_EQ(verdict.key, "a");
}

TEST(LinearizabilityCheckerTest, AConflictNeedsADifferentCurrentResourceVersion) {
  refused({
      create(1, "a", "v1", 0, 1, Outcome::Ok, 10),
      update(1, "a", "v2", 10, 2, 3, Outcome::Conflict),
  });
  EXPECT_TRUE(linearizable({
      create(1, "a", "v1", 0, 1, Outcome::Ok, 10), update(1, "a", "v2", 10, 2, 5, Outcome::Conflict),
      update(2, "a", "v3", 10, 3, 4, Outcome::Ok, 11),  // the concurrent writer that won
  }));
}

TEST(LinearizabilityCheckerTest, AReadOfAValueNeverWrittenIsNot) {
  const Verdict verdict = refused({
      create(1, "a", "v1", 0, 1, Outcome::Ok, 10),
      get(2, "a", 2, 3, "v9", 10),
  });
  EXPECT_THAT(verdict.explanation, HasSubstr("never written"));
  // Nor a value whose write was refused.
  EXPECT_THAT(refused({
                          create(1, "a", "v1", 0, 1, Outcome::Ok, 10),
                          update(2, "a", "v2", 9, 2, 3, Outcome::Conflict),
                          get(2, "a", 4, 5, "v2", 11),
                      })
                  .explanation,
              HasSubstr("failed"));
}

TEST(LinearizabilityCheckerTest, AListMustSeeEveryKeyAtOnePointInTime) {
  // b's create was acknowledged after a's began, and the list claims b but not a, though a is older (rv 2 < 3).
  const History mixed = {
      create(1, "a", "v1", 0, 10, Outcome::Ok, 2),
      create(2, "b", "w1", 1, 11, Outcome::Ok, 3),
      list(3, 5, 40, 3, {{"b", {"w1", 3}}}),
  };
  EXPECT_EQ(refused(mixed).key, "a");
  EXPECT_TRUE(linearizable({mixed[0], mixed[1], list(3, 5, 40, 2, {{"a", {"v1", 2}}})}));
  EXPECT_TRUE(linearizable({mixed[0], mixed[1], list(3, 5, 40, 3, {{"a", {"v1", 2}}, {"b", {"w1", 3}}})}));
  // A list's revision must also lie after every write it saw and before every write it did not.
  refused({mixed[0], mixed[1], list(3, 5, 40, 2, {{"a", {"v1", 2}}, {"b", {"w1", 3}}})});
}

TEST(LinearizabilityCheckerTest, RevisionsIncreaseOverAllKeysInRealTime) {
  const Verdict verdict = refused({
      create(1, "a", "v1", 0, 1, Outcome::Ok, 5),
      create(2, "b", "w1", 2, 3, Outcome::Ok, 4),
  });
  EXPECT_THAT(verdict.explanation, HasSubstr("resourceVersion no higher"));
  refused({create(1, "a", "v1", 0, 3, Outcome::Ok, 5), create(2, "b", "w1", 1, 2, Outcome::Ok, 5)});
}

TEST(LinearizabilityCheckerTest, AnUnknownWriteMayTakeEffectLaterOrNever) {
  // Revealed by a later read, which also tells its resourceVersion.
  EXPECT_TRUE(linearizable({
      unknown(create(1, "a", "v1", 0, 1)),
      get_not_found(2, "a", 2, 3),
      get(2, "a", 4, 5, "v1", 12),
      update(2, "a", "v2", 12, 6, 7, Outcome::Ok, 13),
  }));
  // Never revealed: another create wins, and the lost one never happens.
  EXPECT_TRUE(linearizable({
      unknown(create(1, "a", "v1", 0, 1)),
      create(2, "a", "v2", 2, 3, Outcome::Ok, 10),
      get(2, "a", 4, 5, "v2", 10),
  }));
  // An unknown DELETE explains a key that vanished.
  EXPECT_TRUE(linearizable({
      create(1, "a", "v1", 0, 1, Outcome::Ok, 10),
      unknown(remove(1, "a", 2, 3)),
      get_not_found(2, "a", 20, 21),
  }));
}

TEST(LinearizabilityCheckerTest, AnUnknownWriteCannotTakeEffectBeforeItsCall) {
  refused({
      create(1, "a", "v1", 0, 1, Outcome::Ok, 10),
      get(2, "a", 2, 3, "v2", 11),
      unknown(update(1, "a", "v2", 10, 4, 5)),
  });
  // Nor at a revision older than a write that ended before it began.
  refused({
      create(1, "a", "v1", 0, 1, Outcome::Ok, 10),
      create(2, "b", "w1", 2, 3, Outcome::Ok, 11),
      unknown(update(1, "a", "v2", 10, 4, 5)),
      get(2, "a", 6, 7, "v2", 9),
  });
}

TEST(LinearizabilityCheckerTest, AnUnknownWriteReadAtTwoRevisionsIsNot) {
  EXPECT_THAT(refused({
                          unknown(create(1, "a", "v1", 0, 1)),
                          get(2, "a", 2, 3, "v1", 12),
                          get(2, "a", 4, 5, "v1", 13),
                      })
                  .explanation,
              HasSubstr("was read at resourceVersion 13"));
}

TEST(LinearizabilityCheckerTest, OneKeysFailureIsReportedForThatKey) {
  const Verdict verdict = refused({
      create(1, "a", "v1", 0, 1, Outcome::Ok, 10),
      create(1, "b", "w1", 2, 3, Outcome::Ok, 11),
      remove(1, "b", 4, 5),
      get(2, "a", 6, 7, "v1", 10),
      get(2, "b", 8, 9, "w1", 11),
  });
  EXPECT_EQ(verdict.key, "b");
  EXPECT_THAT(verdict.explanation, HasSubstr("cannot be placed before its return:\n  c2 GET b"));
}

}  // namespace
}  // namespace kapi::test_support::linearizability::linearizability_checker_test
