// Timestamp and duration accessors of cel-go's standard library (common/stdlib/standard.go; common/types
// timestamp.go timeZone and the timestampGet* visitors, duration.go DurationGet*): fields in UTC or in a time zone
// given as an IANA name ("America/New_York", "UTC") or a fixed offset ("+05:30", "-08:00").
#include <absl/time/civil_time.h>
#include <absl/time/time.h>

#include <charconv>

#include "cel/stdlib/builders.h"

namespace kapi::cel::stdlib {
namespace {

using I = std::int64_t;

// strconv.Atoi, as cel-go reads the hours and minutes of an offset.
std::optional<int> go_atoi(std::string_view text) {
  std::string_view digits = text;
  bool negative = false;
  if (!digits.empty() && (digits.front() == '+' || digits.front() == '-')) {
    negative = digits.front() == '-';
    digits.remove_prefix(1);
  }
  if (digits.empty()) return std::nullopt;
  int value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return negative ? -value : value;
}

// The time zone cel-go's timeZone() resolves, or the error it reports.
std::variant<absl::TimeZone, Value> zone_named(const std::string& name) {
  std::size_t colon = name.find(':');
  if (colon == std::string::npos) {
    absl::TimeZone zone;
    if (name.empty() || name == "UTC") return absl::UTCTimeZone();
    if (name == "Local") return absl::LocalTimeZone();
    // time.LoadLocation refuses names that could reach outside the zoneinfo directory. absl would open them as
    // paths, letting an expression read any file the server can, or wait forever on a pipe or a terminal such as
    // /dev/stdin. (A name with a colon, like cctz's "file:" prefix, is an offset and never gets here.)
    if (name.find("..") != std::string::npos || name[0] == '/' || name[0] == '\\')
      return error(ErrorCode::kInvalidArgument, "time: invalid location name");
    if (!absl::LoadTimeZone(name, &zone)) return error(ErrorCode::kInvalidArgument, "unknown time zone " + name);
    return zone;
  }
  std::string hours_text = name.substr(0, colon), minutes_text = name.substr(colon + 1);
  auto hours = go_atoi(hours_text);
  if (!hours) return error(ErrorCode::kInvalidArgument, "strconv.Atoi: parsing \"" + hours_text + "\": invalid syntax");
  auto minutes = go_atoi(minutes_text);
  if (!minutes) {
    return error(ErrorCode::kInvalidArgument, "strconv.Atoi: parsing \"" + minutes_text + "\": invalid syntax");
  }
  int offset = name[0] == '-' ? *hours * 60 - *minutes : *hours * 60 + *minutes;
  return absl::FixedTimeZone(offset * 60);
}

enum class Field { kYear, kMonth, kDayOfYear, kDayOfMonth, kDate, kDayOfWeek, kHours, kMinutes, kSeconds, kMillis };

Value field_of(Timestamp t, const absl::TimeZone& zone, Field field) {
  if (field == Field::kMillis) return Value(static_cast<I>(t.nanos / 1'000'000));
  absl::CivilSecond civil = zone.At(absl::FromUnixSeconds(t.seconds)).cs;
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
                           return field_of(a[0].get<Timestamp>(), absl::UTCTimeZone(), field);
                         }),
                  member(std::move(tz_id), {ts, Type::string_type()}, Type::int_type(),
                         [field](std::span<const Value> a) {
                           auto zone = zone_named(a[1].get<std::string>());
                           if (auto* e = std::get_if<Value>(&zone)) return *e;
                           return field_of(a[0].get<Timestamp>(), std::get<absl::TimeZone>(zone), field);
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
