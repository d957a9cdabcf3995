#include "bench/report/report.h"

#include <boost/json.hpp>

#include <algorithm>

namespace kapi::bench {
namespace {

double millis(std::uint64_t micros) { return static_cast<double>(micros) / 1000.0; }

boost::json::object latency_summary(const LatencyHistogram& histogram) {
  return {{"p50", millis(histogram.quantile_micros(0.50))}, {"p90", millis(histogram.quantile_micros(0.90))},
          {"p99", millis(histogram.quantile_micros(0.99))}, {"p999", millis(histogram.quantile_micros(0.999))},
          {"max", millis(histogram.max_micros())},          {"mean", histogram.mean_micros() / 1000.0},
          {"count", histogram.count()}};
}

// Quantile → latency at points dense towards the tail, where the interesting part of a distribution is.
boost::json::array distribution(const LatencyHistogram& histogram) {
  boost::json::array points;
  if (histogram.count() == 0) return points;
  for (double q : {0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.925, 0.95, 0.975, 0.99, 0.995,
                   0.999, 0.9995, 0.9999, 1.0}) {
    boost::json::array point{q, millis(q >= 1.0 ? histogram.max_micros() : histogram.quantile_micros(q))};
    points.push_back(std::move(point));
  }
  return points;
}

boost::json::object status_counts(const LoadResult& load) {
  boost::json::object statuses;
  for (const auto& [status, count] : load.outcomes) statuses[status == 0 ? "network-error" : std::to_string(status)] = count;
  return statuses;
}

// p50 and p99 of each second; a second without samples is null, so a chart's line breaks there rather than
// dropping to zero.
boost::json::object latency_series(const LatencySeries& series) {
  boost::json::array p50, p99;
  for (const auto& second : series.per_second()) {
    if (second.count() == 0) {
      p50.emplace_back(nullptr);
      p99.emplace_back(nullptr);
      continue;
    }
    p50.push_back(millis(second.quantile_micros(0.50)));
    p99.push_back(millis(second.quantile_micros(0.99)));
  }
  return {{"interval_s", 1.0}, {"p50", std::move(p50)}, {"p99", std::move(p99)}};
}

double throughput(const LoadResult& load) {
  return load.measured_seconds > 0 ? static_cast<double>(load.successes) / load.measured_seconds : 0.0;
}

}  // namespace

boost::json::object to_json(const ScenarioResult& result) {
  const auto& load = result.load;
  boost::json::object run;
  run["scenario"] = result.scenario;
  run["target"] = result.target;
  run["parameters"] = result.parameters;
  run["measured_seconds"] = load.measured_seconds;
  run["successes"] = load.successes;
  run["failures"] = load.failures;
  run["missed_arrivals"] = load.missed_arrivals;
  run["throughput_per_s"] = throughput(load);
  run["latency_ms"] = latency_summary(load.latency);
  run["latency_distribution_ms"] = distribution(load.latency);
  run["status_counts"] = status_counts(load);
  if (!load.first_error.empty()) run["first_error"] = load.first_error;
  run["bytes_received"] = load.bytes_received;
  run["bytes_sent"] = load.bytes_sent;
  if (result.response_bytes != 0) run["response_bytes"] = result.response_bytes;
  run["client_cpu_seconds"] = result.client_cpu_seconds;
  run["client_threads"] = result.client_threads;
  boost::json::array series;
  const double seconds = std::chrono::duration<double>(kThroughputInterval).count();
  // Whole intervals of the measured window only: the last, partial one (and the stragglers completing after the
  // window) would draw a fall to zero that never happened.
  const auto whole = std::min(load.completions_per_interval.size(),
                              static_cast<std::size_t>(load.measured_seconds / seconds + 1e-9));
  for (std::size_t i = 0; i < whole; ++i)
    series.push_back(static_cast<double>(load.completions_per_interval[i]) / seconds);
  run["throughput_series"] = {{"interval_s", seconds}, {"per_s", std::move(series)}};
  run["latency_series_ms"] = latency_series(load.latency_over_time);
  if (result.server) {
    run["server"] = {{"cpu_seconds", result.server->cpu_seconds},
                     {"rss_before_bytes", result.server->rss_before_bytes},
                     {"rss_after_bytes", result.server->rss_after_bytes},
                     {"rss_peak_bytes", result.server->rss_peak_bytes}};
  }
  if (result.watch) {
    const auto& watch = *result.watch;
    run["watch"] = {{"watchers", watch.watchers},
                    {"established", watch.established},
                    {"events_written", watch.events_written},
                    {"deliveries", watch.deliveries},
                    {"missing", watch.missing},
                    {"duplicates", watch.duplicates},
                    {"delivery_latency_ms", latency_summary(watch.delivery_latency)},
                    {"delivery_distribution_ms", distribution(watch.delivery_latency)},
                    {"delivery_series_ms", latency_series(watch.delivery_latency_over_time)},
                    {"server_bytes_per_watcher", watch.server_bytes_per_watcher}};
  }
  if (!result.parts.empty()) {
    boost::json::array parts;
    for (const auto& part : result.parts) {
      boost::json::object figures{{"name", part.name},
                                  {"successes", part.load.successes},
                                  {"failures", part.load.failures},
                                  {"missed_arrivals", part.load.missed_arrivals},
                                  {"throughput_per_s", throughput(part.load)},
                                  {"latency_ms", latency_summary(part.load.latency)},
                                  {"status_counts", status_counts(part.load)}};
      if (!part.load.first_error.empty()) figures["first_error"] = part.load.first_error;
      parts.push_back(std::move(figures));
    }
    run["parts"] = std::move(parts);
  }
  if (result.informers) {
    run["informers"] = {{"informers", result.informers->informers},
                        {"established", result.informers->established},
                        {"events", result.informers->events}};
  }
  return run;
}

}  // namespace kapi::bench
