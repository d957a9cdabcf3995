// The HTML report: one self-contained page (no scripts, no external files). A suite's page leads with its figures
// against their goals (met or missed), then every run by name; each run's charts draw it beside its baseline from
// the same suite (kapi's GET beside nginx's, its creates beside etcd's own Txn): its latency distribution (against
// the "nines" of the quantile, so the tail gets the room), its throughput over time (a dip or a stall shows at a
// glance) and its latency over time (p50 and p99 second by second; for a watch, of the deliveries).
#include "bench/report/report.h"

#include <boost/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>

namespace kapi::bench {
namespace {

constexpr double kWidth = 480, kHeight = 220, kLeft = 56, kBottom = 32, kTop = 22, kRight = 12;
constexpr const char* kColors[] = {"#1f6fb2", "#d9730d", "#2e8540", "#8e44ad"};
constexpr double kGap = std::numeric_limits<double>::quiet_NaN();  // no sample there: the line breaks

std::string escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

std::string format(double value, int decimals = 2) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

std::string text_of(const boost::json::object& object, std::string_view key) {
  const boost::json::value* value = object.if_contains(key);
  return value && value->is_string() ? std::string(value->as_string()) : std::string();
}

struct Series {
  std::string name;
  std::vector<std::pair<double, double>> points;  // y may be kGap
};

// A line chart of one or more series with axes from 0 to the maxima, the x ticks labelled by `x_ticks`.
struct Chart {
  std::string title, x_name, y_name;
  std::vector<Series> series;
  std::vector<std::pair<double, std::string>> x_ticks;  // empty: five even ticks
};

std::string render_chart(const Chart& chart) {
  std::ostringstream svg;
  svg << "<svg xmlns='http://www.w3.org/2000/svg' width='" << kWidth << "' height='" << kHeight
      << "' font-family='sans-serif' font-size='10'>";
  svg << "<text x='" << kLeft << "' y='10' font-weight='bold'>" << escape(chart.title) << "</text>";
  const double plot_width = kWidth - kLeft - kRight, plot_height = kHeight - kTop - kBottom;
  double max_x = 0, max_y = 0;
  for (const auto& series : chart.series)
    for (const auto& [x, y] : series.points) {
      max_x = std::max(max_x, x);
      if (!std::isnan(y)) max_y = std::max(max_y, y);
    }
  if (max_x <= 0) max_x = 1;
  if (max_y <= 0) max_y = 1;
  max_y *= 1.1;
  auto px = [&](double x) { return kLeft + x / max_x * plot_width; };
  auto py = [&](double y) { return kTop + plot_height - y / max_y * plot_height; };
  svg << "<rect x='" << kLeft << "' y='" << kTop << "' width='" << plot_width << "' height='" << plot_height
      << "' fill='#fafafa' stroke='#ccc'/>";
  for (int i = 0; i <= 4; ++i) {
    const double y = max_y * i / 4;
    svg << "<line x1='" << kLeft << "' x2='" << kLeft + plot_width << "' y1='" << py(y) << "' y2='" << py(y)
        << "' stroke='#e4e4e4'/><text x='" << kLeft - 4 << "' y='" << py(y) + 3 << "' text-anchor='end'>"
        << format(y, y < 10 ? 2 : 0) << "</text>";
  }
  auto ticks = chart.x_ticks;
  if (ticks.empty())
    for (int i = 0; i <= 4; ++i) ticks.push_back({max_x * i / 4, format(max_x * i / 4, 1)});
  for (const auto& [x, label] : ticks)
    svg << "<text x='" << px(x) << "' y='" << kTop + plot_height + 12 << "' text-anchor='middle'>" << escape(label)
        << "</text>";
  svg << "<text x='" << kLeft + plot_width / 2 << "' y='" << kHeight - 4 << "' text-anchor='middle'>"
      << escape(chart.x_name) << "</text>";
  svg << "<text x='10' y='" << kTop + plot_height / 2 << "' transform='rotate(-90 10 " << kTop + plot_height / 2
      << ")' text-anchor='middle'>" << escape(chart.y_name) << "</text>";
  double legend_x = kLeft + plot_width;
  for (std::size_t s = chart.series.size(); s-- > 0;) {
    const auto& series = chart.series[s];
    const char* color = kColors[s % std::size(kColors)];
    // Lines broken where a sample is missing; a lone point is drawn as a dot.
    std::vector<std::vector<std::pair<double, double>>> runs(1);
    for (const auto& point : series.points) {
      if (std::isnan(point.second)) {
        if (!runs.back().empty()) runs.emplace_back();
      } else {
        runs.back().push_back(point);
      }
    }
    for (const auto& run : runs) {
      if (run.size() == 1) {
        svg << "<circle cx='" << px(run[0].first) << "' cy='" << py(run[0].second) << "' r='1.8' fill='" << color
            << "'/>";
      } else if (run.size() > 1) {
        svg << "<polyline fill='none' stroke='" << color << "' stroke-width='1.8' points='";
        for (const auto& [x, y] : run) svg << px(x) << "," << py(y) << " ";
        svg << "'/>";
      }
    }
    if (chart.series.size() > 1 || !series.name.empty()) {
      legend_x -= 7.0 * static_cast<double>(series.name.size()) + 22;
      svg << "<rect x='" << legend_x << "' y='" << kTop - 9 << "' width='10' height='3' fill='" << color
          << "'/><text x='" << legend_x + 13 << "' y='" << kTop - 5 << "'>" << escape(series.name) << "</text>";
    }
  }
  svg << "</svg>";
  return svg.str();
}

// Quantile q drawn at x = -log10(1 - q): 0.9 at 1, 0.99 at 2, 0.999 at 3; the maximum at 4.
Series distribution_series(std::string name, const boost::json::array& distribution) {
  Series series{.name = std::move(name), .points = {}};
  for (const auto& point : distribution) {
    const auto& pair = point.as_array();
    const double q = number(pair[0]);
    series.points.push_back({q >= 1.0 ? 4.0 : std::min(4.0, -std::log10(1.0 - q)), number(pair[1])});
  }
  return series;
}

Series throughput_series(std::string name, const boost::json::object& run) {
  Series series{.name = std::move(name), .points = {}};
  const auto* throughput = run.if_contains("throughput_series");
  if (!throughput) return series;
  const double interval = field(throughput->as_object(), "interval_s");
  const auto& values = throughput->as_object().at("per_s").as_array();
  for (std::size_t i = 0; i < values.size(); ++i)
    series.points.push_back({static_cast<double>(i + 1) * interval, number(values[i])});
  return series;
}

// One quantile ("p50", "p99") of a per-second latency series; null seconds are gaps.
Series over_time_series(std::string name, const boost::json::object& latency_series, std::string_view quantile) {
  Series series{.name = std::move(name), .points = {}};
  const double interval = field(latency_series, "interval_s");
  const auto* values = latency_series.if_contains(quantile);
  if (!values) return series;
  const auto& array = values->as_array();
  for (std::size_t i = 0; i < array.size(); ++i)
    series.points.push_back({static_cast<double>(i + 1) * interval, array[i].is_null() ? kGap : number(array[i])});
  return series;
}

const std::vector<std::pair<double, std::string>> kQuantileTicks = {
    {0, "p0"}, {std::log10(2.0), "p50"}, {1, "p90"}, {2, "p99"}, {3, "p99.9"}, {4, "max"}};

// The charts of one run and, when it has one, its baseline's drawn in the same axes.
std::string render_charts(const boost::json::object& run, const boost::json::object* baseline) {
  const std::string name = text_of(run, "name");
  const std::string base_name = baseline ? text_of(*baseline, "name") : "";
  std::ostringstream html;
  Chart latency{.title = "latency distribution", .x_name = "quantile", .y_name = "latency ms", .series = {},
                .x_ticks = kQuantileTicks};
  latency.series.push_back(distribution_series(name, run.at("latency_distribution_ms").as_array()));
  if (baseline)
    latency.series.push_back(distribution_series(base_name, baseline->at("latency_distribution_ms").as_array()));
  html << render_chart(latency);

  Chart throughput{.title = "throughput over time", .x_name = "seconds after warm-up", .y_name = "per second",
                   .series = {throughput_series(name, run)}, .x_ticks = {}};
  if (baseline) throughput.series.push_back(throughput_series(base_name, *baseline));
  html << render_chart(throughput);

  auto over_time = [&](const std::string& title, const boost::json::object& series) {
    Chart chart{.title = title, .x_name = "seconds after warm-up", .y_name = "latency ms",
                .series = {over_time_series("p50", series, "p50"), over_time_series("p99", series, "p99")},
                .x_ticks = {}};
    return render_chart(chart);
  };
  if (const auto* series = run.if_contains("latency_series_ms"))
    html << over_time("latency over time", series->as_object());
  if (const auto* watch = run.if_contains("watch")) {
    const auto& figures = watch->as_object();
    Chart delivery{.title = "watch event delivery latency", .x_name = "quantile", .y_name = "latency ms",
                   .series = {distribution_series(name, figures.at("delivery_distribution_ms").as_array())},
                   .x_ticks = kQuantileTicks};
    html << render_chart(delivery);
    if (const auto* series = figures.if_contains("delivery_series_ms"))
      html << over_time("watch delivery latency over time", series->as_object());
  }
  return html.str();
}

void render_suite_table(std::ostringstream& html, const boost::json::object& suite) {
  html << "<h2>" << escape(text_of(suite, "title")) << "</h2><table><tr><th>figure</th><th>kapi</th>"
       << "<th>baseline (same run)</th><th>ratio</th><th>goal</th><th></th><th>harness CPU</th></tr>";
  for (const auto& row_value : suite.at("rows").as_array()) {
    const auto& row = row_value.as_object();
    const std::string verdict = text_of(row, "verdict");
    html << "<tr class='" << (verdict.empty() ? "info" : verdict) << "'>";
    for (const char* column : {"figure", "kapi", "baseline", "ratio", "goal", "verdict", "harness"})
      html << "<td>" << escape(text_of(row, column)) << "</td>";
    html << "</tr>";
  }
  html << "</table><div class='params'>harness CPU: kapi-bench's CPU over its one thread's time in the row's runs "
          "(the largest); (!) over half, where the harness may be what limits the figure</div>";
}

void render_runs_table(std::ostringstream& html, const std::vector<boost::json::object>& runs) {
  html << "<h2>Runs</h2><table><tr><th>run</th><th>scenario</th><th>target</th><th>parameters</th><th>per s</th>"
          "<th>p50 ms</th><th>p99 ms</th><th>max ms</th><th>failed</th><th>server cpu s</th>"
          "<th>server peak RSS MiB</th><th>kapi-bench cpu s</th></tr>";
  for (const auto& run : runs) {
    const auto& latency = run.at("latency_ms").as_object();
    html << "<tr><td><a href='#" << escape(text_of(run, "name")) << "'>" << escape(text_of(run, "name"))
         << "</a></td><td>" << escape(text_of(run, "scenario")) << "</td><td>" << escape(text_of(run, "target"))
         << "</td><td>" << escape(text_of(run, "parameters")) << "</td><td>"
         << format(field(run, "throughput_per_s"), 1) << "</td><td>" << format(field(latency, "p50")) << "</td><td>"
         << format(field(latency, "p99")) << "</td><td>" << format(field(latency, "max")) << "</td><td>"
         << format(field(run, "failures"), 0) << "</td>";
    if (auto server = run.find("server"); server != run.end()) {
      const auto& usage = server->value().as_object();
      html << "<td>" << format(field(usage, "cpu_seconds")) << "</td><td>"
           << format(field(usage, "rss_peak_bytes") / 1048576.0, 1) << "</td>";
    } else {
      html << "<td></td><td></td>";
    }
    html << "<td>" << format(field(run, "client_cpu_seconds")) << "</td></tr>";
  }
  html << "</table>";
}

}  // namespace

std::string render_html(const std::vector<boost::json::object>& runs, const boost::json::object* suite) {
  std::ostringstream html;
  html << "<!DOCTYPE html><html><head><meta charset='utf-8'><title>kapi-bench report</title><style>"
          "body{font-family:sans-serif;margin:24px;color:#222}table{border-collapse:collapse;margin-bottom:16px}"
          "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}td:first-child{text-align:left}"
          "tr.met td:nth-child(6){color:#2e8540;font-weight:bold}tr.missed td:nth-child(6){color:#c0392b;"
          "font-weight:bold}tr.info{color:#666}section{margin-top:28px}h2{font-size:15px;margin-bottom:4px}"
          ".params{color:#666;font-size:12px}</style></head><body><h1>kapi-bench report</h1>";
  if (suite) render_suite_table(html, *suite);
  render_runs_table(html, runs);

  std::map<std::string, const boost::json::object*> by_name;
  for (const auto& run : runs) by_name[text_of(run, "name")] = &run;
  // run → its baseline, from the suite's pairs; a run that is only someone's baseline gets no section of its own.
  std::map<std::string, std::string> baseline_of;
  std::set<std::string> baselines;
  if (suite)
    if (const auto* pairs = suite->if_contains("pairs"))
      for (const auto& pair : pairs->as_array()) {
        const auto& names = pair.as_array();
        const std::string run(names.at(0).as_string()), base(names.at(1).as_string());
        if (by_name.count(run) && by_name.count(base)) {
          baseline_of[run] = base;
          baselines.insert(base);
        }
      }
  for (const auto& run : runs) {
    const std::string name = text_of(run, "name");
    auto base = baseline_of.find(name);
    if (base == baseline_of.end() && baselines.count(name)) continue;
    const boost::json::object* baseline = base == baseline_of.end() ? nullptr : by_name[base->second];
    html << "<section id='" << escape(name) << "'><h2>" << escape(name)
         << (baseline ? " beside " + escape(base->second) : "") << "</h2><div class='params'>"
         << escape(text_of(run, "scenario")) << " on " << escape(text_of(run, "target")) << ": "
         << escape(text_of(run, "parameters")) << "</div>";
    html << render_charts(run, baseline) << "</section>";
  }
  html << "</body></html>\n";
  return html.str();
}

}  // namespace kapi::bench
