#pragma once
// A run's figures as JSON (the one form every output is made from, so `kapi-bench report` can redraw saved runs),
// as a block of text for the terminal, and as a self-contained HTML page with inline SVG charts.
#include "bench/scenarios/scenario.h"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::bench {

// A figure of a run's JSON as a double: 0 when absent or not a number (saved runs may predate a figure).
inline double number(const boost::json::value& value) {
  boost::system::error_code error;
  const double number = value.to_number<double>(error);
  return error ? 0.0 : number;
}
inline double field(const boost::json::object& object, std::string_view key) {
  const boost::json::value* value = object.if_contains(key);
  return value ? number(*value) : 0.0;
}

boost::json::object to_json(const ScenarioResult& result);

void print_text(std::FILE* out, const boost::json::object& run);

// One page; each run (named by its "name") gets its latency distribution, its throughput over time and its latency
// over time. `suite`, when given, is run-suite's table.json: {"title", "rows": [{"figure", "kapi", "baseline",
// "ratio", "goal", "verdict": "met" | "missed" | "", "harness"}], "pairs": [[run, its baseline], ...]}; the page
// leads with its rows, and a paired run's charts draw its baseline in the same axes.
std::string render_html(const std::vector<boost::json::object>& runs, const boost::json::object* suite = nullptr);

}  // namespace kapi::bench
