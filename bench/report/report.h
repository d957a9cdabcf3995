#pragma once
// A run's figures as JSON (the one form every output is made from, so `kapi-bench report` can redraw saved runs),
// as a block of text for the terminal, and as a self-contained HTML page with inline SVG charts.
#include "bench/scenarios/scenario.h"

#include <boost/json/object.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace kapi::bench {

boost::json::object to_json(const ScenarioResult& result);

void print_text(std::FILE* out, const boost::json::object& run);

// One page; each run gets its latency distribution and its throughput over time.
std::string render_html(const std::vector<boost::json::object>& runs);

}  // namespace kapi::bench
