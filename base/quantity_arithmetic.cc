// resource.Quantity as kube holds it (k8s.io/apimachinery/pkg/api/resource: quantity.go ParseQuantity, Add, Sub,
// Cmp, AsInt64, AsApproximateFloat64; amount.go's int64Amount): which values take the int64 fast path decides
// what isInteger(), asInteger() and asApproximateFloat() report in CEL, so the representation is modelled too.
#include "base/quantity.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>

namespace kapi {
namespace {

constexpr std::string_view kErrFormatWrong =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
constexpr std::string_view kErrNumeric = "unable to parse numeric part of quantity";
constexpr std::string_view kErrSuffix = "unable to parse quantity's suffix";
constexpr std::string_view kDigits = "0123456789";

// resource.maxAllowed (math.go), where ParseQuantity caps a BinarySI value.
constexpr QuantityNanos kMaxAllowedNanos = static_cast<QuantityNanos>(INT64_MAX) * kNanosPerUnit;

// Callers keep n within kMaxQuantityNanoDigits, so this never overflows.
QuantityNanos pow10(int n) {
  QuantityNanos out = 1;
  for (int i = 0; i < n; ++i) out *= 10;
  return out;
}

bool fits_int64(QuantityNanos v) { return v >= INT64_MIN && v <= INT64_MAX; }

// Go's int32 arithmetic wraps, and kube's scales (Scale, inf.Scale) are int32: a suffix such as "e-2147483648"
// reaches the wrapped value.
std::int32_t go_int32(std::int64_t value) { return static_cast<std::int32_t>(value); }

// A value beyond what kapi holds: the nearest one it holds. kube would keep the exact value (an inf.Dec, or an
// int64Amount with a large scale); kapi holds the stand-in as an inf.Dec, which is never an integer to
// AsInt64, as kube's value is not either (it is beyond an int64).
Quantity saturated(bool positive, QuantityFormat format) {
  return Quantity{positive ? kMaxQuantityNanos : -kMaxQuantityNanos, format, true, -9};
}

// The unscaled amount kube holds (nanos / 10^(scale+9)). A zero keeps whatever scale kube gave it ("0e400"),
// so only a non-zero value, whose scale + 9 stays below kMaxQuantityNanoDigits, is divided.
QuantityNanos unscaled(QuantityNanos nanos, std::int32_t scale) { return nanos == 0 ? 0 : nanos / pow10(scale + 9); }

// The parts of a quantity's text (parseQuantityString): sign, numerator without leading zeros, denominator and
// suffix, and whether kube's `value` (the numeric part as written) holds a digit, which inf.Dec needs to read it.
struct QuantityText {
  bool positive = true;
  bool value_has_digit = false;
  std::string_view num, denom, suffix;
};

std::optional<QuantityText> split_quantity(std::string_view str) {
  QuantityText out;
  std::size_t pos = 0;
  const std::size_t end = str.size();
  if (pos < end && (str[0] == '-' || str[0] == '+')) {
    out.positive = str[0] != '-';
    ++pos;
  }
  while (pos < end && str[pos] == '0') ++pos;
  if (pos >= end) {
    // kube returns value "0" here, even for "-" and "+".
    out.num = "0";
    out.value_has_digit = true;
    return out;
  }
  const std::size_t num_start = pos;
  while (pos < end && std::isdigit(static_cast<unsigned char>(str[pos]))) ++pos;
  out.num = pos == num_start ? std::string_view("0") : str.substr(num_start, pos - num_start);
  if (pos < end && str[pos] == '.') {
    const std::size_t denom_start = ++pos;
    while (pos < end && std::isdigit(static_cast<unsigned char>(str[pos]))) ++pos;
    out.denom = str.substr(denom_start, pos - denom_start);
  }
  out.value_has_digit = str.substr(0, pos).find_first_of(kDigits) != std::string_view::npos;
  if (pos >= end) return out;
  const std::size_t suffix_start = pos;
  while (pos < end && std::string_view("eEinumkKMGTP").find(str[pos]) != std::string_view::npos) ++pos;
  if (pos < end && (str[pos] == '-' || str[pos] == '+')) ++pos;
  while (pos < end && std::isdigit(static_cast<unsigned char>(str[pos]))) ++pos;
  if (pos < end) return std::nullopt;
  out.suffix = str.substr(suffix_start);
  return out;
}

struct Suffix {
  int base = 10;
  std::int32_t exponent = 0;
  QuantityFormat format = QuantityFormat::DecimalSI;
};

std::optional<Suffix> interpret_suffix(std::string_view suffix) {
  static constexpr std::pair<std::string_view, int> kDecimal[] = {
      {"n", -9}, {"u", -6}, {"m", -3}, {"", 0}, {"k", 3}, {"M", 6}, {"G", 9}, {"T", 12}, {"P", 15}, {"E", 18}};
  static constexpr std::pair<std::string_view, int> kBinary[] = {
      {"Ki", 10}, {"Mi", 20}, {"Gi", 30}, {"Ti", 40}, {"Pi", 50}, {"Ei", 60}};
  for (const auto& [name, exponent] : kDecimal)
    if (suffix == name) return Suffix{10, exponent, QuantityFormat::DecimalSI};
  for (const auto& [name, exponent] : kBinary)
    if (suffix == name) return Suffix{2, exponent, QuantityFormat::BinarySI};
  if (suffix.size() < 2 || (suffix[0] != 'e' && suffix[0] != 'E')) return std::nullopt;
  // strconv.ParseInt(suffix[1:], 10, 64), which kube then narrows with int32(parsed).
  std::string_view digits = suffix.substr(1);
  const bool negative = digits[0] == '-';
  if (digits[0] == '+' || digits[0] == '-') digits.remove_prefix(1);
  if (digits.empty()) return std::nullopt;
  const std::uint64_t limit = negative ? std::uint64_t{1} << 63 : INT64_MAX;
  std::uint64_t magnitude = 0;
  for (char c : digits) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (magnitude > (limit - digit) / 10) return std::nullopt;  // ParseInt's range error
    magnitude = magnitude * 10 + digit;
  }
  const std::uint64_t bits = negative ? 0 - magnitude : magnitude;
  return Suffix{10, static_cast<std::int32_t>(static_cast<std::uint32_t>(bits)), QuantityFormat::DecimalExponent};
}

// ParseQuantity's fast path: the value as an int64Amount, when its digits fit and its scale is at least nano;
// std::nullopt sends the value to the inf.Dec path.
std::optional<Quantity> parse_fast(const QuantityText& text, const Suffix& suffix) {
  std::int32_t scale = 0;
  std::int64_t mantissa = 1;
  int precision = 0;
  if (suffix.base == 10) {
    scale = suffix.exponent;
    precision = 18 - static_cast<int>(text.num.size() + text.denom.size());
  } else if (text.denom.empty()) {
    mantissa = std::int64_t{1} << suffix.exponent;
    const int binary_digits = static_cast<int>(static_cast<float>(suffix.exponent) * 3 / 10);
    precision = 15 - static_cast<int>(text.num.size()) - binary_digits - 1;
  } else {
    return std::nullopt;
  }
  if (precision < 0) return std::nullopt;
  scale = go_int32(std::int64_t{scale} - static_cast<std::int64_t>(text.denom.size()));
  if (scale < -9) return std::nullopt;
  // At most 18 digits (precision), so this and the product below fit.
  QuantityNanos value = 0;
  for (char c : text.num) value = value * 10 + (c - '0');
  for (char c : text.denom) value = value * 10 + (c - '0');
  value *= mantissa;
  if (!fits_int64(value)) return std::nullopt;
  if (!text.positive) value = -value;
  Quantity q{0, suffix.format, false, scale};
  if (value == 0) return q;
  int value_digits = 0;
  for (QuantityNanos rest = value; rest != 0; rest /= 10) ++value_digits;
  const std::int64_t shift = std::int64_t{scale} + 9;
  if (value_digits + shift > kMaxQuantityNanoDigits) return saturated(text.positive, suffix.format);
  q.nanos = value * pow10(static_cast<int>(shift));
  return q;
}

// The decimal digits of `digits` × 2^exponent (exponent ≤ 60) in one pass from the last digit: a digit times 2^60
// plus a carry below 2^60 stays below 10 · 2^60, within 64 bits.
std::string times_power_of_two(std::string_view digits, int exponent) {
  const std::uint64_t factor = std::uint64_t{1} << exponent;
  std::string low(digits.size(), '0');
  std::uint64_t carry = 0;
  for (std::size_t i = digits.size(); i-- > 0;) {
    const std::uint64_t product = static_cast<std::uint64_t>(digits[i] - '0') * factor + carry;
    low[i] = static_cast<char>('0' + product % 10);
    carry = product / 10;
  }
  std::string high;
  for (; carry != 0; carry /= 10) high.insert(high.begin(), static_cast<char>('0' + carry % 10));
  return high + low;
}

// ParseQuantity's inf.Dec path: the exact value rounded up to a nano (inf.RoundUp), a BinarySI value capped at
// maxAllowed, a decimal one kept whatever its size (kube caps only BinarySI), so beyond kapi's range saturated.
// std::nullopt is kube's ErrNumeric: inf.Dec reads no number without a digit (".Ei", "-Pi", "e-10").
std::optional<Quantity> parse_exact(const QuantityText& text, const Suffix& suffix) {
  if (!text.value_has_digit) return std::nullopt;
  std::string digits(text.num);
  digits += text.denom;
  digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size()));
  Quantity q{0, suffix.format, true, -9};
  if (digits.empty()) {
    q.scale = 0;
    return q;
  }
  // SetString gives the inf.Dec the scale len(denom); a decimal suffix adds Scale(exponent).infScale() (its
  // negation), both in wrapping int32. The value in nanos is then digits × 10^(9 - inf_scale).
  const std::int32_t denom_scale = go_int32(static_cast<std::int64_t>(text.denom.size()));
  std::int32_t inf_scale = denom_scale;
  if (suffix.base == 10) inf_scale = go_int32(std::int64_t{denom_scale} + go_int32(-std::int64_t{suffix.exponent}));
  else digits = times_power_of_two(digits, suffix.exponent);
  const std::int64_t power_of_ten = 9 - std::int64_t{inf_scale};

  const std::int64_t whole_digits = static_cast<std::int64_t>(digits.size()) + power_of_ten;
  bool beyond = whole_digits > kMaxQuantityNanoDigits;
  QuantityNanos magnitude = 0;
  if (!beyond) {
    const auto kept = static_cast<std::size_t>(std::clamp<std::int64_t>(whole_digits, 0, digits.size()));
    for (std::size_t i = 0; i < kept; ++i) magnitude = magnitude * 10 + (digits[i] - '0');
    if (power_of_ten > 0) magnitude *= pow10(static_cast<int>(power_of_ten));
    if (digits.find_first_not_of('0', kept) != std::string::npos) magnitude += 1;  // inf.RoundUp
    beyond = magnitude > kMaxQuantityNanos;
  }
  if (q.format == QuantityFormat::BinarySI && (beyond || magnitude > kMaxAllowedNanos)) {
    magnitude = kMaxAllowedNanos;  // amount.Set(maxAllowed.Dec): scale 0
    q.scale = 0;
  } else if (beyond) {
    return saturated(text.positive, q.format);
  }
  if (q.format == QuantityFormat::BinarySI && magnitude < kNanosPerUnit) q.format = QuantityFormat::DecimalSI;
  q.nanos = text.positive ? magnitude : -magnitude;
  return q;
}

// int64Amount.Add: the sum at the smaller scale, or std::nullopt when a step overflows an int64.
std::optional<std::pair<std::int64_t, std::int32_t>> add_int64_amounts(std::int64_t a, std::int32_t a_scale,
                                                                      std::int64_t b, std::int32_t b_scale) {
  if (b == 0) return std::pair{a, a_scale};
  if (a == 0) return std::pair{b, b_scale};
  const std::int32_t scale = std::min(a_scale, b_scale);
  QuantityNanos x = a, y = b;
  for (std::int32_t i = scale; i < a_scale; ++i) {
    x *= 10;
    if (!fits_int64(x)) return std::nullopt;
  }
  for (std::int32_t i = scale; i < b_scale; ++i) {
    y *= 10;
    if (!fits_int64(y)) return std::nullopt;
  }
  const QuantityNanos sum = x + y;
  if (!fits_int64(sum)) return std::nullopt;
  return std::pair{static_cast<std::int64_t>(sum), scale};
}

// Quantity.Add and Sub share the arithmetic: `other_nanos` is what is added (negated for Sub).
void combine(Quantity& q, const Quantity& other, QuantityNanos other_nanos) {
  QuantityNanos sum = 0;
  const bool overflow = __builtin_add_overflow(q.nanos, other_nanos, &sum);
  if (overflow || sum > kMaxQuantityNanos || sum < -kMaxQuantityNanos) {
    // kube's inf.Dec holds any sum, and its int64Amount may hold this one at a large scale; kapi cannot.
    q = saturated(overflow ? q.nanos > 0 : sum > 0, q.format);
    return;
  }
  if (!q.held_as_dec && !other.held_as_dec) {
    const auto q_unscaled = static_cast<std::int64_t>(unscaled(q.nanos, q.scale));
    const auto other_unscaled = static_cast<std::int64_t>(unscaled(other_nanos, other.scale));
    if (auto int64_sum = add_int64_amounts(q_unscaled, q.scale, other_unscaled, other.scale)) {
      q.nanos = sum;
      q.scale = int64_sum->second;
      return;
    }
  }
  q.nanos = sum;
  q.held_as_dec = true;
  q.scale = std::min(q.scale, other.scale);
}

// math.Pow10, whose table-driven result the float conversion multiplies by.
double go_pow10(int n) {
  static constexpr std::array<double, 32> kPow10 = {
      1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
      1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22, 1e23, 1e24, 1e25, 1e26, 1e27, 1e28, 1e29, 1e30, 1e31};
  static constexpr std::array<double, 10> kPow10Pos32 = {1e0,   1e32,  1e64,  1e96,  1e128,
                                                         1e160, 1e192, 1e224, 1e256, 1e288};
  static constexpr std::array<double, 11> kPow10Neg32 = {1e-0,   1e-32,  1e-64,  1e-96,  1e-128, 1e-160,
                                                         1e-192, 1e-224, 1e-256, 1e-288, 1e-320};
  if (n >= 0 && n <= 308) return kPow10Pos32[n / 32] * kPow10[n % 32];
  if (n < 0 && n >= -323) return kPow10Neg32[-n / 32] / kPow10[-n % 32];
  return n > 0 ? std::numeric_limits<double>::infinity() : 0.0;
}

}  // namespace

std::variant<Quantity, QuantityParseError> parse_go_quantity(std::string_view text) {
  if (text.empty()) return QuantityParseError{std::string(kErrFormatWrong)};
  if (text == "0") return Quantity{0, QuantityFormat::DecimalSI, false, 0};
  const std::optional<QuantityText> parts = split_quantity(text);
  if (!parts) return QuantityParseError{std::string(kErrFormatWrong)};
  const std::optional<Suffix> suffix = interpret_suffix(parts->suffix);
  if (!suffix) return QuantityParseError{std::string(kErrSuffix)};
  if (auto fast = parse_fast(*parts, *suffix)) return *fast;
  if (auto exact = parse_exact(*parts, *suffix)) return *exact;
  return QuantityParseError{std::string(kErrNumeric)};
}

Quantity quantity_from_int64(std::int64_t value) {
  return Quantity{static_cast<QuantityNanos>(value) * kNanosPerUnit, QuantityFormat::DecimalExponent, false, 0};
}

void Quantity::add(const Quantity& other) {
  if (nanos == 0) format = other.format;
  combine(*this, other, other.nanos);
}

void Quantity::sub(const Quantity& other) {
  if (nanos == 0) format = other.format;
  combine(*this, other, -other.nanos);
}

int Quantity::cmp(const Quantity& other) const { return nanos < other.nanos ? -1 : nanos > other.nanos ? 1 : 0; }

int Quantity::sign() const { return nanos < 0 ? -1 : nanos > 0 ? 1 : 0; }

std::optional<std::int64_t> Quantity::as_int64() const {
  if (held_as_dec) return std::nullopt;
  if (scale < 0) {
    // negativeScaleInt64: a fraction rounds away from zero.
    const auto divisor = static_cast<std::int64_t>(pow10(-scale));
    const auto whole_unscaled = static_cast<std::int64_t>(unscaled(nanos, scale));
    std::int64_t whole = whole_unscaled / divisor;
    if (whole_unscaled % divisor != 0) whole += whole_unscaled > 0 ? 1 : -1;
    return whole;
  }
  const QuantityNanos whole = nanos / kNanosPerUnit;
  if (!fits_int64(whole)) return std::nullopt;
  return static_cast<std::int64_t>(whole);
}

double Quantity::as_approximate_float64() const {
  // A zero at a huge scale gives 0 · +Inf = NaN, as kube's does.
  const double base = static_cast<double>(unscaled(nanos, scale));
  if (scale == 0) return base;
  return base * go_pow10(scale);
}

}  // namespace kapi
