#pragma once
// Prometheus metric families: counters, gauges and histograms by label values, rendered in the text format.
// Every family is safe to update from any reactor thread.
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace kapi::metrics {

using Labels = std::vector<std::string>;  // values, in the order of the family's label names

class CounterFamily {
 public:
  CounterFamily(std::string name, std::string help, std::vector<std::string> label_names);
  void inc(const Labels& labels, double by = 1);
  double value(const Labels& labels) const;
  void render(std::string& out) const;

 private:
  std::string name_, help_;
  std::vector<std::string> label_names_;
  mutable std::mutex mutex_;
  std::map<Labels, double> values_;
};

class GaugeFamily {
 public:
  GaugeFamily(std::string name, std::string help, std::vector<std::string> label_names);
  void set(const Labels& labels, double value);
  void add(const Labels& labels, double delta);
  double value(const Labels& labels) const;
  void render(std::string& out) const;

 private:
  std::string name_, help_;
  std::vector<std::string> label_names_;
  mutable std::mutex mutex_;
  std::map<Labels, double> values_;
};

class HistogramFamily {
 public:
  HistogramFamily(std::string name, std::string help, std::vector<std::string> label_names,
                  std::vector<double> buckets);
  void observe(const Labels& labels, double value);
  std::uint64_t count(const Labels& labels) const;
  void render(std::string& out) const;

 private:
  struct Series {
    std::vector<std::uint64_t> bucket_counts;
    double sum = 0;
    std::uint64_t count = 0;
  };
  std::string name_, help_;
  std::vector<std::string> label_names_;
  std::vector<double> buckets_;
  mutable std::mutex mutex_;
  std::map<Labels, Series> series_;
};

}  // namespace kapi::metrics
