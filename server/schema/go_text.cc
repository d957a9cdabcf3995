#include "server/schema/go_text.h"

#include <array>
#include <cstdio>

namespace kapi::schema {
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

struct CivilDate {
  std::int64_t year;
  unsigned month;
  unsigned day;
};

CivilDate civil_from_days(std::int64_t days) {
  days += 719468;
  const std::int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const auto day_of_era = static_cast<unsigned>(days - era * 146097);
  const unsigned year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  const unsigned day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const unsigned mp = (5 * day_of_year + 2) / 153;
  const unsigned day = day_of_year - (153 * mp + 2) / 5 + 1;
  const unsigned month = mp < 10 ? mp + 3 : mp - 9;
  return {static_cast<std::int64_t>(year_of_era) + era * 400 + (month <= 2), month, day};
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

std::string format_time(std::int64_t seconds, const char* fraction) {
  std::int64_t days = seconds / kSecondsPerDay;
  std::int64_t of_day = seconds % kSecondsPerDay;
  if (of_day < 0) of_day += kSecondsPerDay, --days;
  const CivilDate date = civil_from_days(days);
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%04lld-%02u-%02uT%02d:%02d:%02d%sZ", static_cast<long long>(date.year),
                date.month, date.day, static_cast<int>(of_day / 3600), static_cast<int>(of_day / 60 % 60),
                static_cast<int>(of_day % 60), fraction);
  return buffer;
}

// Go's unitMap, in nanoseconds.
std::optional<std::uint64_t> duration_unit(std::string_view unit) {
  if (unit == "ns") return 1;
  if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") return 1'000;
  if (unit == "ms") return 1'000'000;
  if (unit == "s") return 1'000'000'000;
  if (unit == "m") return 60'000'000'000;
  if (unit == "h") return 3'600'000'000'000;
  return std::nullopt;
}

// fmtFrac: the fraction v/10^precision as ".123" without trailing zeros (nothing when it is zero), prepended to out.
std::uint64_t prepend_fraction(std::string& out, std::uint64_t value, int precision) {
  bool print = false;
  std::string fraction;
  for (int i = 0; i < precision; ++i) {
    const auto digit = static_cast<char>('0' + value % 10);
    print = print || digit != '0';
    if (print) fraction.insert(fraction.begin(), digit);
    value /= 10;
  }
  if (print) out.insert(0, "." + fraction);
  return value;
}

}  // namespace

std::optional<UnixTime> parse_rfc3339(std::string_view text) {
  // 2006-01-02T15:04:05
  if (text.size() < 20 || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' || text[16] != ':')
    return std::nullopt;
  auto year = digits(text, 0, 4), month = digits(text, 5, 2), day = digits(text, 8, 2);
  auto hour = digits(text, 11, 2), minute = digits(text, 14, 2), second = digits(text, 17, 2);
  if (!year || !month || !day || !hour || !minute || !second) return std::nullopt;
  if (*month < 1 || *month > 12 || *day < 1 || *day > days_in_month(*year, *month) || *hour > 23 || *minute > 59 ||
      *second > 59)
    return std::nullopt;
  std::size_t at = 19;
  std::int32_t nanos = 0;
  if (text[at] == '.' || text[at] == ',') {
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
  const std::int64_t seconds = days_from_civil(*year, *month, *day) * kSecondsPerDay +
                               static_cast<std::int64_t>(*hour * 3600 + *minute * 60 + *second) - offset;
  return UnixTime{seconds, nanos};
}

std::string format_rfc3339(std::int64_t seconds) { return format_time(seconds, ""); }

std::string format_rfc3339_micro(UnixTime time) {
  char fraction[16];
  std::snprintf(fraction, sizeof fraction, ".%06d", static_cast<int>(time.nanos / 1000));
  return format_time(time.seconds, fraction);
}

std::optional<std::int64_t> parse_go_duration(std::string_view text) {
  constexpr std::uint64_t kLimit = std::uint64_t{1} << 63;
  bool negative = false;
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  if (text == "0") return 0;
  if (text.empty()) return std::nullopt;
  std::uint64_t total = 0;
  const auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  while (!text.empty()) {
    if (text.front() != '.' && !is_digit(text.front())) return std::nullopt;
    std::uint64_t whole = 0;
    std::size_t i = 0;
    for (; i < text.size() && is_digit(text[i]); ++i) {
      if (whole > (kLimit - 1) / 10) return std::nullopt;
      whole = whole * 10 + static_cast<std::uint64_t>(text[i] - '0');
      if (whole > kLimit) return std::nullopt;
    }
    const bool before_point = i > 0;
    std::uint64_t fraction = 0;
    double scale = 1;
    bool after_point = false;
    if (i < text.size() && text[i] == '.') {
      bool overflow = false;
      for (++i; i < text.size() && is_digit(text[i]); ++i) {
        after_point = true;
        if (overflow || fraction > (kLimit - 1) / 10) {
          overflow = true;
          continue;
        }
        fraction = fraction * 10 + static_cast<std::uint64_t>(text[i] - '0');
        scale *= 10;
      }
    }
    if (!before_point && !after_point) return std::nullopt;
    std::size_t unit_end = i;
    while (unit_end < text.size() && text[unit_end] != '.' && !is_digit(text[unit_end])) ++unit_end;
    auto unit = duration_unit(text.substr(i, unit_end - i));
    if (!unit) return std::nullopt;
    if (whole > kLimit / *unit) return std::nullopt;
    whole *= *unit;
    if (fraction > 0) {
      whole += static_cast<std::uint64_t>(static_cast<double>(fraction) * (static_cast<double>(*unit) / scale));
      if (whole > kLimit) return std::nullopt;
    }
    total += whole;
    if (total > kLimit) return std::nullopt;
    text.remove_prefix(unit_end);
  }
  if (negative) return static_cast<std::int64_t>(0 - total);
  if (total > kLimit - 1) return std::nullopt;
  return static_cast<std::int64_t>(total);
}

std::string format_go_duration(std::int64_t nanoseconds) {
  const bool negative = nanoseconds < 0;
  std::uint64_t value = negative ? 0 - static_cast<std::uint64_t>(nanoseconds) : static_cast<std::uint64_t>(nanoseconds);
  std::string out;
  if (value < 1'000'000'000) {
    if (value == 0) return "0s";
    const char* unit = value < 1'000 ? "ns" : value < 1'000'000 ? "\xC2\xB5s" : "ms";
    const int precision = value < 1'000 ? 0 : value < 1'000'000 ? 3 : 6;
    out = unit;
    value = prepend_fraction(out, value, precision);
    out.insert(0, std::to_string(value));
  } else {
    out = "s";
    value = prepend_fraction(out, value, 9);
    out.insert(0, std::to_string(value % 60));
    value /= 60;
    if (value > 0) {
      out.insert(0, std::to_string(value % 60) + "m");
      value /= 60;
      if (value > 0) out.insert(0, std::to_string(value) + "h");
    }
  }
  if (negative) out.insert(0, "-");
  return out;
}

}  // namespace kapi::schema
