// The HTML report: one self-contained page (no scripts, no external files) with a summary table and, per run, its
// latency distribution (against the "nines" of the quantile, so the tail gets the room) and its throughput over
// time (a dip or a stall shows at a glance).
#include "bench/report/report.h"

#include <boost/json.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

namespace kapi::bench {
namespace {

constexpr double kWidth = 480, kHeight = 220, kLeft = 56, kBottom = 32, kTop = 12, kRight = 12;

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

// A line chart of (x, y) points with axes from 0 to the maxima, the x ticks labelled by `x_label`.
struct Chart {
  std::string title, x_name, y_name;
  std::vector<std::pair<double, double>> points;
  std::vector<std::pair<double, std::string>> x_ticks;  // empty: five even ticks
};

std::string render_chart(const Chart& chart) {
  std::ostringstream svg;
  svg << "<svg xmlns='http://www.w3.org/2000/svg' width='" << kWidth << "' height='" << kHeight
      << "' font-family='sans-serif' font-size='10'>";
  svg << "<text x='" << kLeft << "' y='10' font-weight='bold'>" << escape(chart.title) << "</text>";
  const double plot_width = kWidth - kLeft - kRight, plot_height = kHeight - kTop - kBottom;
  double max_x = 0, max_y = 0;
  for (const auto& [x, y] : chart.points) {
    max_x = std::max(max_x, x);
    max_y = std::max(max_y, y);
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
  svg << "<polyline fill='none' stroke='#1f6fb2' stroke-width='1.8' points='";
  for (const auto& [x, y] : chart.points) svg << px(x) << "," << py(y) << " ";
  svg << "'/></svg>";
  return svg.str();
}

// Quantile q drawn at x = -log10(1 - q): 0.9 at 1, 0.99 at 2, 0.999 at 3; the maximum at 4.
Chart latency_chart(const std::string& title, const boost::json::array& distribution) {
  Chart chart{.title = title, .x_name = "quantile", .y_name = "latency ms"};
  for (const auto& point : distribution) {
    const auto& pair = point.as_array();
    const double q = number(pair[0]);
    chart.points.push_back({q >= 1.0 ? 4.0 : std::min(4.0, -std::log10(1.0 - q)), number(pair[1])});
  }
  chart.x_ticks = {{0, "p0"}, {std::log10(2.0), "p50"}, {1, "p90"}, {2, "p99"}, {3, "p99.9"}, {4, "max"}};
  return chart;
}

Chart throughput_chart(const boost::json::object& series) {
  Chart chart{.title = "throughput over time", .x_name = "seconds after warm-up", .y_name = "per second"};
  const double interval = field(series, "interval_s");
  const auto& values = series.at("per_s").as_array();
  for (std::size_t i = 0; i < values.size(); ++i)
    chart.points.push_back({static_cast<double>(i + 1) * interval, number(values[i])});
  return chart;
}

}  // namespace

std::string render_html(const std::vector<boost::json::object>& runs) {
  std::ostringstream html;
  html << "<!DOCTYPE html><html><head><meta charset='utf-8'><title>kapi-bench report</title><style>"
          "body{font-family:sans-serif;margin:24px;color:#222}table{border-collapse:collapse}"
          "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}td:nth-child(-n+3){text-align:left}"
          "section{margin-top:28px}h2{font-size:15px;margin-bottom:4px}.params{color:#666;font-size:12px}"
          "</style></head><body><h1>kapi-bench report</h1><table><tr><th>scenario</th><th>target</th>"
          "<th>parameters</th><th>per s</th><th>p50 ms</th><th>p99 ms</th><th>max ms</th><th>failed</th>"
          "<th>server cpu s</th><th>server peak RSS MiB</th></tr>";
  for (const auto& run : runs) {
    const auto& latency = run.at("latency_ms").as_object();
    html << "<tr><td>" << escape(run.at("scenario").as_string()) << "</td><td>" << escape(run.at("target").as_string())
         << "</td><td>" << escape(run.at("parameters").as_string()) << "</td><td>"
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
    html << "</tr>";
  }
  html << "</table>";
  for (const auto& run : runs) {
    html << "<section><h2>" << escape(run.at("scenario").as_string()) << " on " << escape(run.at("target").as_string())
         << "</h2><div class='params'>" << escape(run.at("parameters").as_string()) << "</div>";
    html << render_chart(latency_chart("latency distribution", run.at("latency_distribution_ms").as_array()));
    html << render_chart(throughput_chart(run.at("throughput_series").as_object()));
    if (auto watch = run.find("watch"); watch != run.end())
      html << render_chart(latency_chart("watch event delivery latency",
                                         watch->value().as_object().at("delivery_distribution_ms").as_array()));
    html << "</section>";
  }
  html << "</body></html>\n";
  return html.str();
}

}  // namespace kapi::bench
