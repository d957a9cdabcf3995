#pragma once
// Prometheus metric families: counters, gauges and histograms by label values, rendered in the text format.
// Every family is safe to update from any reactor thread.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::metrics {

using Labels = std::vector<std::string>;  // values, in the order of the family's label names
// Label values as a hot path passes them (`inc({code, verb})`): looked up without building a Labels, which is
// made only for a series seen for the first time.
using LabelView = std::initializer_list<std::string_view>;

// Orders Labels as std::less does, and compares them with a LabelView.
struct LabelsLess {
  using is_transparent = void;
  template <typename A, typename B>
  bool operator()(const A& a, const B& b) const {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(),
                                        [](std::string_view x, std::string_view y) { return x < y; });
  }
};

class CounterFamily {
 public:
  CounterFamily(std::string name, std::string help, std::vector<std::string> label_names);
  void inc(const Labels& labels, double by = 1);
  void inc(LabelView labels, double by = 1);
  double value(const Labels& labels) const;
  void render(std::string& out) const;

 private:
  std::string name_, help_;
  std::vector<std::string> label_names_;
  mutable std::mutex mutex_;
  std::map<Labels, double, LabelsLess> values_;
};

class GaugeFamily {
 public:
  GaugeFamily(std::string name, std::string help, std::vector<std::string> label_names);
  void set(const Labels& labels, double value);
  void add(const Labels& labels, double delta);
  void add(LabelView labels, double delta);
  double value(const Labels& labels) const;
  void render(std::string& out) const;

 private:
  std::string name_, help_;
  std::vector<std::string> label_names_;
  mutable std::mutex mutex_;
  std::map<Labels, double, LabelsLess> values_;
};

class HistogramFamily {
 public:
  // One series of the family. Observing one takes only its own lock: a hot path resolves its series once and
  // observes it directly, without building label values or looking them up in the family.
  class Series {
   public:
    explicit Series(const std::vector<double>& buckets) : buckets_(buckets), bucket_counts_(buckets.size(), 0) {}
    void observe(double value);

   private:
    friend class HistogramFamily;
    const std::vector<double>& buckets_;
    mutable std::mutex mutex_;
    std::vector<std::uint64_t> bucket_counts_;
    double sum_ = 0;
    std::uint64_t count_ = 0;
  };

  HistogramFamily(std::string name, std::string help, std::vector<std::string> label_names,
                  std::vector<double> buckets);
  // The series of `labels`, made on first use; it lives as long as the family.
  Series& series(const Labels& labels);
  Series& series(LabelView labels);
  void observe(const Labels& labels, double value) { series(labels).observe(value); }
  void observe(LabelView labels, double value) { series(labels).observe(value); }
  std::uint64_t count(const Labels& labels) const;
  void render(std::string& out) const;

 private:
  std::string name_, help_;
  std::vector<std::string> label_names_;
  std::vector<double> buckets_;
  mutable std::shared_mutex mutex_;  // guards the map; each series guards its counts
  std::map<Labels, std::unique_ptr<Series>, LabelsLess> series_;
};

// kube's getHash of the auth metrics: "sha256:<hex>" of `data`, "" for "" (a JWT issuer, the API server's ID).
std::string sha256_label(std::string_view data);

// Seconds since the epoch now, as a gauge's SetToCurrentTime writes them.
double unix_now();

}  // namespace kapi::metrics
