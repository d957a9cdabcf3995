#pragma once
// A log-linear latency histogram (HdrHistogram's idea, much smaller): each power-of-two range of microseconds is
// split into 64 equal buckets, so any recorded value is known within 1/64 (1.6 %) whatever its size, in a fixed
// few kilobytes, however many samples. Watch runs record millions of deliveries; a vector of samples would not do.
#include <cstdint>
#include <vector>

namespace kapi::bench {

class LatencyHistogram {
 public:
  LatencyHistogram();

  void record_micros(std::uint64_t micros);
  void merge(const LatencyHistogram& other);

  std::uint64_t count() const noexcept { return count_; }
  std::uint64_t max_micros() const noexcept { return max_; }
  double mean_micros() const noexcept { return count_ == 0 ? 0.0 : static_cast<double>(sum_) / static_cast<double>(count_); }
  // The smallest recorded value v such that at least `quantile` (0..1) of the samples are <= v, within 1.6 %.
  std::uint64_t quantile_micros(double quantile) const;

 private:
  static constexpr int kSubBucketBits = 6;
  static constexpr std::uint64_t kSubBuckets = std::uint64_t{1} << kSubBucketBits;
  static std::size_t index_of(std::uint64_t micros);
  static std::uint64_t upper_bound_of(std::size_t index);

  std::vector<std::uint64_t> buckets_;
  std::uint64_t count_ = 0;
  std::uint64_t sum_ = 0;
  std::uint64_t max_ = 0;
};

// Latency over time: a histogram per second of the run, so a report can draw its p50 and p99 second by second
// (a stall, or a tail that grows as a flood goes on, shows where one distribution of the whole run hides it).
class LatencySeries {
 public:
  // `second`: since the measured window began; samples before it are not kept.
  void record_micros(double second, std::uint64_t micros);
  void merge(const LatencySeries& other);
  const std::vector<LatencyHistogram>& per_second() const noexcept { return seconds_; }

 private:
  std::vector<LatencyHistogram> seconds_;
};

}  // namespace kapi::bench
