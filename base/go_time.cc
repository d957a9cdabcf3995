#include "base/go_time.h"

#include <array>
#include <cstdio>
#include <limits>
#include <utility>

namespace kapi::base {
namespace {

constexpr std::int64_t kSecondsPerDay = 86400;

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
std::int64_t days_from_civil(std::int64_t year, unsigned month, unsigned day) {
  year -= month <= 2;
  const std::int64_t era = (year >= 0 ? year : year - 399) / 400;
  const auto year_of_era = static_cast<unsigned>(year - era * 400);
  const unsigned day_of_year = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
  const unsigned day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + static_cast<std::int64_t>(day_of_era) - 719468;
}

struct CivilTime {
  std::int64_t year;
  unsigned month;
  unsigned day;
  int hour;
  int minute;
  int second;
  unsigned weekday;  // 0 = Sunday
};

CivilTime civil_from_seconds(std::int64_t seconds) {
  std::int64_t days = seconds / kSecondsPerDay;
  std::int64_t of_day = seconds % kSecondsPerDay;
  if (of_day < 0) of_day += kSecondsPerDay, --days;
  // 1970-01-01 was a Thursday.
  const auto weekday = static_cast<unsigned>(((days % 7) + 11) % 7);
  days += 719468;
  const std::int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const auto day_of_era = static_cast<unsigned>(days - era * 146097);
  const unsigned year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  const unsigned day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const unsigned mp = (5 * day_of_year + 2) / 153;
  const unsigned day = day_of_year - (153 * mp + 2) / 5 + 1;
  const unsigned month = mp < 10 ? mp + 3 : mp - 9;
  return {static_cast<std::int64_t>(year_of_era) + era * 400 + (month <= 2), month, day,
          static_cast<int>(of_day / 3600), static_cast<int>(of_day / 60 % 60), static_cast<int>(of_day % 60),
          weekday};
}

unsigned days_in_month(std::int64_t year, unsigned month) {
  static constexpr std::array<unsigned, 12> kDays{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : kDays[month - 1];
}

// The number in text[at, at+width) when every character is a digit.
std::optional<unsigned> digits(std::string_view text, std::size_t at, std::size_t width) {
  if (at + width > text.size()) return std::nullopt;
  unsigned value = 0;
  for (std::size_t i = at; i < at + width; ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    value = value * 10 + static_cast<unsigned>(text[i] - '0');
  }
  return value;
}

void append_digits(std::string& out, unsigned value, int width) {
  char digits[4];
  for (int i = width - 1; i >= 0; --i, value /= 10) digits[i] = static_cast<char>('0' + value % 10);
  out.append(digits, static_cast<std::size_t>(width));
}

std::string format_time(std::int64_t seconds, const char* fraction) {
  const CivilTime t = civil_from_seconds(seconds);
  if (t.year < 0 || t.year > 9999) {
    // Go pads the year's digits, not its sign, to four: "-0001", "10000".
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%s%04lld-%02u-%02uT%02d:%02d:%02d%sZ", t.year < 0 ? "-" : "",
                  static_cast<long long>(t.year < 0 ? -t.year : t.year), t.month, t.day, t.hour, t.minute, t.second,
                  fraction);
    return buffer;
  }
  // Written by hand for the years every object has: each write formats a few times (snprintf's parsing showed up).
  std::string out;
  out.reserve(32);
  append_digits(out, static_cast<unsigned>(t.year), 4);
  out += '-';
  append_digits(out, t.month, 2);
  out += '-';
  append_digits(out, t.day, 2);
  out += 'T';
  append_digits(out, static_cast<unsigned>(t.hour), 2);
  out += ':';
  append_digits(out, static_cast<unsigned>(t.minute), 2);
  out += ':';
  append_digits(out, static_cast<unsigned>(t.second), 2);
  out += fraction;
  out += 'Z';
  return out;
}

}  // namespace

UnixTime unix_time(std::chrono::system_clock::time_point time) {
  const auto nanoseconds = std::chrono::duration_cast<std::chrono::nanoseconds>(time.time_since_epoch()).count();
  std::int64_t seconds = nanoseconds / 1'000'000'000;
  auto nanos = static_cast<std::int32_t>(nanoseconds % 1'000'000'000);
  if (nanos < 0) nanos += 1'000'000'000, --seconds;
  return {seconds, nanos};
}

namespace {

// The year at the start of `text` and where the "-01-02T..." after it begins: four digits, or with `any_year` as
// Go's Format writes any year (a sign before years below 0, at least four digits, more past 9999).
std::optional<std::pair<std::int64_t, std::size_t>> parse_year(std::string_view text, bool any_year) {
  if (!any_year) {
    auto year = digits(text, 0, 4);
    if (!year) return std::nullopt;
    return std::pair{static_cast<std::int64_t>(*year), std::size_t{4}};
  }
  const bool negative = text.starts_with('-');
  std::size_t end = negative ? 1 : 0;
  std::int64_t year = 0;
  // Go's times end in year 292277026596: twelve digits at most, so that no arithmetic below overflows.
  for (; end < text.size() && text[end] >= '0' && text[end] <= '9'; ++end) {
    if (end - negative >= 12) return std::nullopt;
    year = year * 10 + (text[end] - '0');
  }
  if (end - negative < 4) return std::nullopt;
  return std::pair{negative ? -year : year, end};
}

std::optional<UnixTime> parse_time(std::string_view text, bool any_year) {
  const auto year_end = parse_year(text, any_year);
  if (!year_end) return std::nullopt;
  const std::int64_t year = year_end->first;
  // -01-02T15:04:05
  text.remove_prefix(year_end->second);
  if (text.size() < 16 || text[0] != '-' || text[3] != '-' || text[6] != 'T' || text[9] != ':' || text[12] != ':')
    return std::nullopt;
  auto month = digits(text, 1, 2), day = digits(text, 4, 2);
  auto hour = digits(text, 7, 2), minute = digits(text, 10, 2), second = digits(text, 13, 2);
  if (!month || !day || !hour || !minute || !second) return std::nullopt;
  if (*month < 1 || *month > 12 || *day < 1 || *day > days_in_month(year, *month) || *hour > 23 || *minute > 59 ||
      *second > 59)
    return std::nullopt;
  std::size_t at = 15;
  std::int32_t nanos = 0;
  if (at < text.size() && (text[at] == '.' || text[at] == ',')) {
    std::size_t end = at + 1;
    while (end < text.size() && text[end] >= '0' && text[end] <= '9') ++end;
    if (end == at + 1) return std::nullopt;
    for (std::size_t i = at + 1, place = 0; place < 9; ++i, ++place)
      nanos = nanos * 10 + (i < end ? text[i] - '0' : 0);
    at = end;
  }
  std::int64_t offset = 0;
  std::string_view zone = text.substr(at);
  if (zone != "Z") {
    if (zone.size() != 6 || (zone[0] != '+' && zone[0] != '-') || zone[3] != ':') return std::nullopt;
    auto zone_hours = digits(zone, 1, 2), zone_minutes = digits(zone, 4, 2);
    if (!zone_hours || !zone_minutes || *zone_hours > 23 || *zone_minutes > 59) return std::nullopt;
    offset = static_cast<std::int64_t>(*zone_hours * 3600 + *zone_minutes * 60);
    if (zone[0] == '-') offset = -offset;
  }
  // Summed wider: the day's start may lie before int64's first second when the time itself does not. Past Go's
  // last second (or before its first) the time leaves int64: no time Go can hold.
  const __int128 seconds = static_cast<__int128>(days_from_civil(year, *month, *day)) * kSecondsPerDay +
                           (*hour * 3600 + *minute * 60 + *second) - offset;
  if (seconds < std::numeric_limits<std::int64_t>::min() || seconds > std::numeric_limits<std::int64_t>::max())
    return std::nullopt;
  return UnixTime{static_cast<std::int64_t>(seconds), nanos};
}

}  // namespace

std::optional<UnixTime> parse_rfc3339(std::string_view text) { return parse_time(text, false); }

std::optional<UnixTime> parse_formatted_time(std::string_view text) { return parse_time(text, true); }

std::string format_rfc3339(std::int64_t seconds) { return format_time(seconds, ""); }

std::string format_rfc3339_micro(UnixTime time) {
  char fraction[16];
  std::snprintf(fraction, sizeof fraction, ".%06d", static_cast<int>(time.nanos / 1000));
  return format_time(time.seconds, fraction);
}

std::string micro_time_now() { return format_rfc3339_micro(unix_time(std::chrono::system_clock::now())); }

std::string format_http_date(std::int64_t seconds) {
  static constexpr std::array<const char*, 7> kDays{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr std::array<const char*, 12> kMonths{"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const CivilTime t = civil_from_seconds(seconds);
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%s, %02u %s %04lld %02d:%02d:%02d GMT", kDays[t.weekday], t.day,
                kMonths[t.month - 1], static_cast<long long>(t.year), t.hour, t.minute, t.second);
  return buffer;
}

}  // namespace kapi::base
