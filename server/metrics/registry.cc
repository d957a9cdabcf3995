#include "server/metrics/registry.h"

#include <cmath>
#include <cstdio>

namespace kapi::metrics {
namespace {

std::string escape_label(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"') out.push_back('\\');
    if (c == '\n') {
      out.append("\\n");
      continue;
    }
    out.push_back(c);
  }
  return out;
}

std::string format_number(double value) {
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return buffer;
}

std::string label_set(const std::vector<std::string>& names, const Labels& values, const std::string& extra = {}) {
  if (names.empty() && extra.empty()) return {};
  std::string out = "{";
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i) out.push_back(',');
    out.append(names[i]).append("=\"").append(escape_label(i < values.size() ? values[i] : "")).append("\"");
  }
  if (!extra.empty()) {
    if (!names.empty()) out.push_back(',');
    out.append(extra);
  }
  out.push_back('}');
  return out;
}

void header(std::string& out, const std::string& name, const std::string& help, const char* type) {
  out.append("# HELP ").append(name).append(" ").append(help).append("\n");
  out.append("# TYPE ").append(name).append(" ").append(type).append("\n");
}

}  // namespace

CounterFamily::CounterFamily(std::string name, std::string help, std::vector<std::string> label_names)
    : name_(std::move(name)), help_(std::move(help)), label_names_(std::move(label_names)) {}

void CounterFamily::inc(const Labels& labels, double by) {
  std::lock_guard lock(mutex_);
  values_[labels] += by;
}

double CounterFamily::value(const Labels& labels) const {
  std::lock_guard lock(mutex_);
  auto it = values_.find(labels);
  return it == values_.end() ? 0 : it->second;
}

void CounterFamily::render(std::string& out) const {
  std::lock_guard lock(mutex_);
  header(out, name_, help_, "counter");
  for (const auto& [labels, value] : values_)
    out.append(name_).append(label_set(label_names_, labels)).append(" ").append(format_number(value)).append("\n");
}

GaugeFamily::GaugeFamily(std::string name, std::string help, std::vector<std::string> label_names)
    : name_(std::move(name)), help_(std::move(help)), label_names_(std::move(label_names)) {}

void GaugeFamily::set(const Labels& labels, double value) {
  std::lock_guard lock(mutex_);
  values_[labels] = value;
}

void GaugeFamily::add(const Labels& labels, double delta) {
  std::lock_guard lock(mutex_);
  values_[labels] += delta;
}

double GaugeFamily::value(const Labels& labels) const {
  std::lock_guard lock(mutex_);
  auto it = values_.find(labels);
  return it == values_.end() ? 0 : it->second;
}

void GaugeFamily::render(std::string& out) const {
  std::lock_guard lock(mutex_);
  header(out, name_, help_, "gauge");
  for (const auto& [labels, value] : values_)
    out.append(name_).append(label_set(label_names_, labels)).append(" ").append(format_number(value)).append("\n");
}

HistogramFamily::HistogramFamily(std::string name, std::string help, std::vector<std::string> label_names,
                                 std::vector<double> buckets)
    : name_(std::move(name)), help_(std::move(help)), label_names_(std::move(label_names)),
      buckets_(std::move(buckets)) {}

void HistogramFamily::observe(const Labels& labels, double value) {
  std::lock_guard lock(mutex_);
  auto& series = series_[labels];
  if (series.bucket_counts.empty()) series.bucket_counts.assign(buckets_.size(), 0);
  for (std::size_t i = 0; i < buckets_.size(); ++i)
    if (value <= buckets_[i]) ++series.bucket_counts[i];
  series.sum += value;
  ++series.count;
}

std::uint64_t HistogramFamily::count(const Labels& labels) const {
  std::lock_guard lock(mutex_);
  auto it = series_.find(labels);
  return it == series_.end() ? 0 : it->second.count;
}

void HistogramFamily::render(std::string& out) const {
  std::lock_guard lock(mutex_);
  header(out, name_, help_, "histogram");
  for (const auto& [labels, series] : series_) {
    for (std::size_t i = 0; i < buckets_.size(); ++i)
      out.append(name_).append("_bucket")
          .append(label_set(label_names_, labels, "le=\"" + format_number(buckets_[i]) + "\""))
          .append(" ").append(std::to_string(series.bucket_counts[i])).append("\n");
    out.append(name_).append("_bucket").append(label_set(label_names_, labels, "le=\"+Inf\""))
        .append(" ").append(std::to_string(series.count)).append("\n");
    out.append(name_).append("_sum").append(label_set(label_names_, labels)).append(" ")
        .append(format_number(series.sum)).append("\n");
    out.append(name_).append("_count").append(label_set(label_names_, labels)).append(" ")
        .append(std::to_string(series.count)).append("\n");
  }
}

Registry::Registry()
    : request_total("apiserver_request_total",
                    "[STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, "
                    "resource, scope, component, and HTTP response code.",
                    {"code", "component", "dry_run", "group", "resource", "scope", "subresource", "verb", "version"}),
      request_duration("apiserver_request_duration_seconds",
                       "[STABLE] Response latency distribution in seconds for each verb, dry run value, group, "
                       "version, resource, subresource, scope and component.",
                       {"component", "dry_run", "group", "resource", "scope", "subresource", "verb", "version"},
                       {0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20,
                        30, 45, 60}),
      current_inflight("apiserver_current_inflight_requests",
                       "[STABLE] Maximal number of currently used inflight request limit of this apiserver per "
                       "request kind in last second.",
                       {"request_kind"}),
      filter_duration("apiserver_request_filter_duration_seconds",
                      "[ALPHA] Request filter latency distribution in seconds, for each filter type",
                      {"filter"}, {0.0001, 0.0003, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 5.0, 10.0, 15.0, 30.0}),
      dropped_requests("apiserver_dropped_requests_total",
                       "[ALPHA] Number of requests dropped with 'Try again later' response.", {"request_kind"}),
      request_terminations("apiserver_request_terminations_total",
                           "[ALPHA] Number of requests which apiserver terminated in self-defense.",
                           {"code", "component", "group", "resource", "scope", "subresource", "verb", "version"}),
      panics("apiserver_request_aborts_total",
             "[ALPHA] Number of requests which apiserver aborted possibly due to a timeout, for each group, version, "
             "verb, resource, subresource and scope",
             {"group", "resource", "scope", "subresource", "verb", "version"}),
      audit_events("apiserver_audit_event_total",
                   "[ALPHA] Counter of audit events generated and sent to the audit backend.", {}),
      audit_errors("apiserver_audit_error_total",
                   "[ALPHA] Counter of audit events that failed to be audited properly. Plugin identifies the plugin "
                   "affected by the error.",
                   {"plugin"}),
      audit_levels("apiserver_audit_level_total",
                   "[ALPHA] Counter of policy levels for audit events (1 per request).", {"level"}) {
  current_inflight.set({"mutating"}, 0);
  current_inflight.set({"readOnly"}, 0);
}

std::string Registry::render() const {
  std::string out;
  request_total.render(out);
  request_duration.render(out);
  current_inflight.render(out);
  filter_duration.render(out);
  dropped_requests.render(out);
  request_terminations.render(out);
  panics.render(out);
  audit_events.render(out);
  audit_errors.render(out);
  audit_levels.render(out);
  return out;
}

}  // namespace kapi::metrics
