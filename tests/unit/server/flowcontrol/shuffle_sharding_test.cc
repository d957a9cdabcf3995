#include "server/flowcontrol/shuffle_sharding.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

namespace kapi::flowcontrol::shuffle_sharding_test {
namespace {

std::vector<int> hand(const Dealer& dealer, std::uint64_t hash) {
  std::vector<int> cards;
  dealer.deal(hash, [&cards](int card) { cards.push_back(card); });
  return cards;
}

TEST(ShuffleShardingTest, DealsDistinctCardsOfTheDeck) {
  for (int deck = 1; deck <= 9; ++deck)
    for (int hand_size = 1; hand_size <= std::min(deck, 5); ++hand_size) {
      Dealer dealer(deck, hand_size);
      for (std::uint64_t hash = 0; hash < 2000; ++hash) {
        std::vector<int> cards = hand(dealer, hash * 0x9e3779b97f4a7c15ull);
        ASSERT_EQ(cards.size(), static_cast<std::size_t>(hand_size));
        std::set<int> distinct(cards.begin(), cards.end());
        EXPECT_EQ(distinct.size(), cards.size()) << "deck " << deck << " hand " << hand_size << " hash " << hash;
        for (int card : cards) {
          EXPECT_GE(card, 0);
          EXPECT_LT(card, deck);
        }
      }
    }
}

TEST(ShuffleShardingTest, SpreadsFlowsEvenlyOverTheQueues) {
  Dealer dealer(8, 2);
  std::vector<int> counts(8);
  for (int flow = 0; flow < 8000; ++flow)
    dealer.deal(flow_hash("service-accounts", "user-" + std::to_string(flow)), [&counts](int card) { ++counts[card]; });
  for (int count : counts) {
    EXPECT_GT(count, 1600);  // 2000 expected per queue
    EXPECT_LT(count, 2400);
  }
}

TEST(ShuffleShardingTest, TheSameFlowGetsTheSameHand) {
  Dealer dealer(64, 6);
  EXPECT_EQ(hand(dealer, flow_hash("global-default", "jane")), hand(dealer, flow_hash("global-default", "jane")));
  EXPECT_NE(hand(dealer, flow_hash("global-default", "jane")), hand(dealer, flow_hash("global-default", "john")));
  EXPECT_NE(flow_hash("a", "bc"), flow_hash("ab", "c"));
}

TEST(ShuffleShardingTest, ClampsTheHandToTheDeck) {
  Dealer dealer(3, 8);
  EXPECT_EQ(dealer.hand_size(), 3);
  EXPECT_EQ(hand(dealer, 12345).size(), 3u);
}

}  // namespace
}  // namespace kapi::flowcontrol::shuffle_sharding_test
