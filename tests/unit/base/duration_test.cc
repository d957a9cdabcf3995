#include "base/duration.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace kapi::base::duration_test {
namespace {

std::chrono::nanoseconds ns(std::int64_t count) { return std::chrono::nanoseconds(count); }

std::optional<std::int64_t> nanoseconds_of(std::string_view text) {
  const auto parsed = parse_go_duration(text);
  if (!parsed) return std::nullopt;
  return parsed->count();
}

TEST(DurationTest, FormatsDurationsAsTimeDurationString) {
  EXPECT_EQ(format_go_duration(ns(0)), "0s");
  EXPECT_EQ(format_go_duration(ns(1)), "1ns");
  EXPECT_EQ(format_go_duration(ns(1'500)), "1.5\xC2\xB5s");
  EXPECT_EQ(format_go_duration(ns(1'500'000)), "1.5ms");
  EXPECT_EQ(format_go_duration(ns(300'000'000)), "300ms");
  EXPECT_EQ(format_go_duration(ns(1'000'000'000)), "1s");
  EXPECT_EQ(format_go_duration(ns(1'500'000'000)), "1.5s");
  EXPECT_EQ(format_go_duration(ns(90'000'000'000)), "1m30s");
  EXPECT_EQ(format_go_duration(ns(3'600'000'000'000)), "1h0m0s");
  EXPECT_EQ(format_go_duration(ns(3'723'000'000'001)), "1h2m3.000000001s");
  EXPECT_EQ(format_go_duration(ns(-2'000'000'000)), "-2s");
  EXPECT_EQ(format_go_duration(ns(std::numeric_limits<std::int64_t>::max())), "2562047h47m16.854775807s");
  EXPECT_EQ(format_go_duration(ns(std::numeric_limits<std::int64_t>::min())), "-2562047h47m16.854775808s");
}

TEST(DurationTest, ParsesDurationsAsTimeParseDuration) {
  EXPECT_EQ(nanoseconds_of("0"), 0);
  EXPECT_EQ(nanoseconds_of("1h2m3.5s"), 3'723'500'000'000);
  EXPECT_EQ(nanoseconds_of("300ms"), 300'000'000);
  EXPECT_EQ(nanoseconds_of("-1.5h"), -5'400'000'000'000);
  EXPECT_EQ(nanoseconds_of("+5s"), 5'000'000'000);
  EXPECT_EQ(nanoseconds_of("1us"), 1'000);
  EXPECT_EQ(nanoseconds_of("1\xC2\xB5s"), 1'000);
  EXPECT_EQ(nanoseconds_of("1\xCE\xBCs"), 1'000);
  EXPECT_EQ(nanoseconds_of(".5s"), 500'000'000);
  EXPECT_EQ(nanoseconds_of("1.s"), 1'000'000'000);
  EXPECT_EQ(nanoseconds_of("2562047h47m16.854775807s"), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(nanoseconds_of("-9223372036854775808ns"), std::numeric_limits<std::int64_t>::min());
  for (const char* bad : {"", "1", "1x", ".s", "-", "s", "1h-2m", "9223372036854775808ns", "3000000h"})
    EXPECT_FALSE(nanoseconds_of(bad)) << bad;
  for (std::int64_t value : {std::int64_t{1}, std::int64_t{1'234'567}, std::int64_t{86'400'000'000'001},
                             std::int64_t{-42'000'000'000}})
    EXPECT_EQ(nanoseconds_of(format_go_duration(ns(value))), value);
}

}  // namespace
}  // namespace kapi::base::duration_test
