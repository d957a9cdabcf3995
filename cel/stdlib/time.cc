// Timestamp and duration accessors of cel-go's standard library (common/stdlib/standard.go; common/types
// timestamp.go timeZone and the timestampGet* visitors, duration.go DurationGet*): fields in UTC or in a time zone
// given as an IANA name ("America/New_York", "UTC") or a fixed offset ("+05:30", "-08:00").
#include <absl/time/civil_time.h>
#include <absl/time/time.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <variant>

#include "base/go_quote.h"
#include "base/go_strconv.h"
#include "cel/stdlib/builders.h"

namespace kapi::cel::stdlib {
namespace {

using I = std::int64_t;

// strconv.Atoi, as cel-go reads the hours and minutes of an offset: a 64-bit int, or Go's error.
std::variant<I, Value> go_atoi(std::string_view text) {
  const base::GoParsed<I> parsed = base::go_parse_int(text);
  if (parsed) return parsed.value;
  return error(ErrorCode::kInvalidArgument,
               "strconv.Atoi: parsing " + base::go_quote(text) + ": " + std::string(parsed.error));
}

// A zone as cel-go applies it: a named zone, or UTC moved by a fixed offset. Go's time.FixedZone takes any offset,
// where absl's FixedTimeZone falls back to UTC beyond ±24 hours, so offsets are added to the time instead.
struct Zone {
  absl::TimeZone zone = absl::UTCTimeZone();
  I seconds_east = 0;
};

// Whether a zone file of that name exists where absl looks for one (cctz: $TZDIR, else /usr/share/zoneinfo). absl
// remembers every name it is asked to load, found or not, for the life of the process, and Go caches none: names
// built by expressions or read from objects could grow that memory without bound, so only files reach absl.
bool is_zone_file(const std::string& name) {
  const char* dir = std::getenv("TZDIR");
  std::error_code ignored;
  return std::filesystem::is_regular_file(std::filesystem::path(dir && *dir ? dir : "/usr/share/zoneinfo") / name,
                                          ignored);
}

// The time zone cel-go's timeZone() resolves, or the error it reports.
std::variant<Zone, Value> zone_named(const std::string& name) {
  std::size_t colon = name.find(':');
  if (colon == std::string::npos) {
    absl::TimeZone zone;
    if (name.empty() || name == "UTC") return Zone{absl::UTCTimeZone()};
    if (name == "Local") return Zone{absl::LocalTimeZone()};
    // time.LoadLocation refuses names that could reach outside the zoneinfo directory. absl would open them as
    // paths, letting an expression read any file the server can, or wait forever on a pipe or a terminal such as
    // /dev/stdin. (A name with a colon, like cctz's "file:" prefix, is an offset and never gets here.)
    if (name.find("..") != std::string::npos || name[0] == '/' || name[0] == '\\')
      return error(ErrorCode::kInvalidArgument, "time: invalid location name");
    // Go cannot open a name holding a NUL byte; absl would open the name up to it, and remember the whole.
    if (name.find('\0') != std::string::npos) return error(ErrorCode::kInvalidArgument, "invalid argument");
    if (!is_zone_file(name) || !absl::LoadTimeZone(name, &zone))
      return error(ErrorCode::kInvalidArgument, "unknown time zone " + name);
    return Zone{zone};
  }
  auto hours = go_atoi(std::string_view(name).substr(0, colon));
  if (auto* e = std::get_if<Value>(&hours)) return *e;
  auto minutes = go_atoi(std::string_view(name).substr(colon + 1));
  if (auto* e = std::get_if<Value>(&minutes)) return *e;
  // Go's int and time.Duration arithmetic wraps, so any hours and minutes give an offset: in minutes, then as a
  // Duration, whose Seconds() int() truncates. Unsigned arithmetic wraps the same way.
  const std::uint64_t hour_minutes = static_cast<std::uint64_t>(std::get<I>(hours)) * 60;
  const std::uint64_t extra_minutes = static_cast<std::uint64_t>(std::get<I>(minutes));
  const std::uint64_t offset_minutes = name[0] == '-' ? hour_minutes - extra_minutes : hour_minutes + extra_minutes;
  const auto offset_nanos = static_cast<I>(offset_minutes * 60'000'000'000u);
  const double seconds =
      static_cast<double>(offset_nanos / 1'000'000'000) + static_cast<double>(offset_nanos % 1'000'000'000) / 1e9;
  return Zone{absl::UTCTimeZone(), static_cast<I>(seconds)};
}

enum class Field { kYear, kMonth, kDayOfYear, kDayOfMonth, kDate, kDayOfWeek, kHours, kMinutes, kSeconds, kMillis };

Value field_of(Timestamp t, const Zone& zone, Field field) {
  if (field == Field::kMillis) return Value(static_cast<I>(t.nanos / 1'000'000));
  // Timestamps stay within years 1 to 9999 and offsets within ±2^63 ns, so the sum cannot overflow.
  absl::CivilSecond civil = zone.zone.At(absl::FromUnixSeconds(t.seconds + zone.seconds_east)).cs;
  absl::CivilDay day(civil);
  switch (field) {
    case Field::kYear: return Value(static_cast<I>(civil.year()));
    case Field::kMonth: return Value(static_cast<I>(civil.month() - 1));
    case Field::kDayOfYear: return Value(static_cast<I>(absl::GetYearDay(day) - 1));
    case Field::kDayOfMonth: return Value(static_cast<I>(civil.day() - 1));
    case Field::kDate: return Value(static_cast<I>(civil.day()));
    case Field::kDayOfWeek: {
      // absl counts from Monday = 0; Go's Weekday from Sunday = 0.
      int weekday = static_cast<int>(absl::GetWeekday(day));
      return Value(static_cast<I>((weekday + 1) % 7));
    }
    case Field::kHours: return Value(static_cast<I>(civil.hour()));
    case Field::kMinutes: return Value(static_cast<I>(civil.minute()));
    case Field::kSeconds: return Value(static_cast<I>(civil.second()));
    case Field::kMillis: break;
  }
  return Value(I{0});
}

void add_accessor(std::vector<Function>& out, std::string name, std::string id, std::string tz_id, Field field) {
  const Type ts = Type::timestamp();
  out.push_back({std::move(name),
                 {member(std::move(id), {ts}, Type::int_type(),
                         [field](std::span<const Value> a) {
                           return field_of(a[0].get<Timestamp>(), Zone{}, field);
                         }),
                  member(std::move(tz_id), {ts, Type::string_type()}, Type::int_type(),
                         [field](std::span<const Value> a) {
                           auto zone = zone_named(a[1].get<std::string>());
                           if (auto* e = std::get_if<Value>(&zone)) return *e;
                           return field_of(a[0].get<Timestamp>(), std::get<Zone>(zone), field);
                         })}});
}

void add_duration_accessor(std::vector<Function>& out, std::string_view name, std::string id, I nanos_per_unit) {
  for (Function& function : out) {
    if (function.name != name) continue;
    function.overloads.push_back(member(std::move(id), {Type::duration()}, Type::int_type(),
                                        [nanos_per_unit](std::span<const Value> a) {
                                          return Value(a[0].get<Duration>().nanos / nanos_per_unit);
                                        }));
  }
}

}  // namespace

std::vector<Function> time_functions() {
  std::vector<Function> out;
  add_accessor(out, "getFullYear", "timestamp_to_year", "timestamp_to_year_with_tz", Field::kYear);
  add_accessor(out, "getMonth", "timestamp_to_month", "timestamp_to_month_with_tz", Field::kMonth);
  add_accessor(out, "getDayOfYear", "timestamp_to_day_of_year", "timestamp_to_day_of_year_with_tz",
               Field::kDayOfYear);
  add_accessor(out, "getDayOfMonth", "timestamp_to_day_of_month", "timestamp_to_day_of_month_with_tz",
               Field::kDayOfMonth);
  add_accessor(out, "getDate", "timestamp_to_day_of_month_1_based", "timestamp_to_day_of_month_1_based_with_tz",
               Field::kDate);
  add_accessor(out, "getDayOfWeek", "timestamp_to_day_of_week", "timestamp_to_day_of_week_with_tz",
               Field::kDayOfWeek);
  add_accessor(out, "getHours", "timestamp_to_hours", "timestamp_to_hours_with_tz", Field::kHours);
  add_accessor(out, "getMinutes", "timestamp_to_minutes", "timestamp_to_minutes_with_tz", Field::kMinutes);
  add_accessor(out, "getSeconds", "timestamp_to_seconds", "timestamp_to_seconds_tz", Field::kSeconds);
  add_accessor(out, "getMilliseconds", "timestamp_to_milliseconds", "timestamp_to_milliseconds_with_tz",
               Field::kMillis);
  add_duration_accessor(out, "getHours", "duration_to_hours", 3'600'000'000'000);
  add_duration_accessor(out, "getMinutes", "duration_to_minutes", 60'000'000'000);
  add_duration_accessor(out, "getSeconds", "duration_to_seconds", 1'000'000'000);
  add_duration_accessor(out, "getMilliseconds", "duration_to_milliseconds", 1'000'000);
  return out;
}

}  // namespace kapi::cel::stdlib
