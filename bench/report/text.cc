#include "bench/report/report.h"

#include <boost/json.hpp>

#include <string>

namespace kapi::bench {
namespace {

std::string bytes(double count) {
  const char* units[] = {"B", "KiB", "MiB", "GiB"};
  int unit = 0;
  while (count >= 1024 && unit < 3) {
    count /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", count, units[unit]);
  return text;
}

void print_latency(std::FILE* out, const char* label, const boost::json::object& latency) {
  std::fprintf(out, "  %-12s p50 %.2f  p90 %.2f  p99 %.2f  p99.9 %.2f  max %.2f ms  (%.0f samples)\n", label,
               field(latency, "p50"), field(latency, "p90"), field(latency, "p99"), field(latency, "p999"),
               field(latency, "max"), field(latency, "count"));
}

}  // namespace

void print_text(std::FILE* out, const boost::json::object& run) {
  std::fprintf(out, "%s on %s: %s\n", run.at("scenario").as_string().c_str(), run.at("target").as_string().c_str(),
               run.at("parameters").as_string().c_str());
  std::fprintf(out, "  %-12s %.1f/s  (%.0f ok, %.0f failed, %.0f arrivals missed, in %.1f s after warm-up)\n",
               "throughput", field(run, "throughput_per_s"), field(run, "successes"), field(run, "failures"),
               field(run, "missed_arrivals"), field(run, "measured_seconds"));
  print_latency(out, "latency", run.at("latency_ms").as_object());
  std::string statuses;
  for (const auto& [status, count] : run.at("status_counts").as_object())
    statuses += std::string(status) + ": " + std::to_string(static_cast<long long>(number(count))) + "  ";
  std::fprintf(out, "  %-12s %s\n", "outcomes", statuses.empty() ? "none" : statuses.c_str());
  if (auto error = run.find("first_error"); error != run.end())
    std::fprintf(out, "  %-12s %s\n", "first error", error->value().as_string().c_str());
  std::fprintf(out, "  %-12s sent %s, received %s", "bytes", bytes(field(run, "bytes_sent")).c_str(),
               bytes(field(run, "bytes_received")).c_str());
  if (run.contains("response_bytes"))
    std::fprintf(out, ", one response body %s", bytes(field(run, "response_bytes")).c_str());
  std::fprintf(out, "\n");
  if (auto server = run.find("server"); server != run.end()) {
    const auto& usage = server->value().as_object();
    std::fprintf(out, "  %-12s cpu %.2f s, rss %s before, %s after, %s peak\n", "server",
                 field(usage, "cpu_seconds"), bytes(field(usage, "rss_before_bytes")).c_str(),
                 bytes(field(usage, "rss_after_bytes")).c_str(), bytes(field(usage, "rss_peak_bytes")).c_str());
  }
  const double threads = run.contains("client_threads") ? field(run, "client_threads") : 1;
  std::fprintf(out, "  %-12s cpu %.2f s (kapi-bench itself, %.0f thread%s)\n", "client", field(run, "client_cpu_seconds"),
               threads, threads == 1 ? "" : "s");
  if (auto parts = run.find("parts"); parts != run.end()) {
    for (const auto& value : parts->value().as_array()) {
      const auto& part = value.as_object();
      const auto& latency = part.at("latency_ms").as_object();
      std::fprintf(out, "  %-12s %.1f/s  p50 %.2f  p99 %.2f  max %.2f ms  (%.0f ok, %.0f failed)\n",
                   part.at("name").as_string().c_str(), field(part, "throughput_per_s"), field(latency, "p50"),
                   field(latency, "p99"), field(latency, "max"), field(part, "successes"), field(part, "failures"));
    }
  }
  if (auto informers = run.find("informers"); informers != run.end()) {
    const auto& figures = informers->value().as_object();
    std::fprintf(out, "  %-12s %.0f of %.0f watching, %.0f events received\n", "informers",
                 field(figures, "established"), field(figures, "informers"), field(figures, "events"));
  }
  if (auto watch = run.find("watch"); watch != run.end()) {
    const auto& figures = watch->value().as_object();
    std::fprintf(out, "  %-12s %.0f of %.0f watchers established, %.0f events written, %.0f delivered, %.0f missing, "
                      "%.0f duplicated (missing: not delivered 5 s after the last write)",
                 "watch", field(figures, "established"), field(figures, "watchers"), field(figures, "events_written"),
                 field(figures, "deliveries"), field(figures, "missing"), field(figures, "duplicates"));
    if (run.contains("server"))
      std::fprintf(out, ", server %s per idle watcher", bytes(field(figures, "server_bytes_per_watcher")).c_str());
    std::fprintf(out, "\n");
    print_latency(out, "delivery", figures.at("delivery_latency_ms").as_object());
  }
}

}  // namespace kapi::bench
