#pragma once
// Prometheus metrics with kube-apiserver's names, exposed as text on /metrics. One registry per server
// (no globals); every family is safe to update from any reactor thread.
#include <atomic>
#include <map>
#include <memory>
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

// The families kapi's filters and handlers record into.
class Registry {
 public:
  Registry();
  std::string render() const;

  CounterFamily request_total;             // apiserver_request_total
  HistogramFamily request_duration;        // apiserver_request_duration_seconds
  GaugeFamily current_inflight;            // apiserver_current_inflight_requests
  HistogramFamily filter_duration;         // apiserver_request_filter_duration_seconds
  CounterFamily dropped_requests;          // apiserver_dropped_requests_total
  CounterFamily request_terminations;      // apiserver_request_terminations_total
  CounterFamily panics;                    // apiserver_request_aborts_total
  CounterFamily audit_events;              // apiserver_audit_event_total
  CounterFamily audit_errors;              // apiserver_audit_error_total
  CounterFamily audit_levels;              // apiserver_audit_level_total
};

}  // namespace kapi::metrics
