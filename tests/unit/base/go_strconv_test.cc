#include "base/go_strconv.h"

#include <gtest/gtest.h>

#include <limits>

namespace kapi::base::go_strconv_test {
namespace {

// Each expectation is what Go's strconv.FormatFloat(x, 'g', -1, 64) (also fmt's %v) prints.
TEST(GoStrconvTest, FormatsTheShortestWayWithGosExponentRule) {
  EXPECT_EQ(go_format_float(2.0), "2");
  EXPECT_EQ(go_format_float(23.39), "23.39");
  EXPECT_EQ(go_format_float(123456.0), "123456");
  EXPECT_EQ(go_format_float(1234567.0), "1.234567e+06");
  EXPECT_EQ(go_format_float(1e6), "1e+06");
  EXPECT_EQ(go_format_float(0.0001), "0.0001");
  EXPECT_EQ(go_format_float(0.00001), "1e-05");
  EXPECT_EQ(go_format_float(0.005), "0.005");
  EXPECT_EQ(go_format_float(5e-7), "5e-07");
  EXPECT_EQ(go_format_float(-1.5e-7), "-1.5e-07");
  EXPECT_EQ(go_format_float(1e100), "1e+100");
  EXPECT_EQ(go_format_float(0.0), "0");
  EXPECT_EQ(go_format_float(-0.0), "-0");
  EXPECT_EQ(go_format_float(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(go_format_float(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(go_format_float(std::numeric_limits<double>::quiet_NaN()), "NaN");
}

// strconv.FormatFloat(x, 'f', -1, 64).
TEST(GoStrconvTest, FixedNeverUsesTheExponent) {
  EXPECT_EQ(go_format_float_fixed(1e6), "1000000");
  EXPECT_EQ(go_format_float_fixed(0.00001), "0.00001");
  EXPECT_EQ(go_format_float_fixed(1.5), "1.5");
  EXPECT_EQ(go_format_float_fixed(-0.0), "-0");
}

// strconv.ParseInt(s, 10, 64) and ParseUint(s, 10, 64), with NumError's reasons in Go's order.
TEST(GoStrconvTest, ParsesIntegersAsStrconvDoes) {
  auto text = [](auto parsed) { return parsed ? std::to_string(parsed.value) : std::string(parsed.error); };
  EXPECT_EQ(text(go_parse_int("+42")), "42");
  EXPECT_EQ(text(go_parse_int("-9223372036854775808")), "-9223372036854775808");
  EXPECT_EQ(text(go_parse_int("9223372036854775807")), "9223372036854775807");
  EXPECT_EQ(text(go_parse_int("9223372036854775808")), "value out of range");
  EXPECT_EQ(text(go_parse_int("-9223372036854775809")), "value out of range");
  // The digits overflow before the bad one, so range wins; a bad digit first is a syntax error.
  EXPECT_EQ(text(go_parse_int("99999999999999999999x")), "value out of range");
  EXPECT_EQ(text(go_parse_int("9x9999999999999999999")), "invalid syntax");
  for (const char* bad : {"", "+", "-", "--1", "+-1", " 1", "1 ", "1_000", "0x10", "1.0"})
    EXPECT_EQ(text(go_parse_int(bad)), "invalid syntax") << bad;
  EXPECT_EQ(text(go_parse_uint("18446744073709551615")), "18446744073709551615");
  EXPECT_EQ(text(go_parse_uint("18446744073709551616")), "value out of range");
  EXPECT_EQ(text(go_parse_uint("+1")), "invalid syntax");
  EXPECT_EQ(text(go_parse_uint("-0")), "invalid syntax");
}

}  // namespace
}  // namespace kapi::base::go_strconv_test
