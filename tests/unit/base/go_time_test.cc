#include "base/go_time.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace kapi::base {
namespace {

TEST(GoTimeTest, ParsesRfc3339AsGoDoes) {
  EXPECT_EQ(parse_rfc3339("2006-01-02T15:04:05Z"), (UnixTime{1136214245, 0}));
  EXPECT_EQ(parse_rfc3339("1970-01-01T00:00:00Z"), (UnixTime{0, 0}));
  EXPECT_EQ(parse_rfc3339("2006-01-02T15:04:05+07:00"), (UnixTime{1136214245 - 7 * 3600, 0}));
  EXPECT_EQ(parse_rfc3339("2006-01-02T15:04:05-01:30"), (UnixTime{1136214245 + 5400, 0}));
  EXPECT_EQ(parse_rfc3339("2024-02-29T23:59:59.123456Z"), (UnixTime{1709251199, 123456000}));
  EXPECT_EQ(parse_rfc3339("2024-02-29T23:59:59.1234567891Z"), (UnixTime{1709251199, 123456789}));
  EXPECT_EQ(parse_rfc3339("0001-01-01T00:00:00Z"), (UnixTime{kZeroTimeSeconds, 0}));
  for (const char* bad : {"", "2006-01-02", "2006-01-02T15:04:05", "2006-01-02t15:04:05Z", "2006-13-02T15:04:05Z",
                          "2023-02-29T15:04:05Z", "2006-01-02T24:00:00Z", "2006-01-02T15:04:60Z",
                          "2006-01-02T15:04:05.Z", "2006-01-02T15:04:05+0700", "2006-01-02T15:04:05z",
                          "2006-01-02T15:04:05Zjunk", "20x6-01-02T15:04:05Z"})
    EXPECT_FALSE(parse_rfc3339(bad)) << bad;
}

TEST(GoTimeTest, FormatsTimesInUtc) {
  EXPECT_EQ(format_rfc3339(1136214245), "2006-01-02T15:04:05Z");
  EXPECT_EQ(format_rfc3339(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(format_rfc3339(-1), "1969-12-31T23:59:59Z");
  EXPECT_EQ(format_rfc3339(kZeroTimeSeconds), "0001-01-01T00:00:00Z");
  EXPECT_EQ(format_rfc3339(253402300799), "9999-12-31T23:59:59Z");
  EXPECT_EQ(format_rfc3339_micro({1709251199, 123456789}), "2024-02-29T23:59:59.123456Z");
  EXPECT_EQ(format_rfc3339_micro({0, 0}), "1970-01-01T00:00:00.000000Z");
}

// Go's Format writes every year its times hold; time.Parse reads four digits only, so parse_formatted_time reads
// the rest (a protobuf Time past 9999 must encode again). Found by fuzzing (tests/fuzz/protobuf_fuzz.cc).
TEST(GoTimeTest, FormatsAndReadsYearsBeyondFourDigitsAsGoWrites) {
  constexpr std::int64_t kYear10000 = 253402300800;
  EXPECT_EQ(format_rfc3339(kYear10000), "10000-01-01T00:00:00Z");
  EXPECT_EQ(format_rfc3339(kZeroTimeSeconds - 1), "0000-12-31T23:59:59Z");
  EXPECT_EQ(format_rfc3339(kZeroTimeSeconds - 366 * 86400 - 1), "-0001-12-31T23:59:59Z");
  EXPECT_EQ(format_rfc3339_micro({kYear10000, 5000}), "10000-01-01T00:00:00.000005Z");
  EXPECT_FALSE(parse_rfc3339("10000-01-01T00:00:00Z"));
  EXPECT_FALSE(parse_rfc3339("-0001-12-31T23:59:59Z"));
  for (const std::int64_t seconds : {kYear10000, kZeroTimeSeconds - 366 * 86400 - 1, std::int64_t{21990232555519},
                                     std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min(),
                                     std::int64_t{1136214245}}) {
    EXPECT_EQ(parse_formatted_time(format_rfc3339(seconds)), (UnixTime{seconds, 0})) << format_rfc3339(seconds);
    EXPECT_EQ(parse_formatted_time(format_rfc3339_micro({seconds, 123000})), (UnixTime{seconds, 123000}));
  }
  EXPECT_EQ(parse_formatted_time("2006-01-02T15:04:05+07:00"), (UnixTime{1136214245 - 7 * 3600, 0}));
  for (const char* bad : {"292277026597-01-01T00:00:00Z", "1234567890123-01-01T00:00:00Z", "-001-12-31T23:59:59Z",
                          "100-01-01T00:00:00Z", "+2006-01-02T15:04:05Z", "-2006-01-02", "10000-02-30T00:00:00Z"})
    EXPECT_FALSE(parse_formatted_time(bad)) << bad;
}

TEST(GoTimeTest, FormatsHttpDatesAsHttpTimeFormat) {
  EXPECT_EQ(format_http_date(0), "Thu, 01 Jan 1970 00:00:00 GMT");
  EXPECT_EQ(format_http_date(1136214245), "Mon, 02 Jan 2006 15:04:05 GMT");
  EXPECT_EQ(format_http_date(-1), "Wed, 31 Dec 1969 23:59:59 GMT");
  EXPECT_EQ(format_http_date(1709251199), "Thu, 29 Feb 2024 23:59:59 GMT");
  EXPECT_EQ(format_http_date(253402300799), "Fri, 31 Dec 9999 23:59:59 GMT");
}

TEST(GoTimeTest, SplitsTimePointsIntoSecondsAndNanos) {
  using std::chrono::system_clock;
  EXPECT_EQ(unix_time(system_clock::time_point(std::chrono::milliseconds(1'500))), (UnixTime{1, 500'000'000}));
  EXPECT_EQ(unix_time(system_clock::time_point(std::chrono::milliseconds(-1'500))), (UnixTime{-2, 500'000'000}));
  EXPECT_EQ(format_rfc3339_micro(unix_time(system_clock::time_point(std::chrono::microseconds(-1)))),
            "1969-12-31T23:59:59.999999Z");
}

}  // namespace
}  // namespace kapi::base
