#pragma once
// Shuffle sharding (kube's util/shufflesharding): a flow's hash deals it a hand of `hand_size` distinct queues out
// of `deck_size`, so two heavy flows rarely share all their queues and a light flow always has a quiet one.
#include <array>
#include <cstdint>
#include <string_view>

namespace kapi::flowcontrol {

class Dealer {
 public:
  // 1 <= hand_size <= deck_size, hand_size <= 15 (what 64 bits of hash can deal fairly).
  Dealer(int deck_size, int hand_size);

  // The cards a hash deals, in the order dealt (no allocation: a request's queue is chosen on every admission).
  struct Hand {
    std::array<int, 15> cards{};
    int size = 0;
    const int* begin() const { return cards.data(); }
    const int* end() const { return cards.data() + size; }
  };
  Hand hand(std::uint64_t hash) const;
  template <typename Pick>
  void deal(std::uint64_t hash, Pick&& pick) const {
    for (int card : hand(hash)) pick(card);
  }
  int deck_size() const { return deck_size_; }
  int hand_size() const { return hand_size_; }

 private:
  int deck_size_;
  int hand_size_;
};

// The hash a flow is dealt with: its schema and its distinguisher.
std::uint64_t flow_hash(std::string_view flow_schema, std::string_view distinguisher);

}  // namespace kapi::flowcontrol
