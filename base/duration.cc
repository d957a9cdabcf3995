#include "base/duration.h"

#include <cstdint>

namespace kapi::base {
namespace {

std::optional<double> unit_nanoseconds(std::string_view unit) {
  if (unit == "ns") return 1.0;
  if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") return 1e3;
  if (unit == "ms") return 1e6;
  if (unit == "s") return 1e9;
  if (unit == "m") return 60e9;
  if (unit == "h") return 3600e9;
  return std::nullopt;
}

}  // namespace

std::optional<std::chrono::nanoseconds> parse_go_duration(std::string_view text) {
  bool negative = false;
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  if (text == "0") return std::chrono::nanoseconds(0);
  if (text.empty()) return std::nullopt;
  double total = 0;
  while (!text.empty()) {
    std::size_t i = 0;
    double value = 0;
    bool digits = false;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') value = value * 10 + (text[i++] - '0'), digits = true;
    if (i < text.size() && text[i] == '.') {
      ++i;
      double scale = 0.1;
      while (i < text.size() && text[i] >= '0' && text[i] <= '9') value += (text[i++] - '0') * scale, scale /= 10, digits = true;
    }
    if (!digits) return std::nullopt;
    std::size_t unit_start = i;
    while (i < text.size() && !(text[i] >= '0' && text[i] <= '9') && text[i] != '.') ++i;
    auto unit = unit_nanoseconds(text.substr(unit_start, i - unit_start));
    if (!unit) return std::nullopt;
    total += value * *unit;
    if (total > 9.2e18) return std::nullopt;
    text.remove_prefix(i);
  }
  auto ns = static_cast<std::int64_t>(total);
  return std::chrono::nanoseconds(negative ? -ns : ns);
}

std::string format_go_duration(std::chrono::nanoseconds duration) {
  using namespace std::chrono;
  auto ns = duration.count();
  if (ns == 0) return "0s";
  std::string sign = ns < 0 ? "-" : "";
  if (ns < 0) ns = -ns;
  if (ns < 1'000'000'000) {
    if (ns % 1'000'000 == 0) return sign + std::to_string(ns / 1'000'000) + "ms";
    if (ns % 1'000 == 0) return sign + std::to_string(ns / 1'000) + "\xC2\xB5s";
    return sign + std::to_string(ns) + "ns";
  }
  std::int64_t hours = ns / 3'600'000'000'000;
  std::int64_t minutes = ns / 60'000'000'000 % 60;
  double seconds = static_cast<double>(ns % 60'000'000'000) / 1e9;
  std::string out = sign;
  if (hours) out += std::to_string(hours) + "h";
  if (hours || minutes) out += std::to_string(minutes) + "m";
  std::string secs = std::to_string(seconds);
  while (secs.find('.') != std::string::npos && (secs.back() == '0' || secs.back() == '.')) {
    bool dot = secs.back() == '.';
    secs.pop_back();
    if (dot) break;
  }
  return out + secs + "s";
}

}  // namespace kapi::base
