#include "bench/load/histogram.h"

#include <gtest/gtest.h>

#include <cmath>

namespace kapi::bench::histogram_test {
namespace {

// Within the histogram's stated precision of `expected`: 1/64 of it, and never below it (buckets report their
// upper bound).
::testing::AssertionResult within_a_bucket(std::uint64_t value, std::uint64_t expected) {
  if (value >= expected && static_cast<double>(value) <= static_cast<double>(expected) * (1 + 1.0 / 64))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << value << " is not within 1/64 above " << expected;
}

TEST(LatencyHistogramTest, AnEmptyHistogramReportsZero) {
  LatencyHistogram histogram;
  EXPECT_EQ(histogram.count(), 0u);
  EXPECT_EQ(histogram.quantile_micros(0.99), 0u);
  EXPECT_EQ(histogram.mean_micros(), 0.0);
}

TEST(LatencyHistogramTest, ValuesBelowSixtyFourAreExact) {
  LatencyHistogram histogram;
  for (std::uint64_t micros = 0; micros < 64; ++micros) histogram.record_micros(micros);
  EXPECT_EQ(histogram.count(), 64u);
  EXPECT_EQ(histogram.quantile_micros(0.5), 31u);  // the 32nd of 64 values
  EXPECT_EQ(histogram.quantile_micros(0.0), 0u);
  EXPECT_EQ(histogram.quantile_micros(1.0), 63u);
  EXPECT_EQ(histogram.max_micros(), 63u);
  EXPECT_DOUBLE_EQ(histogram.mean_micros(), 31.5);
}

TEST(LatencyHistogramTest, QuantilesOfAUniformSpreadAreWithinOneSixtyFourth) {
  LatencyHistogram histogram;
  for (std::uint64_t micros = 1; micros <= 100'000; ++micros) histogram.record_micros(micros);
  EXPECT_TRUE(within_a_bucket(histogram.quantile_micros(0.50), 50'000));
  EXPECT_TRUE(within_a_bucket(histogram.quantile_micros(0.90), 90'000));
  EXPECT_TRUE(within_a_bucket(histogram.quantile_micros(0.99), 99'000));
  EXPECT_TRUE(within_a_bucket(histogram.quantile_micros(0.999), 99'900));
  EXPECT_EQ(histogram.quantile_micros(1.0), 100'000u) << "the top quantile is the exact maximum";
}

TEST(LatencyHistogramTest, AQuantileNeverExceedsTheLargestValue) {
  LatencyHistogram histogram;
  histogram.record_micros(1'000'001);
  EXPECT_EQ(histogram.quantile_micros(0.5), 1'000'001u);
  EXPECT_EQ(histogram.quantile_micros(0.99), 1'000'001u);
}

TEST(LatencyHistogramTest, HugeValuesLandInTheLastBucketWithoutOverflow) {
  LatencyHistogram histogram;
  histogram.record_micros(UINT64_MAX / 2);
  histogram.record_micros(7);
  EXPECT_EQ(histogram.count(), 2u);
  EXPECT_EQ(histogram.quantile_micros(0.5), 7u);
  EXPECT_EQ(histogram.max_micros(), UINT64_MAX / 2);
}

TEST(LatencyHistogramTest, MergingAddsSamplesAndKeepsTheMaximum) {
  LatencyHistogram fast;
  LatencyHistogram slow;
  for (int i = 0; i < 90; ++i) fast.record_micros(100);
  for (int i = 0; i < 10; ++i) slow.record_micros(10'000);
  fast.merge(slow);
  EXPECT_EQ(fast.count(), 100u);
  EXPECT_EQ(fast.max_micros(), 10'000u);
  EXPECT_TRUE(within_a_bucket(fast.quantile_micros(0.90), 100));
  EXPECT_EQ(fast.quantile_micros(0.91), 10'000u);
  EXPECT_DOUBLE_EQ(fast.mean_micros(), (90 * 100 + 10 * 10'000) / 100.0);
}

TEST(LatencySeriesTest, SamplesGoToTheSecondTheyCameInAndEarlierOnesAreDropped) {
  LatencySeries series;
  series.record_micros(-0.5, 1);  // before the measured window
  series.record_micros(0.2, 100);
  series.record_micros(2.9, 5'000);
  ASSERT_EQ(series.per_second().size(), 3u);
  EXPECT_EQ(series.per_second()[0].count(), 1u);
  EXPECT_EQ(series.per_second()[1].count(), 0u);  // a second without samples stays, empty
  EXPECT_EQ(series.per_second()[2].max_micros(), 5'000u);

  LatencySeries longer;
  longer.record_micros(3.1, 7);
  longer.record_micros(0.9, 300);
  series.merge(longer);
  ASSERT_EQ(series.per_second().size(), 4u);
  EXPECT_EQ(series.per_second()[0].count(), 2u);
  EXPECT_EQ(series.per_second()[0].max_micros(), 300u);
  EXPECT_EQ(series.per_second()[3].count(), 1u);
}

}  // namespace
}  // namespace kapi::bench::histogram_test
