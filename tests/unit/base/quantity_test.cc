// resource.Quantity's reading, printing and sums (base/quantity.h) against kube's own answers: the expectations
// name k8s.io/apimachinery/pkg/api/resource (quantity.go, quantity_test.go) where kube's tests pin them.
#include "base/quantity.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace kapi::quantity_test {
namespace {

// resource.maxAllowed: 2^63-1 units, where ParseQuantity caps a BinarySI value.
constexpr QuantityNanos kMaxAllowed = static_cast<QuantityNanos>(INT64_MAX) * kNanosPerUnit;

Quantity go(std::string_view text) {
  auto parsed = parse_go_quantity(text);
  const auto* quantity = std::get_if<Quantity>(&parsed);
  EXPECT_NE(quantity, nullptr) << text;
  return quantity ? *quantity : Quantity{};
}

std::string go_error(std::string_view text) {
  auto parsed = parse_go_quantity(text);
  const auto* error = std::get_if<QuantityParseError>(&parsed);
  return error ? error->message : "(parsed)";
}

std::string printed(std::string_view text) { return go(text).to_string(); }

// kube's canonical-form invariant: String() reads back to the same value and the same String().
void expect_round_trip(std::string_view text) {
  const std::optional<Quantity> first = parse_resource_quantity(text);
  ASSERT_TRUE(first) << text;
  const std::string once = first->to_string();
  const std::optional<Quantity> second = parse_resource_quantity(once);
  ASSERT_TRUE(second) << text << " printed as " << once;
  EXPECT_TRUE(second->nanos == first->nanos) << text << " printed as " << once;
  EXPECT_EQ(second->to_string(), once) << text;
}

TEST(QuantityTest, BinarySiIsCappedAtMaxAllowedAndPrintsAsKubeDoes) {
  // quantity.go ParseQuantity: `if format == BinarySI && amount.Cmp(maxAllowed.Dec) > 0 { amount.Set(maxAllowed.Dec) }`;
  // quantity_test.go TestQuantityParse: "9Ei" and "9223372036854775807Ki" parse to maxAllowed.
  EXPECT_TRUE(go("9Ei").nanos == kMaxAllowed);
  EXPECT_TRUE(go("9223372036854775807Ki").nanos == kMaxAllowed);
  // The fuzzer's findings: kube caps them and String() writes the cap (odd, so no binary suffix), which reads back.
  for (std::string_view text : {"00000007370000000051615.59000000009Gi", "99999999999999999999.9999999999Mi"}) {
    const std::optional<Quantity> q = parse_resource_quantity(text);
    ASSERT_TRUE(q) << text;
    EXPECT_TRUE(q->nanos == kMaxAllowed) << text;
    EXPECT_EQ(q->to_string(), "9223372036854775807") << text;
    expect_round_trip(text);
  }
  EXPECT_EQ(printed("-99999999999999999999.9999999999Mi"), "-9223372036854775807");
}

TEST(QuantityTest, DecimalValuesAreNotCappedAndHaveNoDigitLimit) {
  // quantity_test.go TestParseQuantity ("9223372036854775808", "10000000000000000000" canonical "10E"): decimal
  // values past 2^63-1 stay exact. These all take the inf.Dec path, so kube's String() is the canonical form.
  EXPECT_EQ(printed("9223372036854775808"), "9223372036854775808");
  EXPECT_EQ(printed("9223372036854775808.1"), "9223372036854775808100m");
  EXPECT_EQ(printed("10000000000000000000"), "10E");
  EXPECT_EQ(printed("10.0000000000000000001E"), "10000000000000000000100m");
  EXPECT_EQ(printed("99999999999999999999"), "99999999999999999999");
  // inf.Dec reads any number of digits; what is finer than a nano rounds up (inf.RoundUp).
  EXPECT_TRUE(go("0000000000000000000000000000000000000000001").nanos == kNanosPerUnit);
  EXPECT_EQ(printed("0.000000000000000000000000000000000000000000000001"), "1n");
  EXPECT_EQ(printed("1.000000000000000000000000000000000000000000000001"), "1000000001n");
  for (std::string_view text : {"9223372036854775808", "99999999999999999999.5", "123456789012345678901234567",
                                "1.000000000000000000000000000000000000000000000001", "1e20", "1000E", "1e-9"})
    expect_round_trip(text);
}

TEST(QuantityTest, FractionalBinaryValuesRoundUpAfterScaling) {
  // quantity_test.go TestQuantityParse "things written by trolls": 0.000000000001Ki is 2n (1.024n rounded up),
  // and DecimalSI for being below one.
  const Quantity tiny = go("0.000000000001Ki");
  EXPECT_TRUE(tiny.nanos == 2);
  EXPECT_EQ(tiny.format, QuantityFormat::DecimalSI);
  EXPECT_TRUE(go("100.035Ki").nanos == static_cast<QuantityNanos>(10243584) * 10'000'000);  // 102435.84
  EXPECT_TRUE(go("0.05Gi").nanos == static_cast<QuantityNanos>(536870912) * 100'000'000);   // 53687091.2
}

TEST(QuantityTest, OversizedBinaryValuesAreCappedNotOverflowed) {
  // The fuzzer's signed __int128 overflow: kube caps this BinarySI value at maxAllowed (held as inf.Dec, scale 0).
  const Quantity q = go("85477518446744073709551616808Ki");
  EXPECT_TRUE(q.nanos == kMaxAllowed);
  EXPECT_EQ(q.format, QuantityFormat::BinarySI);
  EXPECT_TRUE(q.held_as_dec);
  EXPECT_EQ(q.scale, 0);
  EXPECT_EQ(q.to_string(), "9223372036854775807");
  EXPECT_EQ(q.as_int64(), std::nullopt);  // AsInt64 is false for an inf.Dec
  EXPECT_TRUE(go("-85477518446744073709551616808Ki").nanos == -kMaxAllowed);
}

TEST(QuantityTest, DecimalValuesBeyondKapiRangeSaturate) {
  // kube keeps "1e40" as int64Amount{1, 40} and a long decimal as an inf.Dec; kapi holds neither and saturates
  // (base/quantity.h), so String() differs from kube's "1e40" while the value still reads back.
  const Quantity huge = go("1e40");
  EXPECT_TRUE(huge.nanos == kMaxQuantityNanos);
  EXPECT_EQ(huge.as_int64(), std::nullopt);  // kube: positiveScaleInt64(1, 40) overflows, so false too
  EXPECT_TRUE(go("-1e40").nanos == -kMaxQuantityNanos);
  EXPECT_TRUE(go("9999999999999999999999999999999999999G").nanos == kMaxQuantityNanos);
  EXPECT_TRUE(go("1e26").nanos == static_cast<QuantityNanos>(1'000'000'000'000'000'000) * 100'000'000'000'000'000);
  expect_round_trip("1e40");
  expect_round_trip("-1e40");
}

TEST(QuantityTest, SumsBeyondKapiRangeSaturateWithoutOverflow) {
  // The fuzzer's input: 999999999999999999e11 + itself. kube's int64Amount adds it exactly
  // (int64Amount{1999999999999999998, 11}, String() "199999999999999999800e9"); the operand is already past
  // kapi's range, so it and the sum saturate.
  Quantity sum = go("999999999999999999e11");
  sum.add(go("999999999999999999e11"));
  EXPECT_TRUE(sum.nanos == kMaxQuantityNanos);
  // Operands kapi holds exactly, whose sum it cannot: kube's answer is int64Amount{1999999999999999998, 9},
  // "1999999999999999998e9"; kapi's saturates, is no integer (nor is kube's: it is past an int64) and reads back.
  const Quantity operand = go("999999999999999999e9");
  EXPECT_TRUE(operand.nanos == static_cast<QuantityNanos>(999'999'999'999'999'999) * 1'000'000'000'000'000'000);
  Quantity doubled = operand;
  doubled.add(operand);
  EXPECT_TRUE(doubled.nanos == kMaxQuantityNanos);
  EXPECT_EQ(doubled.as_int64(), std::nullopt);
  EXPECT_TRUE(go(doubled.to_string()).nanos == kMaxQuantityNanos);
  Quantity negative = go("-999999999999999999e9");
  negative.sub(operand);
  EXPECT_TRUE(negative.nanos == -kMaxQuantityNanos);
  Quantity difference = operand;
  difference.sub(operand);
  EXPECT_EQ(difference.sign(), 0);
}

TEST(QuantityTest, SignsAndPointsAloneAreZeroAsKubeReadsThem) {
  // quantity.go parseQuantityString returns num "0" for ".", "-" and "+" (quantity_test.go TestParseQuantityString:
  // {".", true, ".", "0", "", ""}), which the int64 fast path reads as 0; both readers agree.
  for (std::string_view text : {".", "-", "+", "-.", "+.", "Ki", "k", "e3"}) {
    EXPECT_EQ(go(text).sign(), 0) << text;
    const std::optional<QuantityNanos> nanos = parse_quantity(text);
    ASSERT_TRUE(nanos) << text;
    EXPECT_TRUE(*nanos == 0) << text;
  }
  // Where the suffix sends them to the inf.Dec path instead, inf.Dec's SetString finds no digit: ErrNumeric.
  for (std::string_view text : {"Ei", "-Ei", ".Pi", "e-10", ".e-10"}) {
    EXPECT_EQ(go_error(text), "unable to parse numeric part of quantity") << text;
    EXPECT_FALSE(parse_quantity(text)) << text;
  }
  EXPECT_TRUE(go("0Ei").nanos == 0);
  EXPECT_EQ(go_error(""), "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
}

TEST(QuantityTest, ExponentsAreReadAsStrconvParseIntThenInt32) {
  // suffix.go interpret: strconv.ParseInt(suffix[1:], 10, 64), then int32(parsed).
  constexpr QuantityNanos kThousand = 1000 * kNanosPerUnit;
  EXPECT_TRUE(go("1e0000000003").nanos == kThousand);
  EXPECT_TRUE(go("1e4294967299").nanos == kThousand);            // 2^32 + 3 narrows to 3
  EXPECT_TRUE(go("1e-9223372036854775808").nanos == kNanosPerUnit);  // -2^63 narrows to 0
  EXPECT_EQ(go_error("1e9223372036854775808"), "unable to parse quantity's suffix");  // ParseInt's range error
  // The inf.Dec path adds the scales in wrapping int32: -(-2^31) is -2^31, so this is 10^(2^31), not a nano.
  EXPECT_TRUE(go("1e-2147483648").nanos == kMaxQuantityNanos);
}

TEST(QuantityTest, ZeroKeepsKubesScale) {
  // int64Amount{0, 400}: AsInt64 is 0, and AsApproximateFloat64 is 0 * math.Pow10(400) = 0 * +Inf = NaN.
  const Quantity zero = go("0e400");
  EXPECT_EQ(zero.as_int64(), 0);
  EXPECT_TRUE(std::isnan(zero.as_approximate_float64()));
  EXPECT_EQ(zero.to_string(), "0");
}

}  // namespace
}  // namespace kapi::quantity_test
