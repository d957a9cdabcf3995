#include "base/go_time.h"

#include "base/utf8.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <limits>
#include <span>

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

namespace {

// Go's time.Parse for metav1's two layouts: the layout as the chunks Go's nextStdChunk splits it into, each a
// literal prefix and one value element, walked as Go's parse walks them so that what it accepts and the error it
// gives are Go's.
enum class Element { kYear, kMonth, kDay, kHour, kMinute, kSecond, kFraction6, kZone, kEnd };

struct Chunk {
  std::string_view prefix;
  Element element;
  std::string_view spelled;  // the element as the layout writes it, which Go's error names
};

constexpr std::string_view kRfc3339Layout = "2006-01-02T15:04:05Z07:00";
constexpr std::array<Chunk, 8> kRfc3339Chunks{{{"", Element::kYear, "2006"},
                                               {"-", Element::kMonth, "01"},
                                               {"-", Element::kDay, "02"},
                                               {"T", Element::kHour, "15"},
                                               {":", Element::kMinute, "04"},
                                               {":", Element::kSecond, "05"},
                                               {"", Element::kZone, "Z07:00"},
                                               {"", Element::kEnd, ""}}};
constexpr std::string_view kRfc3339MicroLayout = "2006-01-02T15:04:05.000000Z07:00";
constexpr std::array<Chunk, 9> kRfc3339MicroChunks{{{"", Element::kYear, "2006"},
                                                    {"-", Element::kMonth, "01"},
                                                    {"-", Element::kDay, "02"},
                                                    {"T", Element::kHour, "15"},
                                                    {":", Element::kMinute, "04"},
                                                    {":", Element::kSecond, "05"},
                                                    {"", Element::kFraction6, ".000000"},
                                                    {"", Element::kZone, "Z07:00"},
                                                    {"", Element::kEnd, ""}}};

bool is_digit(std::string_view text, std::size_t at) { return at < text.size() && text[at] >= '0' && text[at] <= '9'; }

// Go's getnum: one or two digits (exactly two when `fixed`), consumed from `text`.
std::optional<int> get_number(std::string_view& text, bool fixed) {
  if (!is_digit(text, 0)) return std::nullopt;
  if (!is_digit(text, 1)) {
    if (fixed) return std::nullopt;
    const int value = text[0] - '0';
    text.remove_prefix(1);
    return value;
  }
  const int value = (text[0] - '0') * 10 + (text[1] - '0');
  text.remove_prefix(2);
  return value;
}

// Go's parseNanoseconds: text[0] is '.' or ',', then the digits of text[1, length) (atoi's sign allowed), scaled
// to nanoseconds; nullopt for what atoi refuses. A negative value is out of range, which Go reports apart.
std::optional<std::int64_t> parse_fraction(std::string_view text, std::size_t length) {
  if (text.empty() || (text[0] != '.' && text[0] != ',')) return std::nullopt;
  length = std::min<std::size_t>(length, 10);
  std::string_view digits = text.substr(1, length - 1);
  const bool negative = !digits.empty() && digits[0] == '-';
  if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) digits.remove_prefix(1);
  std::int64_t value = 0;
  for (const char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  for (std::size_t scale = length; scale < 10; ++scale) value *= 10;
  return negative ? -value : value;
}

// The time package's quote: control and non-ASCII bytes as \xNN, '"' and '\' escaped.
std::string go_time_quote(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (std::size_t at = 0; at < text.size();) {
    const Rune rune = decode_rune(text.substr(at));
    if (rune.value >= 0x80 || rune.value < ' ') {
      std::size_t width = rune.width;
      if (rune.value == kRuneError) width = text.substr(at, 3) == "\xef\xbf\xbd" && at + 2 < text.size() ? 3 : 1;
      for (std::size_t i = 0; i < width; ++i) {
        const auto byte = static_cast<unsigned char>(text[at + i]);
        out += "\\x";
        out += kHex[byte >> 4];
        out += kHex[byte & 0xF];
      }
    } else {
      if (rune.value == '"' || rune.value == '\\') out += '\\';
      out += static_cast<char>(rune.value);
    }
    at += rune.width;
  }
  return out + "\"";
}

// The year as Go's Format writes any year: a sign before years below 0, at least four digits, more past 9999.
// Twelve at most, as Go's times end in year 292277026596.
std::optional<std::int64_t> any_year(std::string_view& text) {
  const std::size_t sign = text.starts_with('-') ? 1 : 0;
  std::size_t end = sign;
  while (is_digit(text, end) && end - sign <= 12) ++end;
  if (end - sign < 4 || end - sign > 12) return std::nullopt;
  std::int64_t year = 0;
  for (std::size_t i = sign; i < end; ++i) year = year * 10 + (text[i] - '0');
  text.remove_prefix(end);
  return sign ? -year : year;
}

}  // namespace

GoParsedTime parse_go_time(std::string_view text, TimeLayout layout, bool any_year_allowed) {
  const bool micro = layout == TimeLayout::kRfc3339Micro;
  const std::string_view layout_text = micro ? kRfc3339MicroLayout : kRfc3339Layout;
  const std::span<const Chunk> chunks = micro ? std::span<const Chunk>(kRfc3339MicroChunks)
                                              : std::span<const Chunk>(kRfc3339Chunks);
  // *time.ParseError's two forms.
  auto cannot_parse = [&](std::string_view value_element, std::string_view layout_element) {
    return GoParsedTime{std::nullopt, "parsing time " + go_time_quote(text) + " as " + go_time_quote(layout_text) +
                                          ": cannot parse " + go_time_quote(value_element) + " as " +
                                          go_time_quote(layout_element)};
  };
  auto message = [&](const std::string& what) {
    return GoParsedTime{std::nullopt, "parsing time " + go_time_quote(text) + what};
  };

  std::string_view value = text;
  std::int64_t year = 0;
  int month = 0, day = 0, hour = 0, minute = 0, second = 0;
  std::int64_t nanos = 0, offset = 0;
  for (const Chunk& chunk : chunks) {
    for (const char literal : chunk.prefix) {
      if (value.empty() || value[0] != literal) return cannot_parse(value, chunk.prefix);
      value.remove_prefix(1);
    }
    if (chunk.element == Element::kEnd) {
      if (!value.empty()) return message(": extra text: " + go_time_quote(value));
      break;
    }
    const std::string_view hold = value;
    std::string_view range;  // what is out of range, which Go reports before a malformed element
    bool bad = false;
    switch (chunk.element) {
      case Element::kYear:
        if (any_year_allowed) {
          const auto parsed = any_year(value);
          bad = !parsed;
          year = parsed.value_or(0);
        } else if (const auto parsed = digits(value, 0, 4)) {
          year = *parsed;
          value.remove_prefix(4);
        } else {
          bad = true;
        }
        break;
      case Element::kMonth: {
        const auto parsed = get_number(value, true);
        bad = !parsed;
        month = parsed.value_or(0);
        if (parsed && (month < 1 || month > 12)) range = "month";
        break;
      }
      case Element::kDay: {
        const auto parsed = get_number(value, true);
        bad = !parsed;
        day = parsed.value_or(0);
        break;
      }
      case Element::kHour: {
        const auto parsed = get_number(value, false);
        bad = !parsed;
        hour = parsed.value_or(0);
        if (hour >= 24) range = "hour";
        break;
      }
      case Element::kMinute: {
        const auto parsed = get_number(value, true);
        bad = !parsed;
        minute = parsed.value_or(0);
        if (minute >= 60) range = "minute";
        break;
      }
      case Element::kSecond: {
        const auto parsed = get_number(value, true);
        bad = !parsed;
        second = parsed.value_or(0);
        if (bad) break;
        if (second >= 60) {
          range = "second";
          break;
        }
        // A fraction the layout does not spell is read here; MicroTime's layout spells it.
        if (!micro && value.size() >= 2 && (value[0] == '.' || value[0] == ',') && is_digit(value, 1)) {
          std::size_t length = 2;
          while (is_digit(value, length)) ++length;
          nanos = parse_fraction(value, length).value_or(0);
          value.remove_prefix(length);
        }
        break;
      }
      case Element::kFraction6: {
        // Exactly the layout's six digits.
        if (value.size() < 7) {
          bad = true;
          break;
        }
        const auto parsed = parse_fraction(value, 7);
        bad = !parsed;
        nanos = parsed.value_or(0);
        if (parsed && nanos < 0) range = "fractional second";
        value.remove_prefix(7);
        break;
      }
      case Element::kZone: {
        if (!value.empty() && value[0] == 'Z') {
          value.remove_prefix(1);
          break;
        }
        if (value.size() < 6 || value[3] != ':') {
          bad = true;
          break;
        }
        std::string_view hours = value.substr(1, 2), minutes = value.substr(4, 2);
        const char sign = value[0];
        value.remove_prefix(6);
        const auto zone_hours = get_number(hours, true);
        const auto zone_minutes = zone_hours ? get_number(minutes, true) : std::nullopt;
        bad = !zone_hours || !zone_minutes || (sign != '+' && sign != '-');
        // Go allows 24 hours and 60 minutes: some write offsets so.
        if (zone_hours.value_or(0) > 24) range = "time zone offset hour";
        if (zone_minutes.value_or(0) > 60) range = "time zone offset minute";
        offset = (zone_hours.value_or(0) * 60 + zone_minutes.value_or(0)) * 60;
        if (sign == '-') offset = -offset;
        break;
      }
      case Element::kEnd: break;
    }
    if (!range.empty()) return message(": " + std::string(range) + " out of range");
    if (bad) return cannot_parse(hold, chunk.spelled);
  }
  if (day < 1 || static_cast<unsigned>(day) > days_in_month(year, static_cast<unsigned>(month)))
    return message(": day out of range");
  // Summed wider: with any year the time may leave int64, and then no time Go holds.
  const __int128 seconds =
      static_cast<__int128>(days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day))) *
          kSecondsPerDay +
      (hour * 3600 + minute * 60 + second) - offset;
  if (seconds < std::numeric_limits<std::int64_t>::min() || seconds > std::numeric_limits<std::int64_t>::max())
    return message(": time out of range");
  return {UnixTime{static_cast<std::int64_t>(seconds), static_cast<std::int32_t>(nanos)}, {}};
}

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
