#include "server/flowcontrol/shuffle_sharding.h"

#include <algorithm>
#include <array>

namespace kapi::flowcontrol {

Dealer::Dealer(int deck_size, int hand_size)
    : deck_size_(std::max(1, deck_size)), hand_size_(std::clamp(hand_size, 1, std::min(15, std::max(1, deck_size)))) {}

Dealer::Hand Dealer::hand(std::uint64_t hash) const {
  // The hash read as a number in a mixed radix (deck, deck-1, ...): each digit picks among the cards not yet dealt.
  std::array<int, 15> remainders{};
  for (int i = 0; i < hand_size_; ++i) {
    const auto radix = static_cast<std::uint64_t>(deck_size_ - i);
    remainders[i] = static_cast<int>(hash % radix);
    hash /= radix;
  }
  Hand dealt;
  for (int i = 0; i < hand_size_; ++i) {
    int card = remainders[i];
    for (int j = i; j > 0; --j)
      if (card >= remainders[j - 1]) ++card;
    dealt.cards[dealt.size++] = card;
  }
  return dealt;
}

std::uint64_t flow_hash(std::string_view flow_schema, std::string_view distinguisher) {
  // FNV-1a over "schema\0distinguisher", then a 64-bit finalizer so that nearby names spread over all digits.
  std::uint64_t hash = 14695981039346656037ull;
  auto mix = [&hash](std::string_view bytes) {
    for (unsigned char byte : bytes) hash = (hash ^ byte) * 1099511628211ull;
  };
  mix(flow_schema);
  mix(std::string_view("\0", 1));
  mix(distinguisher);
  hash ^= hash >> 33;
  hash *= 0xff51afd7ed558ccdull;
  hash ^= hash >> 33;
  hash *= 0xc4ceb9fe1a85ec53ull;
  hash ^= hash >> 33;
  return hash;
}

}  // namespace kapi::flowcontrol
