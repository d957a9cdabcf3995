#include "base/go_time.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace kapi::base::go_time_test {
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

// How kube reads a Time or MicroTime in a body: Go's general parser, with its leniency and its errors. Found by
// fuzzing (tests/fuzz/body_decoding_fuzz.cc): a time kapi could not read was accepted, then could not be stored.
TEST(GoTimeTest, ParsesTimesAsMetav1ReadsThemWithGoErrors) {
  auto time = [](std::string_view text, TimeLayout layout = TimeLayout::kRfc3339) {
    return parse_go_time(text, layout).time;
  };
  auto error = [](std::string_view text, TimeLayout layout = TimeLayout::kRfc3339) {
    return parse_go_time(text, layout).error;
  };
  EXPECT_EQ(time("2006-01-02T15:04:05Z"), (UnixTime{1136214245, 0}));
  EXPECT_EQ(time("2006-01-02T1:04:05Z"), (UnixTime{1136214245 - 14 * 3600, 0})) << "a one-digit hour";
  EXPECT_EQ(time("2006-01-02T15:04:05,5+24:00"), (UnixTime{1136214245 - 86400, 500000000}));
  EXPECT_EQ(time("2024-02-29T23:59:59.1234567891Z"), (UnixTime{1709251199, 123456789}));
  EXPECT_EQ(time("2024-02-29T23:59:59.123456Z", TimeLayout::kRfc3339Micro), (UnixTime{1709251199, 123456000}));
  EXPECT_EQ(time("2024-02-29T23:59:59.+12345Z", TimeLayout::kRfc3339Micro), (UnixTime{1709251199, 12345000}))
      << "atoi's sign, as Go reads a layout's fraction";
  EXPECT_EQ(error("yesterday"),
            R"(parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006")");
  EXPECT_EQ(error("2024-05-1T001:11:12.123456Z", TimeLayout::kRfc3339Micro),
            R"(parsing time "2024-05-1T001:11:12.123456Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse )"
            R"("1T001:11:12.123456Z" as "02")");
  EXPECT_EQ(error("2024-05-01T10:11:12Z", TimeLayout::kRfc3339Micro),
            R"(parsing time "2024-05-01T10:11:12Z" as "2006-01-02T15:04:05.000000Z07:00": )"
            R"(cannot parse "Z" as ".000000")");
  EXPECT_EQ(error("2024-05-01T10:11:12.1234567Z", TimeLayout::kRfc3339Micro),
            R"(parsing time "2024-05-01T10:11:12.1234567Z" as "2006-01-02T15:04:05.000000Z07:00": )"
            R"(cannot parse "7Z" as "Z07:00")");
  EXPECT_EQ(error("2024-05-01T10:11:12.-12345Z", TimeLayout::kRfc3339Micro),
            R"(parsing time "2024-05-01T10:11:12.-12345Z": fractional second out of range)");
  EXPECT_EQ(error("2006-13-02T15:04:05Z"), R"(parsing time "2006-13-02T15:04:05Z": month out of range)");
  EXPECT_EQ(error("2023-02-29T15:04:05Z"), R"(parsing time "2023-02-29T15:04:05Z": day out of range)");
  EXPECT_EQ(error("2006-01-02T24:00:00Z"), R"(parsing time "2006-01-02T24:00:00Z": hour out of range)");
  EXPECT_EQ(error("2006-01-02T15:04:05+25:00"),
            R"(parsing time "2006-01-02T15:04:05+25:00": time zone offset hour out of range)");
  EXPECT_EQ(error("2006-01-02T15:04:05Zjunk"), R"(parsing time "2006-01-02T15:04:05Zjunk": extra text: "junk")");
  EXPECT_EQ(error("2006-01-02 15:04:05Z"),
            R"(parsing time "2006-01-02 15:04:05Z" as "2006-01-02T15:04:05Z07:00": cannot parse " 15:04:05Z" as "T")");
  EXPECT_EQ(error("\x01\xff\xc3\xa9\""), R"(parsing time "\x01\xff\xc3\xa9\"" as "2006-01-02T15:04:05Z07:00": )"
                                         R"(cannot parse "\x01\xff\xc3\xa9\"" as "2006")");
  EXPECT_EQ(error("10000-01-01T00:00:00Z"),
            R"(parsing time "10000-01-01T00:00:00Z" as "2006-01-02T15:04:05Z07:00": )"
            R"(cannot parse "0-01-01T00:00:00Z" as "-")");
}

// Go's Format writes every year its times hold; time.Parse reads four digits only, and `any_year` the rest (a
// protobuf Time past 9999 must encode again). Found by fuzzing (tests/fuzz/protobuf_fuzz.cc).
TEST(GoTimeTest, FormatsAndReadsYearsBeyondFourDigitsAsGoWrites) {
  constexpr std::int64_t kYear10000 = 253402300800;
  EXPECT_EQ(format_rfc3339(kYear10000), "10000-01-01T00:00:00Z");
  EXPECT_EQ(format_rfc3339(kZeroTimeSeconds - 1), "0000-12-31T23:59:59Z");
  EXPECT_EQ(format_rfc3339(kZeroTimeSeconds - 366 * 86400 - 1), "-0001-12-31T23:59:59Z");
  EXPECT_EQ(format_rfc3339_micro({kYear10000, 5000}), "10000-01-01T00:00:00.000005Z");
  auto any_year = [](std::string_view text, TimeLayout layout = TimeLayout::kRfc3339) {
    return parse_go_time(text, layout, true).time;
  };
  for (const std::int64_t seconds : {kYear10000, kZeroTimeSeconds - 366 * 86400 - 1, std::int64_t{21990232555519},
                                     std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min(),
                                     std::int64_t{1136214245}}) {
    EXPECT_EQ(any_year(format_rfc3339(seconds)), (UnixTime{seconds, 0})) << format_rfc3339(seconds);
    EXPECT_EQ(any_year(format_rfc3339_micro({seconds, 123000}), TimeLayout::kRfc3339Micro),
              (UnixTime{seconds, 123000}));
  }
  EXPECT_EQ(any_year("2006-01-02T15:04:05+07:00"), (UnixTime{1136214245 - 7 * 3600, 0}));
  for (const char* bad : {"292277026597-01-01T00:00:00Z", "1234567890123-01-01T00:00:00Z", "-001-12-31T23:59:59Z",
                          "100-01-01T00:00:00Z", "+2006-01-02T15:04:05Z", "-2006-01-02", "10000-02-30T00:00:00Z"})
    EXPECT_FALSE(any_year(bad)) << bad;
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
}  // namespace kapi::base::go_time_test
