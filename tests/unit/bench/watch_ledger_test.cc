#include "bench/load/watch_ledger.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kapi::bench::watch_ledger_test {
namespace {

// A watch event line as kapi writes one for an object stamped by run `key`.
std::string event_line(std::string_view key, std::uint64_t sequence, std::int64_t sent) {
  return R"({"type":"ADDED","object":{"kind":"ConfigMap","data":{")" + std::string(key) + R"(":")" +
         std::to_string(sequence) + "," + std::to_string(sent) + R"(","payload":"xx"}}})" + "\n";
}

class WatchLedgerTest : public ::testing::Test {
 protected:
  WatchLedger ledger{"kapi-bench-7"};
  std::vector<StampedEvent> firsts;

  void feed(std::string_view piece) {
    ledger.feed(piece, [this](const StampedEvent& event) { firsts.push_back(event); });
  }
};

TEST_F(WatchLedgerTest, ReadsEachStampOnceWithItsSendTime) {
  feed(event_line("kapi-bench-7", 0, 1000) + event_line("kapi-bench-7", 1, 2000));
  ASSERT_EQ(firsts.size(), 2u);
  EXPECT_EQ(firsts[0].sequence, 0u);
  EXPECT_EQ(firsts[0].sent_nanos, 1000);
  EXPECT_EQ(firsts[1].sequence, 1u);
  EXPECT_EQ(firsts[1].sent_nanos, 2000);
  EXPECT_EQ(ledger.delivered(), 2u);
  EXPECT_EQ(ledger.duplicates(), 0u);
}

TEST_F(WatchLedgerTest, ALineSplitAcrossReadsIsReadWhenItsEndArrives) {
  const std::string line = event_line("kapi-bench-7", 5, 42);
  feed(line.substr(0, 30));
  feed(line.substr(30, 40));
  EXPECT_TRUE(firsts.empty()) << "nothing read before the line is complete";
  feed(line.substr(70));
  ASSERT_EQ(firsts.size(), 1u);
  EXPECT_EQ(firsts[0].sequence, 5u);
  EXPECT_EQ(firsts[0].sent_nanos, 42);
}

TEST_F(WatchLedgerTest, AnEventSeenTwiceIsADuplicateNotADelivery) {
  feed(event_line("kapi-bench-7", 3, 1) + event_line("kapi-bench-7", 3, 1));
  EXPECT_EQ(firsts.size(), 1u);
  EXPECT_EQ(ledger.delivered(), 1u);
  EXPECT_EQ(ledger.duplicates(), 1u);
}

TEST_F(WatchLedgerTest, LinesOfOtherRunsAndBookmarksAreSkipped) {
  feed(event_line("kapi-bench-8", 0, 1));
  feed(R"({"type":"BOOKMARK","object":{"kind":"ConfigMap","metadata":{"resourceVersion":"12"}}})" "\n");
  feed(R"({"data":{"kapi-bench-7":"not-a-number"}})" "\n");
  feed(R"({"data":{"kapi-bench-7":"4;5"}})" "\n");
  EXPECT_TRUE(firsts.empty());
  EXPECT_EQ(ledger.delivered(), 0u);
}

TEST_F(WatchLedgerTest, MissingCountsAcknowledgedWritesNeverReceived) {
  feed(event_line("kapi-bench-7", 0, 1) + event_line("kapi-bench-7", 2, 1) + event_line("kapi-bench-7", 5000, 1));
  // Writes 0-3 acknowledged, 4 not (the server refused it): 1 and 3 are missing; 5000 was never acknowledged.
  const std::vector<std::uint8_t> acknowledged{1, 1, 1, 1, 0};
  EXPECT_EQ(ledger.missing(acknowledged), 2u);
  EXPECT_TRUE(ledger.seen(5000));
  EXPECT_FALSE(ledger.seen(1));
  EXPECT_FALSE(ledger.seen(1'000'000));
}

}  // namespace
}  // namespace kapi::bench::watch_ledger_test
