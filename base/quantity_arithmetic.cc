// resource.Quantity as kube holds it (k8s.io/apimachinery/pkg/api/resource: quantity.go ParseQuantity, Add, Sub,
// Cmp, AsInt64, AsApproximateFloat64; amount.go's int64Amount): which values take the int64 fast path decides
// what isInteger(), asInteger() and asApproximateFloat() report in CEL, so the representation is modelled too.
#include "base/quantity.h"

#include <array>
#include <cmath>
#include <limits>

namespace kapi {
namespace {

constexpr std::string_view kErrFormatWrong =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
constexpr std::string_view kErrNumeric = "unable to parse numeric part of quantity";
constexpr std::string_view kErrSuffix = "unable to parse quantity's suffix";

constexpr QuantityNanos kMaxAllowedNanos = static_cast<QuantityNanos>(INT64_MAX) * kNanosPerUnit;
// Values kapi can hold exactly in nanos (kube's int64Amount reaches further: see parse_go_quantity's deviation).
constexpr int kMaxNanoDigits = 38;

QuantityNanos pow10(int n) {
  QuantityNanos out = 1;
  for (int i = 0; i < n; ++i) out *= 10;
  return out;
}

bool fits_int64(QuantityNanos v) { return v >= INT64_MIN && v <= INT64_MAX; }

// The parts of a quantity's text (parseQuantityString): sign, numerator without leading zeros, denominator, the
// numeric part as written and the suffix.
struct QuantityText {
  bool positive = true;
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
    out.num = "0";
    return out;
  }
  const std::size_t num_start = pos;
  while (pos < end && std::isdigit(static_cast<unsigned char>(str[pos]))) ++pos;
  out.num = pos == num_start ? std::string_view("0") : str.substr(num_start, pos - num_start);
  if (pos >= end) return out;
  if (str[pos] == '.') {
    const std::size_t denom_start = ++pos;
    while (pos < end && std::isdigit(static_cast<unsigned char>(str[pos]))) ++pos;
    out.denom = str.substr(denom_start, pos - denom_start);
    if (pos >= end) return out;
  }
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
  int exponent = 0;
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
  if (suffix.size() > 1 && (suffix[0] == 'e' || suffix[0] == 'E')) {
    std::string_view digits = suffix.substr(1);
    bool negative = false;
    if (digits[0] == '+' || digits[0] == '-') {
      negative = digits[0] == '-';
      digits.remove_prefix(1);
    }
    if (digits.empty() || digits.size() > 9) return std::nullopt;
    int exponent = 0;
    for (char c : digits) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
      exponent = exponent * 10 + (c - '0');
    }
    return Suffix{10, negative ? -exponent : exponent, QuantityFormat::DecimalExponent};
  }
  return std::nullopt;
}

// ParseQuantity's fast path: the value as an int64Amount, when its digits fit and its scale is at least nano.
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
  scale -= static_cast<std::int32_t>(text.denom.size());
  if (scale < -9) return std::nullopt;
  QuantityNanos value = 0;
  for (char c : text.num) value = value * 10 + (c - '0');
  for (char c : text.denom) value = value * 10 + (c - '0');
  value *= mantissa;
  if (!fits_int64(value)) return std::nullopt;
  if (!text.positive) value = -value;
  Quantity q{0, suffix.format, false, scale};
  const int shift = scale + 9;
  int value_digits = 0;
  for (QuantityNanos rest = value; rest != 0; rest /= 10) ++value_digits;
  if (value_digits + shift > kMaxNanoDigits) return std::nullopt;
  q.nanos = value * pow10(shift);
  return q;
}

// The slow path: exact decimal arithmetic, rounded up to a nano, capped at 2^63-1 units.
std::optional<Quantity> parse_exact(const QuantityText& text, const Suffix& suffix) {
  std::string digits(text.num);
  digits += text.denom;
  const auto first = digits.find_first_not_of('0');
  digits = first == std::string::npos ? "" : digits.substr(first);
  Quantity q{0, suffix.format, true, -9};
  if (digits.empty()) {
    q.scale = 0;
    return q;
  }
  const int power_of_ten = (suffix.base == 10 ? suffix.exponent : 0) - static_cast<int>(text.denom.size()) + 9;
  const int whole_digits = static_cast<int>(digits.size()) + power_of_ten;  // digits of the value in nanos
  bool capped = whole_digits > kMaxNanoDigits;
  QuantityNanos magnitude = 0;
  if (!capped && whole_digits > 0) {
    const std::size_t kept = static_cast<std::size_t>(std::min<int>(whole_digits, static_cast<int>(digits.size())));
    for (std::size_t i = 0; i < kept; ++i) magnitude = magnitude * 10 + (digits[i] - '0');
    if (power_of_ten > 0) magnitude *= pow10(power_of_ten);
    if (digits.find_first_not_of('0', kept) != std::string::npos) magnitude += 1;  // inf.RoundUp
  } else if (!capped) {
    magnitude = 1;  // below a nano: rounds up to one
  }
  if (suffix.base == 2) {
    for (int i = 0; i < suffix.exponent && !capped; ++i) {
      magnitude *= 2;
      capped = magnitude > kMaxAllowedNanos;
    }
  }
  if (capped || magnitude > kMaxAllowedNanos) {
    magnitude = kMaxAllowedNanos;
    q.scale = 0;
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

std::int64_t unscaled_int64(const Quantity& q) { return static_cast<std::int64_t>(q.nanos / pow10(q.scale + 9)); }

// Quantity.Add and Sub share the arithmetic: `other_nanos` is what is added (negated for Sub).
void combine(Quantity& q, const Quantity& other, QuantityNanos other_nanos) {
  if (!q.held_as_dec && !other.held_as_dec) {
    const std::int64_t other_unscaled = static_cast<std::int64_t>(other_nanos / pow10(other.scale + 9));
    if (auto sum = add_int64_amounts(unscaled_int64(q), q.scale, other_unscaled, other.scale)) {
      q.nanos += other_nanos;
      q.scale = sum->second;
      return;
    }
  }
  q.nanos += other_nanos;
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
    const QuantityNanos divisor = pow10(-scale);
    const std::int64_t unscaled = unscaled_int64(*this);
    std::int64_t whole = unscaled / static_cast<std::int64_t>(divisor);
    if (unscaled % static_cast<std::int64_t>(divisor) != 0) whole += unscaled > 0 ? 1 : -1;
    return whole;
  }
  const QuantityNanos whole = nanos / kNanosPerUnit;
  if (!fits_int64(whole)) return std::nullopt;
  return static_cast<std::int64_t>(whole);
}

double Quantity::as_approximate_float64() const {
  const double base = static_cast<double>(nanos / pow10(scale + 9));
  if (scale == 0) return base;
  return base * go_pow10(scale);
}

}  // namespace kapi
