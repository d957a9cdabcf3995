// robfig/cron/v3 parser.go (ParseStandard: Minute | Hour | Dom | Month | Dow | Descriptor), as vendored by kube 1.32
// for ValidateCronJobSpec; Go's time.LoadLocation and time.ParseDuration for the parts they play.
#include "server/apis/batch/cron_schedule.h"

#include "base/go_quote.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <map>
#include <vector>

namespace kapi::apis::batch {
namespace {

struct Bounds {
  unsigned min, max;
  const std::map<std::string, unsigned, std::less<>>* names;
};

const std::map<std::string, unsigned, std::less<>> kMonthNames{
    {"jan", 1}, {"feb", 2}, {"mar", 3}, {"apr", 4},  {"may", 5},  {"jun", 6},
    {"jul", 7}, {"aug", 8}, {"sep", 9}, {"oct", 10}, {"nov", 11}, {"dec", 12}};
const std::map<std::string, unsigned, std::less<>> kDayNames{{"sun", 0}, {"mon", 1}, {"tue", 2}, {"wed", 3},
                                                             {"thu", 4}, {"fri", 5}, {"sat", 6}};
const std::array<Bounds, 5> kFieldBounds{{{0, 59, nullptr}, {0, 23, nullptr}, {1, 31, nullptr}, {1, 12, &kMonthNames},
                                          {0, 6, &kDayNames}}};

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  for (;;) {
    std::size_t at = text.find(separator);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return parts;
    text.remove_prefix(at + 1);
  }
}

// strings.Fields: runs of ASCII white space separate fields.
std::vector<std::string> fields_of(std::string_view text) {
  std::vector<std::string> fields;
  std::string current;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!current.empty()) fields.push_back(std::move(current));
      current.clear();
    } else {
      current += c;
    }
  }
  if (!current.empty()) fields.push_back(std::move(current));
  return fields;
}

// mustParseInt: strconv.Atoi, then no negatives. Sets `error` and returns 0 on failure.
unsigned parse_int(std::string_view expr, std::optional<std::string>& error) {
  std::string_view digits = expr;
  bool negative = false;
  if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
    negative = digits[0] == '-';
    digits.remove_prefix(1);
  }
  long long value = 0;
  bool syntax_ok = !digits.empty() && std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
  bool in_range = true;
  if (syntax_ok) {
    auto [end, code] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    in_range = code == std::errc() && value <= INT64_MAX;
  }
  if (!syntax_ok || !in_range) {
    error = "failed to parse int from " + std::string(expr) + ": strconv.Atoi: parsing " + base::go_quote(expr) +
            (syntax_ok ? ": value out of range" : ": invalid syntax");
    return 0;
  }
  if (negative && value != 0) {
    error = "negative number (-" + std::to_string(value) + ") not allowed: " + std::string(expr);
    return 0;
  }
  return static_cast<unsigned>(std::min<long long>(value, UINT32_MAX));
}

unsigned parse_int_or_name(std::string_view expr, const Bounds& bounds, std::optional<std::string>& error) {
  if (bounds.names) {
    std::string lower(expr);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    if (auto it = bounds.names->find(lower); it != bounds.names->end()) return it->second;
  }
  return parse_int(expr, error);
}

// getRange: one comma-separated part of a field ("*", "5", "1-5", "*/15", "3/10", "mon-fri").
std::optional<std::string> range_error(std::string_view expr, const Bounds& bounds) {
  std::vector<std::string_view> range_and_step = split(expr, '/');
  std::vector<std::string_view> low_and_high = split(range_and_step[0], '-');
  const bool single = low_and_high.size() == 1;
  std::optional<std::string> error;
  unsigned start = 0, end = 0, step = 1;
  if (low_and_high[0] == "*" || low_and_high[0] == "?") {
    start = bounds.min;
    end = bounds.max;
  } else {
    start = parse_int_or_name(low_and_high[0], bounds, error);
    if (error) return error;
    if (low_and_high.size() == 1) {
      end = start;
    } else if (low_and_high.size() == 2) {
      end = parse_int_or_name(low_and_high[1], bounds, error);
      if (error) return error;
    } else {
      return "too many hyphens: " + std::string(expr);
    }
  }
  if (range_and_step.size() == 2) {
    step = parse_int(range_and_step[1], error);
    if (error) return error;
    if (single) end = bounds.max;  // "N/step" means "N-max/step"
  } else if (range_and_step.size() > 2) {
    return "too many slashes: " + std::string(expr);
  }
  if (start < bounds.min)
    return "beginning of range (" + std::to_string(start) + ") below minimum (" + std::to_string(bounds.min) +
           "): " + std::string(expr);
  if (end > bounds.max)
    return "end of range (" + std::to_string(end) + ") above maximum (" + std::to_string(bounds.max) +
           "): " + std::string(expr);
  if (start > end)
    return "beginning of range (" + std::to_string(start) + ") beyond end of range (" + std::to_string(end) +
           "): " + std::string(expr);
  if (step == 0) return "step of range should be a positive number: " + std::string(expr);
  return std::nullopt;
}

// time.ParseDuration's grammar: [-+]? then one or more decimal numbers each with a unit.
bool is_go_duration(std::string_view text) {
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) text.remove_prefix(1);
  if (text == "0") return true;
  if (text.empty()) return false;
  static const std::array<std::string_view, 7> kUnits{"ns", "us", "µs", "ms", "s", "m", "h"};
  while (!text.empty()) {
    std::size_t digits = 0, dot = 0;
    while (digits < text.size() && (std::isdigit(static_cast<unsigned char>(text[digits])) || text[digits] == '.')) {
      if (text[digits] == '.') ++dot;
      ++digits;
    }
    if (digits == 0 || dot > 1 || digits == dot) return false;
    text.remove_prefix(digits);
    std::string_view unit;
    for (std::string_view candidate : kUnits)
      if (text.substr(0, candidate.size()) == candidate && candidate.size() > unit.size()) unit = candidate;
    if (unit.empty()) return false;
    text.remove_prefix(unit.size());
  }
  return true;
}

// parseDescriptor: @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly and @every <duration>.
std::optional<std::string> descriptor_error(std::string_view descriptor) {
  for (std::string_view known : {"@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"})
    if (descriptor == known) return std::nullopt;
  constexpr std::string_view kEvery = "@every ";
  if (descriptor.substr(0, kEvery.size()) == kEvery) {
    std::string_view duration = descriptor.substr(kEvery.size());
    if (is_go_duration(duration)) return std::nullopt;
    return "failed to parse duration " + std::string(descriptor) + ": time: invalid duration " + base::go_quote(duration);
  }
  return "unrecognized descriptor: " + std::string(descriptor);
}

}  // namespace

std::optional<std::string> cron_schedule_error(std::string_view schedule) {
  if (schedule.empty()) return "empty spec string";
  std::string_view spec = schedule;
  if (spec.substr(0, 3) == "TZ=" || spec.substr(0, 8) == "CRON_TZ=") {
    std::size_t space = spec.find(' ');
    std::size_t equals = spec.find('=');
    std::string_view location = spec.substr(equals + 1, space == std::string_view::npos ? std::string_view::npos : space - equals - 1);
    if (auto error = time_zone_error(location)) return "provided bad location " + std::string(location) + ": " + *error;
    spec = space == std::string_view::npos ? std::string_view() : spec.substr(space);
    while (!spec.empty() && std::isspace(static_cast<unsigned char>(spec.front()))) spec.remove_prefix(1);
    while (!spec.empty() && std::isspace(static_cast<unsigned char>(spec.back()))) spec.remove_suffix(1);
  }
  if (!spec.empty() && spec.front() == '@') return descriptor_error(spec);
  std::vector<std::string> fields = fields_of(spec);
  if (fields.size() != kFieldBounds.size()) {
    std::string listed;
    for (const auto& field : fields) listed += (listed.empty() ? "" : " ") + field;
    return "expected exactly 5 fields, found " + std::to_string(fields.size()) + ": [" + listed + "]";
  }
  for (std::size_t i = 0; i < fields.size(); ++i)
    for (std::string_view part : split(fields[i], ','))
      if (auto error = range_error(part, kFieldBounds[i])) return error;
  return std::nullopt;
}

std::optional<std::string> time_zone_error(std::string_view name) {
  if (name.empty() || name == "UTC") return std::nullopt;
  const std::string unknown = "unknown time zone " + std::string(name);
  // LoadLocation refuses names that could leave the zoneinfo directory.
  if (name.front() == '/' || name.find("..") != std::string_view::npos || name.find('\\') != std::string_view::npos)
    return unknown;
  if (name == "Local") return std::nullopt;
  std::ifstream file(std::filesystem::path("/usr/share/zoneinfo") / std::string(name), std::ios::binary);
  char magic[4] = {};
  if (!file.read(magic, sizeof magic) || std::string_view(magic, sizeof magic) != "TZif") return unknown;
  return std::nullopt;
}

}  // namespace kapi::apis::batch
