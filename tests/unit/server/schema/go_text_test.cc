#include "server/schema/go_text.h"

#include <gtest/gtest.h>

#include <limits>

namespace kapi::schema {
namespace {

TEST(GoTextTest, ParsesRfc3339AsGoDoes) {
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

TEST(GoTextTest, FormatsTimesInUtc) {
  EXPECT_EQ(format_rfc3339(1136214245), "2006-01-02T15:04:05Z");
  EXPECT_EQ(format_rfc3339(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(format_rfc3339(-1), "1969-12-31T23:59:59Z");
  EXPECT_EQ(format_rfc3339(kZeroTimeSeconds), "0001-01-01T00:00:00Z");
  EXPECT_EQ(format_rfc3339(253402300799), "9999-12-31T23:59:59Z");
  EXPECT_EQ(format_rfc3339_micro({1709251199, 123456789}), "2024-02-29T23:59:59.123456Z");
  EXPECT_EQ(format_rfc3339_micro({0, 0}), "1970-01-01T00:00:00.000000Z");
}

TEST(GoTextTest, FormatsDurationsAsTimeDurationString) {
  EXPECT_EQ(format_go_duration(0), "0s");
  EXPECT_EQ(format_go_duration(1), "1ns");
  EXPECT_EQ(format_go_duration(1'500), "1.5\xC2\xB5s");
  EXPECT_EQ(format_go_duration(1'500'000), "1.5ms");
  EXPECT_EQ(format_go_duration(300'000'000), "300ms");
  EXPECT_EQ(format_go_duration(1'000'000'000), "1s");
  EXPECT_EQ(format_go_duration(1'500'000'000), "1.5s");
  EXPECT_EQ(format_go_duration(90'000'000'000), "1m30s");
  EXPECT_EQ(format_go_duration(3'600'000'000'000), "1h0m0s");
  EXPECT_EQ(format_go_duration(3'723'000'000'001), "1h2m3.000000001s");
  EXPECT_EQ(format_go_duration(-2'000'000'000), "-2s");
  EXPECT_EQ(format_go_duration(std::numeric_limits<std::int64_t>::max()), "2562047h47m16.854775807s");
  EXPECT_EQ(format_go_duration(std::numeric_limits<std::int64_t>::min()), "-2562047h47m16.854775808s");
}

TEST(GoTextTest, ParsesDurationsAsTimeParseDuration) {
  EXPECT_EQ(parse_go_duration("0"), 0);
  EXPECT_EQ(parse_go_duration("1h2m3.5s"), 3'723'500'000'000);
  EXPECT_EQ(parse_go_duration("300ms"), 300'000'000);
  EXPECT_EQ(parse_go_duration("-1.5h"), -5'400'000'000'000);
  EXPECT_EQ(parse_go_duration("+5s"), 5'000'000'000);
  EXPECT_EQ(parse_go_duration("1us"), 1'000);
  EXPECT_EQ(parse_go_duration("1\xC2\xB5s"), 1'000);
  EXPECT_EQ(parse_go_duration("1\xCE\xBCs"), 1'000);
  EXPECT_EQ(parse_go_duration(".5s"), 500'000'000);
  EXPECT_EQ(parse_go_duration("1.s"), 1'000'000'000);
  EXPECT_EQ(parse_go_duration("2562047h47m16.854775807s"), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(parse_go_duration("-9223372036854775808ns"), std::numeric_limits<std::int64_t>::min());
  for (const char* bad : {"", "1", "1x", ".s", "-", "s", "1h-2m", "9223372036854775808ns", "3000000h"})
    EXPECT_FALSE(parse_go_duration(bad)) << bad;
  for (std::int64_t value : {std::int64_t{1}, std::int64_t{1'234'567}, std::int64_t{86'400'000'000'001},
                             std::int64_t{-42'000'000'000}})
    EXPECT_EQ(parse_go_duration(format_go_duration(value)), value);
}

}  // namespace
}  // namespace kapi::schema
