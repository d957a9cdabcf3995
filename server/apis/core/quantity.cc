#include "server/apis/core/quantity.h"

#include <cctype>
#include <string>
#include <utility>

namespace kapi::apis::core {
namespace {

// Far beyond any real quantity (kube's own bound is 2^63-1 units); keeps every product below overflow.
constexpr Nanos kLimit = static_cast<Nanos>(1) << 120;

// The suffix's power of ten and power of two: "Ki" → (0, 10), "m" → (-3, 0), "e3" → (3, 0).
std::optional<std::pair<int, int>> suffix_exponents(std::string_view suffix) {
  if (suffix.empty()) return std::pair{0, 0};
  static const std::pair<std::string_view, std::pair<int, int>> kSuffixes[] = {
      {"Ki", {0, 10}}, {"Mi", {0, 20}}, {"Gi", {0, 30}}, {"Ti", {0, 40}}, {"Pi", {0, 50}}, {"Ei", {0, 60}},
      {"n", {-9, 0}},  {"u", {-6, 0}},  {"m", {-3, 0}},  {"k", {3, 0}},   {"M", {6, 0}},   {"G", {9, 0}},
      {"T", {12, 0}},  {"P", {15, 0}},  {"E", {18, 0}}};
  for (const auto& [name, exponents] : kSuffixes)
    if (suffix == name) return exponents;
  if (suffix[0] != 'e' && suffix[0] != 'E') return std::nullopt;
  std::string_view digits = suffix.substr(1);
  bool negative = false;
  if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
    negative = digits[0] == '-';
    digits.remove_prefix(1);
  }
  if (digits.empty() || digits.size() > 3) return std::nullopt;
  int exponent = 0;
  for (char c : digits) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    exponent = exponent * 10 + (c - '0');
  }
  return std::pair{negative ? -exponent : exponent, 0};
}

}  // namespace

std::optional<Nanos> parse_quantity(std::string_view text) {
  bool negative = false;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  std::size_t end = 0;
  std::string digits;
  int fraction_digits = 0;
  bool seen_point = false;
  for (; end < text.size(); ++end) {
    const char c = text[end];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      digits += c;
      if (seen_point) ++fraction_digits;
    } else if (c == '.' && !seen_point) {
      seen_point = true;
    } else {
      break;
    }
  }
  if (digits.empty()) return std::nullopt;
  auto exponents = suffix_exponents(text.substr(end));
  if (!exponents) return std::nullopt;
  const int power_of_ten = exponents->first - fraction_digits + 9;
  const int power_of_two = exponents->second;

  // Leading zeros carry nothing; a long mantissa would overflow before the exponents shrink it.
  const auto first = digits.find_first_not_of('0');
  if (first == std::string::npos) return Nanos{0};
  digits.erase(0, first);
  if (digits.size() > 30) return std::nullopt;
  Nanos value = 0;
  for (char c : digits) value = value * 10 + (c - '0');
  for (int i = 0; i < power_of_two; ++i) {
    value *= 2;
    if (value > kLimit) return std::nullopt;
  }
  if (power_of_ten >= 0) {
    for (int i = 0; i < power_of_ten; ++i) {
      value *= 10;
      if (value > kLimit) return std::nullopt;
    }
  } else {
    Nanos divisor = 1;
    for (int i = 0; i < -power_of_ten && divisor <= kLimit; ++i) divisor *= 10;
    value = (value + divisor - 1) / divisor;
  }
  return negative ? -value : value;
}

}  // namespace kapi::apis::core
