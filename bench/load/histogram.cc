#include "bench/load/histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace kapi::bench {

LatencyHistogram::LatencyHistogram() : buckets_((64 - kSubBucketBits + 1) * kSubBuckets, 0) {}

// Values below 64 µs get one bucket each; above, the top 6 significant bits pick the bucket within the value's
// power of two.
std::size_t LatencyHistogram::index_of(std::uint64_t micros) {
  if (micros < kSubBuckets) return static_cast<std::size_t>(micros);
  const int magnitude = std::bit_width(micros) - kSubBucketBits - 1;  // micros >> magnitude is in [64, 128)
  const std::uint64_t sub = (micros >> magnitude) - kSubBuckets;
  return static_cast<std::size_t>(magnitude + 1) * kSubBuckets + sub;
}

std::uint64_t LatencyHistogram::upper_bound_of(std::size_t index) {
  if (index < kSubBuckets) return index;
  const std::size_t magnitude = index / kSubBuckets - 1;
  const std::uint64_t sub = index % kSubBuckets;
  return ((kSubBuckets + sub + 1) << magnitude) - 1;
}

void LatencyHistogram::record_micros(std::uint64_t micros) {
  ++buckets_[std::min(index_of(micros), buckets_.size() - 1)];
  ++count_;
  sum_ += micros;
  max_ = std::max(max_, micros);
}

void LatencyHistogram::merge(const LatencyHistogram& other) {
  for (std::size_t i = 0; i < buckets_.size(); ++i) buckets_[i] += other.buckets_[i];
  count_ += other.count_;
  sum_ += other.sum_;
  max_ = std::max(max_, other.max_);
}

std::uint64_t LatencyHistogram::quantile_micros(double quantile) const {
  if (count_ == 0) return 0;
  const auto wanted = static_cast<std::uint64_t>(std::ceil(std::clamp(quantile, 0.0, 1.0) * static_cast<double>(count_)));
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < buckets_.size(); ++i) {
    seen += buckets_[i];
    if (seen >= std::max<std::uint64_t>(wanted, 1)) return std::min(upper_bound_of(i), max_);
  }
  return max_;
}

void LatencySeries::record_micros(double second, std::uint64_t micros) {
  if (second < 0) return;
  const auto index = static_cast<std::size_t>(second);
  if (seconds_.size() <= index) seconds_.resize(index + 1);
  seconds_[index].record_micros(micros);
}

void LatencySeries::merge(const LatencySeries& other) {
  if (seconds_.size() < other.seconds_.size()) seconds_.resize(other.seconds_.size());
  for (std::size_t i = 0; i < other.seconds_.size(); ++i) seconds_[i].merge(other.seconds_[i]);
}

}  // namespace kapi::bench
